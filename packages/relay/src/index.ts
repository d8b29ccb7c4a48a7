export { type AppOptions, BODY_LIMIT, buildApp, type RelayApp } from "./http/app.js";
export { DEFAULT_LIMITS, type LimitTable } from "./http/rate-limit.js";
export { SqliteStore } from "./store/sqlite/sqlite-store.js";
export type { RelayStore, StoreTx } from "./store/types.js";
