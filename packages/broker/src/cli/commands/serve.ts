import { ConfigError } from "../../config/config-file.js";
import { parsePort } from "../../config/settings.js";
import { flushCompileCache } from "../compile-cache.js";
import { ExitError } from "../exit-error.js";
import { execWithServeFlags } from "../runtime-flags.js";

export interface ServeOptions {
  port?: string;
  dataDir?: string;
  token?: string;
}

/** `notify serve`: the broker in the foreground until SIGINT/SIGTERM; log lines echo to stderr. */
export async function serve(options: ServeOptions): Promise<void> {
  execWithServeFlags();
  const { startBroker } = await import("../../broker.js");
  let port: number | undefined;
  if (options.port !== undefined) {
    port = parsePort(options.port);
    if (port === undefined) throw new ExitError(1, `invalid --port ${options.port}: expected an integer 0-65535`);
  }
  // The signal handlers go in before the broker logs "listening on": a supervisor that stops it as soon as it reads
  // that line must not meet the default action (exit without closing the database).
  let signalled: NodeJS.Signals | undefined;
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => {
    signalled = signal;
  };
  const handler = (signal: NodeJS.Signals): void => onSignal(signal);
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  let broker: Awaited<ReturnType<typeof startBroker>>;
  try {
    broker = await startBroker({
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(options.token !== undefined && options.token !== "" ? { token: options.token } : {}),
      echo: (line) => process.stderr.write(line),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new ExitError(1, error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new ExitError(1, "the port is already in use (is another broker running?)");
    throw error;
  }
  flushCompileCache();
  // The page's one-time login link goes to stdout only, never to the log (it is a credential until used).
  const { token: loginToken } = broker.uiSessions.createLinkToken();
  process.stdout.write(`Web UI: ${broker.url}/ui/login?t=${loginToken}\n`);
  await new Promise<void>((resolve) => {
    onSignal = (signal) => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
      broker.logger.info(`${signal} received, shutting down`);
      broker.close().then(resolve, resolve);
    };
    if (signalled) onSignal(signalled);
  });
}
