import { hostname } from "node:os";
import { RELAY_MACHINE_MAX_CHARS } from "@notify/contracts/relay-payloads";
import { invalid } from "../domain/errors.js";

/**
 * This machine's name at the relay and on the phone's cards (one phone serves several machines, issue 37 item 2):
 * the name chosen with `notify relay enroll|join --machine NAME` (kept in the relay provider's settings), else the
 * host name, cut to the relay's 100 characters. Two brokers on one host (two users, a container) choose names apart.
 */
export const machineName = (chosen?: unknown): string =>
  typeof chosen === "string" && chosen !== ""
    ? chosen
    : Array.from(hostname() || "notify broker")
        .slice(0, RELAY_MACHINE_MAX_CHARS)
        .join("");

/** A `--machine` name as given: 1-100 characters, no control characters; undefined when none was given. */
export function chosenMachineName(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const name = typeof value === "string" ? value.trim() : "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name === "" || name.length > RELAY_MACHINE_MAX_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    throw invalid(`machine must be 1-${RELAY_MACHINE_MAX_CHARS} characters, without control characters`, "machine");
  }
  return name;
}
