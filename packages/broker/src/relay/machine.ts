import { hostname } from "node:os";
import { RELAY_MACHINE_MAX_CHARS } from "@notify/contracts/relay-payloads";

/**
 * This machine's name at the relay and on the phone's cards: its host name, cut to the relay's 100 characters (one
 * phone serves several machines, issue 37 item 2).
 */
export const machineName = (): string =>
  Array.from(hostname() || "notify broker")
    .slice(0, RELAY_MACHINE_MAX_CHARS)
    .join("");
