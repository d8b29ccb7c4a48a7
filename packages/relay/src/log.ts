/** One line per event: `YYYY-MM-DD HH:mm:ss.fff [LEVEL] message` (the broker's format, UTC here). */
export interface RelayLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const stamp = (): string => new Date().toISOString().replace("T", " ").replace("Z", "");

/**
 * Writes to a stream (stderr for `serve`). Messages are built by the relay from ids, routes and statuses only:
 * tokens, nonces, pairing codes and answer text are never passed in. Bearer-looking strings are scrubbed anyway.
 */
export function streamLogger(write: (line: string) => void): RelayLogger {
  const line = (level: string, message: string) => {
    const clean = message.replace(/[\r\n]+/g, " ").replace(/\bnr[ied]_[A-Za-z0-9_-]+/g, "[redacted]");
    try {
      write(`${stamp()} [${level}] ${clean}\n`);
    } catch {
      // Logging never takes the relay down.
    }
  };
  return { info: (m) => line("INFO", m), warn: (m) => line("WARN", m), error: (m) => line("ERROR", m) };
}

export const silentLogger: RelayLogger = { info() {}, warn() {}, error() {} };
