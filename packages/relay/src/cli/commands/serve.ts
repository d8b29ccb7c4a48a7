import { resolveSettings, type SettingsFlags } from "../../config/settings.js";
import { streamLogger } from "../../log.js";
import { startRelay } from "../../relay.js";

/** `notify-relay serve`: foreground; SIGINT/SIGTERM close the listener, drain, and close the store. */
export async function serve(flags: SettingsFlags): Promise<void> {
  const settings = resolveSettings(flags);
  const logger = streamLogger((line) => process.stderr.write(line));
  const relay = await startRelay(settings, logger);
  // The signal handlers go in before the "listening" line: a supervisor that stops the relay as soon as it reads
  // that line must find them (under load the child can be descheduled between the two).
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  logger.info(`notify-relay listening on ${relay.url} (public URL ${relay.publicUrl}, ${relay.store.backend} store)`);
  process.stdout.write(`notify-relay listening on ${relay.url}\n`);
  await stopped;
  logger.info("shutting down");
  await relay.close();
}
