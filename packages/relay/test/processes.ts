// The relay as its own process and a small JSON client: in the test kit, shared with the broker's suites.
export { call, type RelayProcess, spawnRelay } from "@notify/test-kit/relay-process";
