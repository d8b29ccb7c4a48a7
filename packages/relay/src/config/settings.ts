import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import envPaths from "env-paths";
import { newToken } from "../domain/tokens.js";

/** docs/relay.md, "Running": flags win over environment variables, which win over defaults. */
export interface RelaySettings {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string | undefined;
  trustProxy: boolean | string;
  rateLimits: boolean;
  /** PostgreSQL group commit of answers and envelopes (RELAY_GROUP_COMMIT=off only to measure without it). */
  groupCommit: boolean;
  /** A separate listener for GET /metrics without credentials (RELAY_METRICS_PORT; off when undefined). */
  metricsPort: number | undefined;
  metricsHost: string;
  /** The operator's test switch: Web Push endpoints on loopback are accepted (never in production). */
  allowLoopbackPush: boolean;
}

export interface SettingsFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  publicUrl?: string;
  trustProxy?: string | boolean;
  allowLoopbackPush?: boolean;
  metricsPort?: string;
  metricsHost?: string;
}

export const DEFAULT_PORT = 47822;
export const DEFAULT_HOST = "127.0.0.1";

export class SettingsError extends Error {}

function parsePort(value: string, from: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new SettingsError(`${from} must be a port (0-65535)`);
  return Number(value);
}

/** `--trust-proxy` alone (or "true") trusts every hop; otherwise a comma-separated list of addresses or CIDRs. */
function parseTrustProxy(value: string | boolean | undefined): boolean | string {
  if (value === undefined || value === false || value === "" || value === "false") return false;
  if (value === true || value === "true") return true;
  return value;
}

/** An on/off variable: 1/true/yes/on, or 0/false/no/off/unset; anything else is a mistake worth stopping for. */
function parseSwitch(value: string | undefined, name = "RELAY_ALLOW_LOOPBACK_PUSH"): boolean {
  if (value === undefined || value === "") return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new SettingsError(`${name} must be 1 or 0`);
}

export function resolveSettings(flags: SettingsFlags, env: NodeJS.ProcessEnv = process.env): RelaySettings {
  const port =
    flags.port !== undefined
      ? parsePort(flags.port, "--port")
      : env.RELAY_PORT
        ? parsePort(env.RELAY_PORT, "RELAY_PORT")
        : DEFAULT_PORT;
  const publicUrl = flags.publicUrl ?? (env.RELAY_PUBLIC_URL || undefined);
  if (publicUrl !== undefined && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(publicUrl)) {
    throw new SettingsError("RELAY_PUBLIC_URL must be an http(s) URL without query or fragment");
  }
  return {
    port,
    host: flags.host ?? (env.RELAY_HOST || DEFAULT_HOST),
    dataDir: flags.dataDir ?? (env.RELAY_DATA_DIR || envPaths("notify-relay", { suffix: "" }).data),
    databaseUrl: flags.databaseUrl ?? (env.RELAY_DATABASE_URL || undefined),
    publicUrl,
    trustProxy: parseTrustProxy(flags.trustProxy ?? env.RELAY_TRUST_PROXY),
    rateLimits: env.RELAY_RATE_LIMITS !== "off",
    groupCommit: env.RELAY_GROUP_COMMIT !== "off",
    metricsPort:
      flags.metricsPort !== undefined
        ? parsePort(flags.metricsPort, "--metrics-port")
        : env.RELAY_METRICS_PORT
          ? parsePort(env.RELAY_METRICS_PORT, "RELAY_METRICS_PORT")
          : undefined,
    metricsHost: flags.metricsHost ?? (env.RELAY_METRICS_HOST || DEFAULT_HOST),
    allowLoopbackPush: flags.allowLoopbackPush === true || parseSwitch(env.RELAY_ALLOW_LOOPBACK_PUSH),
  };
}

/**
 * The data dir holds secrets (tokens, VAPID key, answers and nonces in relay.db): 0700 whatever the umask, and
 * tightened when it already existed wider (a packaging step, an older relay). Nothing is ever widened.
 */
export function secureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tighten(dataDir, 0o700);
}

/** Takes group and other bits off an existing file or directory (0600 / 0700); a missing file is left alone. */
export function tighten(path: string, mode: 0o600 | 0o700 = 0o600): void {
  let current: number;
  try {
    current = statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if ((current & 0o077) === 0) return;
  try {
    chmodSync(path, current & mode);
  } catch (error) {
    throw new SettingsError(
      `${path} is readable by other users and could not be made private (${(error as NodeJS.ErrnoException).code}): ` +
        `chmod ${mode.toString(8)} it, or choose another data dir`,
    );
  }
}

/**
 * Reads a secret file of the data dir, creating it with `create()` on first run. When two relay processes share a
 * data dir and start together, the first to link its file into place wins and the other reads what it wrote.
 */
export function readOrCreate(dataDir: string, name: string, create: () => string): string {
  const path = join(dataDir, name);
  secureDataDir(dataDir);
  try {
    const text = readFileSync(path, "utf8").trim();
    tighten(path);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // Written whole to a file of this process's own, then linked into place: link fails with EEXIST when another
  // process got there first, and a reader never sees a file that exists but is not written yet (with `wx` alone the
  // other process could read it empty).
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, `${create()}\n`, { flag: "wx", mode: 0o600 });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readFileSync(path, "utf8").trim();
}

/** The systemd credential the relay's unit loads the enrollment token as (`LoadCredential=enrollment-token:...`). */
export const ENROLLMENT_CREDENTIAL = "enrollment-token";

/**
 * A secret kept in a file of its own (a systemd credential, a `*_FILE` variable): one line, its line ending and
 * surrounding blanks dropped. Messages name the file, never what it holds.
 */
function readSecretFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SettingsError(`${what}: cannot read ${path} (${code ?? (error as Error).message})`);
  }
  const secret = text.trim();
  if (secret === "") throw new SettingsError(`${what}: ${path} is empty`);
  if (/\s/.test(secret)) throw new SettingsError(`${what}: ${path} must hold one token on one line`);
  return secret;
}

/**
 * The operator's enrollment token, from the first of: RELAY_ENROLLMENT_TOKEN; the file RELAY_ENROLLMENT_TOKEN_FILE
 * names; the systemd credential `enrollment-token` (`$CREDENTIALS_DIRECTORY/enrollment-token`, what the shipped
 * unit's LoadCredential= gives); else the data dir's `enrollment-token`, generated on first run.
 */
export function enrollmentToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.RELAY_ENROLLMENT_TOKEN && env.RELAY_ENROLLMENT_TOKEN_FILE) {
    throw new SettingsError("RELAY_ENROLLMENT_TOKEN and RELAY_ENROLLMENT_TOKEN_FILE are both set: keep one");
  }
  if (env.RELAY_ENROLLMENT_TOKEN) return env.RELAY_ENROLLMENT_TOKEN;
  if (env.RELAY_ENROLLMENT_TOKEN_FILE) {
    return readSecretFile(env.RELAY_ENROLLMENT_TOKEN_FILE, "RELAY_ENROLLMENT_TOKEN_FILE");
  }
  if (env.CREDENTIALS_DIRECTORY) {
    const path = join(env.CREDENTIALS_DIRECTORY, ENROLLMENT_CREDENTIAL);
    // Another credential may be loaded without this one: only a missing file falls through to the data dir.
    if (existsSync(path)) return readSecretFile(path, `the systemd credential ${ENROLLMENT_CREDENTIAL}`);
  }
  return readOrCreate(dataDir, "enrollment-token", () => newToken("enrollment"));
}
