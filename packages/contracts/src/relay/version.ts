/** Relay contract version 1 (docs/relay.md, "Versioning"): bumped on both sides together before any field changes. */
export const RELAY_CONTRACT_VERSION = "1";
