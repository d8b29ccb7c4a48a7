import { enrollmentToken, resolveSettings } from "../../config/settings.js";

/** Prints the token `notify relay enroll` needs; RELAY_ENROLLMENT_TOKEN wins over the data dir's file. */
export async function enrollmentTokenCommand(flags: { dataDir?: string }): Promise<void> {
  const settings = resolveSettings(flags);
  process.stdout.write(`${enrollmentToken(settings.dataDir)}\n`);
}
