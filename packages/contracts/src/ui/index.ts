export * from "./config.js";
export * from "./schemas.js";
