export * from "./agents.js";
export * from "./config.js";
export * from "./constants.js";
export * from "./relay.js";
export * from "./router.js";
export * from "./schemas.js";
export * from "./timeline.js";
export * from "./timeline-words.js";
