export { type ApiReply, type BrokerApi, brokerApi } from "./broker-api.js";
export type { Json } from "./json.js";
export { ENROLLMENT_TOKEN } from "./relay.js";
export { removeTempDirs, tempDir } from "./temp-dirs.js";
export { until } from "./wait.js";
