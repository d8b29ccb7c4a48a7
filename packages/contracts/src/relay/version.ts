/** Relay contract version 1 (spec 2, Versioning 2): bumped on both sides together before any field changes. */
export const RELAY_CONTRACT_VERSION = "1";
