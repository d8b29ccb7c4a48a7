import { terminalText } from "@notify/contracts/text";
import { ExitError } from "./exit-error.js";

/**
 * What a command's failure prints and the exit status it ends with: an ExitError's own status and message, anything
 * else 1. A message can carry the broker's or a relay's words, or an agent's (a choice label): escaped
 * (docs/cli.md).
 */
export function reportFailure(error: unknown): number {
  if (error instanceof ExitError) {
    if (error.message) process.stderr.write(`notify: ${terminalText(error.message, { lines: true })}\n`);
    return error.exitCode;
  }
  process.stderr.write(`notify: ${terminalText((error as Error).message, { lines: true })}\n`);
  return 1;
}
