export {
  type Broker,
  type BrokerOptions,
  createBroker,
  type RunningBroker,
  type StartOptions,
  startBroker,
} from "./broker.js";
export { ConfigError, readConfigFile, writeConfigFile } from "./config/config-file.js";
export { resolveDataDir } from "./config/paths.js";
export { type BrokerSettings, loadSettings } from "./config/settings.js";
export { type Clock, ManualClock, systemClock } from "./domain/clock.js";
export { rotateHookToken } from "./hooks/hook-token.js";
export { buildApp } from "./http/app.js";
export type { InteractionDto } from "./interactions/types.js";
export { createFileLogger, createMemoryLogger, type Logger } from "./log/logger.js";
export type { NotificationDto } from "./notifications/types.js";
export { VERSION } from "./version.js";
