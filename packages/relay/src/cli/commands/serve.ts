import { setFlagsFromString } from "node:v8";
import { resolveSettings, type SettingsFlags } from "../../config/settings.js";
import { streamLogger } from "../../log.js";
import { startRelay } from "../../relay.js";

/** `notify-relay serve`: foreground; SIGINT/SIGTERM close the listener, drain, and close the store. */
export async function serve(flags: SettingsFlags): Promise<void> {
  const settings = resolveSettings(flags);
  // Each held poll is a few kB of live heap; V8's default heap growth keeps about twice that resident. Favouring
  // size over speed took RSS per held poll from 21.2 to 14.6 kB (bench/relay/scale.mjs, 12,000 polls), so 50,000
  // polls fit in 1 GB. RELAY_V8_SIZE=off keeps V8's defaults.
  if (process.env.RELAY_V8_SIZE !== "off") setFlagsFromString("--optimize-for-size");
  const logger = streamLogger((line) => process.stderr.write(line));
  // Signal handlers first: a supervisor may send SIGTERM as soon as it reads the "listening" line.
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.once("SIGINT", () => stop());
  process.once("SIGTERM", () => stop());
  const relay = await startRelay(settings, logger);
  logger.info(`notify-relay listening on ${relay.url} (public URL ${relay.publicUrl}, ${relay.store.backend} store)`);
  process.stdout.write(`notify-relay listening on ${relay.url}\n`);
  await stopped;
  logger.info("shutting down");
  await relay.close();
}
