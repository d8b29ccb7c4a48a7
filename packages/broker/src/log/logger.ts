import { appendFileSync, mkdirSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../domain/clock.js";
import { systemClock } from "../domain/clock.js";

export type LogLevel = "INFO" | "WARN" | "ERROR";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Registers a value that must never appear in a log line; it is replaced by `[redacted]`. */
  addSecret(secret: string): void;
  /** Flushes what is buffered. Never throws. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, "0");

/** `YYYY-MM-DD HH:mm:ss.fff`, local time (docs/desktop.md, "Local presentation rules", rule 8). */
export function formatTimestamp(milliseconds: number): string {
  const date = new Date(milliseconds);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
  );
}

/** Bearer credentials and `token=`/`nonce=` pairs are scrubbed even when nobody registered them. */
const CREDENTIAL_PATTERNS: RegExp[] = [
  /(bearer\s+)[^\s"',;]+/gi,
  /((?:token|nonce|api[_-]?key|secret|password|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
];

export function scrub(message: string, secrets: Iterable<string>): string {
  let clean = message.replace(/[\r\n]+/g, " ");
  for (const secret of secrets) {
    if (secret.length >= 6) clean = clean.split(secret).join("[redacted]");
  }
  for (const pattern of CREDENTIAL_PATTERNS) clean = clean.replace(pattern, "$1[redacted]");
  return clean;
}

export interface FileLoggerOptions {
  /** Directory of the daily files `notify-YYYY-MM-DD.log`. */
  directory: string;
  clock?: Clock;
  /** Also write each line here (the foreground `serve` echoes to stderr). */
  echo?: (line: string) => void;
}

/**
 * Daily log files. Lines are buffered and appended asynchronously so logging never blocks a request; any failure
 * (disk full, directory removed, permissions) is swallowed: logging never crashes the broker.
 */
export function createFileLogger(options: FileLoggerOptions): Logger {
  const clock = options.clock ?? systemClock;
  const secrets = new Set<string>();
  let pending: { file: string; line: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let directoryReady = false;

  const fileFor = (milliseconds: number): string =>
    join(options.directory, `notify-${formatTimestamp(milliseconds).slice(0, 10)}.log`);

  const ensureDirectory = (): void => {
    if (directoryReady) return;
    try {
      mkdirSync(options.directory, { recursive: true, mode: 0o700 });
      directoryReady = true;
    } catch {
      // Retried on the next write.
    }
  };

  const drain = async (): Promise<void> => {
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    ensureDirectory();
    const byFile = new Map<string, string>();
    for (const entry of batch) byFile.set(entry.file, (byFile.get(entry.file) ?? "") + entry.line);
    for (const [file, text] of byFile) {
      try {
        await appendFile(file, text, { mode: 0o600 });
      } catch {
        directoryReady = false;
      }
    }
  };

  const write = (level: LogLevel, message: string): void => {
    try {
      const now = clock.now();
      const line = `${formatTimestamp(now)} [${level}] ${scrub(message, secrets)}\n`;
      pending.push({ file: fileFor(now), line });
      if (options.echo) {
        try {
          options.echo(line);
        } catch {
          // An echo target that fails (closed stderr) is not a reason to stop.
        }
      }
      if (timer === undefined) {
        timer = setTimeout(() => {
          writing = writing.then(drain, drain);
        }, 25);
        timer.unref();
      }
    } catch {
      // Never let logging throw into a request.
    }
  };

  return {
    info: (message) => write("INFO", message),
    warn: (message) => write("WARN", message),
    error: (message) => write("ERROR", message),
    addSecret: (secret) => {
      if (secret.length > 0) secrets.add(secret);
    },
    flush: async () => {
      if (timer !== undefined) clearTimeout(timer);
      writing = writing.then(drain, drain);
      await writing.catch(() => {});
    },
    close: async () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await writing.catch(() => {});
      // Last lines go out synchronously so a shutdown never loses them.
      const batch = pending;
      pending = [];
      ensureDirectory();
      for (const entry of batch) {
        try {
          appendFileSync(entry.file, entry.line, { mode: 0o600 });
        } catch {
          break;
        }
      }
    },
  };
}

/** A logger that only keeps lines in memory (tests, library use). */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const secrets = new Set<string>();
  const lines: string[] = [];
  const write = (level: LogLevel, message: string) => lines.push(`[${level}] ${scrub(message, secrets)}`);
  return {
    lines,
    info: (message) => write("INFO", message),
    warn: (message) => write("WARN", message),
    error: (message) => write("ERROR", message),
    addSecret: (secret) => {
      if (secret.length > 0) secrets.add(secret);
    },
    flush: async () => {},
    close: async () => {},
  };
}
