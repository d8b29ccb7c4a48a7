import { resolveSettings, type SettingsFlags } from "../../config/settings.js";
import { streamLogger } from "../../log.js";
import { startRelay } from "../../relay.js";
import { capYoungGeneration } from "../v8-heap.js";

/** `notify-relay serve`: foreground; SIGINT/SIGTERM close the listener, drain, and close the store. */
export async function serve(flags: SettingsFlags): Promise<void> {
  // First: this may restart the process with a V8 flag (held polls' memory without the CPU cost; see v8-heap.ts).
  capYoungGeneration();
  const settings = resolveSettings(flags);
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
