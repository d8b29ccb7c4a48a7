import { randomBytes } from "node:crypto";
import { isTypeId, type TypeDefinition } from "../notifications/type-ids.js";
import { PRIORITIES, type Priority } from "../notifications/types.js";
import { ConfigError, readConfigFile, updateConfigFile } from "./config-file.js";
import { type FollowUpSettings, parseFollowUp } from "./follow-up.js";
import { parseReceipts, type ReceiptSettings } from "./receipts.js";

export const DEFAULT_PORT = 47821;
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 65536;
export const DEFAULT_RATE_LIMIT_PER_SECOND = 30;
/** docs/routing.md, "Presence": idle this long on the session bus, or no page activity, and the person is away. */
export const DEFAULT_AWAY_AFTER_SECONDS = 300;

/** The broker's effective settings, after defaults, environment and CLI options. */
export interface BrokerSettings {
  dataDir: string;
  port: number;
  /** The token the broker accepts on /v1/*. */
  authToken: string;
  maxRequestBodyBytes: number;
  rateLimitPerSecond: number;
  notificationTypes: TypeDefinition[];
  /** Presence (docs/routing.md): read at start; loadSettings always sets it, test settings may leave it out. */
  awayAfterSeconds?: number;
  /** Follow-ups to a finished turn (docs/hooks.md, "Follow-ups"): read at start; test settings may leave it out. */
  followUp?: FollowUpSettings;
  /** Receipts (docs/relay.md, "Receipts on the broker"): read at start; test settings may leave it out. */
  receipts?: ReceiptSettings;
}

export interface SettingsOverrides {
  /** `--port`, wins over NOTIFY_PORT and config.json. */
  port?: number;
  /** `--token`, wins over NOTIFY_TOKEN and config.json. */
  token?: string;
  env?: NodeJS.ProcessEnv;
  /** Receives one line per value that was ignored or reset. */
  warn?: (message: string) => void;
}

/** 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

function positiveInteger(value: unknown, fallback: number, name: string, warn: (message: string) => void): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    warn(`config.json: ${name} must be an integer; using ${fallback}`);
    return fallback;
  }
  // docs/config.md, "config.json": a value <= 0 is reset to the default.
  if (value <= 0) {
    warn(`config.json: ${name} ${value} <= 0 reset to ${fallback}`);
    return fallback;
  }
  return value;
}

export function parsePort(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 0 || number > 65535) return undefined;
  return number;
}

export function parseTypeDefinitions(value: unknown, warn: (message: string) => void): TypeDefinition[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    warn("config.json: notificationTypes must be an array; ignored");
    return [];
  }
  const definitions: TypeDefinition[] = [];
  for (const [index, entry] of value.entries()) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      warn(`config.json: notificationTypes[${index}] is not an object; ignored`);
      continue;
    }
    const item = entry as Record<string, unknown>;
    if (typeof item.id !== "string" || !isTypeId(item.id)) {
      warn(`config.json: notificationTypes[${index}].id is not a valid type ID; ignored`);
      continue;
    }
    const definition: TypeDefinition = {
      id: item.id,
      label: typeof item.label === "string" && item.label.length > 0 ? item.label : item.id,
      enabled: item.enabled !== false,
    };
    if (typeof item.defaultPriority === "string" && (PRIORITIES as readonly string[]).includes(item.defaultPriority)) {
      definition.defaultPriority = item.defaultPriority as Priority;
    } else if (item.defaultPriority !== undefined) {
      warn(`config.json: notificationTypes[${index}].defaultPriority is not a priority; ignored`);
    }
    if (typeof item.color === "string") definition.color = item.color;
    if (typeof item.icon === "string") definition.icon = item.icon;
    if (typeof item.sound === "string") definition.sound = item.sound;
    if (typeof item.toastSeconds === "number" && item.toastSeconds > 0) definition.toastSeconds = item.toastSeconds;
    definitions.push(definition);
  }
  return definitions;
}

/**
 * Loads config.json from the data dir, generating and persisting `authToken` on first run (unknown keys kept).
 * A corrupt file throws ConfigError and is left untouched.
 */
export function loadSettings(dataDir: string, overrides: SettingsOverrides = {}): BrokerSettings {
  const env = overrides.env ?? process.env;
  const warn = overrides.warn ?? (() => {});
  let contents = readConfigFile(dataDir);

  if (typeof contents.authToken !== "string" || contents.authToken.length === 0) {
    updateConfigFile(dataDir, (current) => {
      if (typeof current.authToken !== "string" || current.authToken.length === 0) current.authToken = generateToken();
    });
    contents = readConfigFile(dataDir);
  }
  const storedToken = contents.authToken as string;

  let port = DEFAULT_PORT;
  if (contents.port !== undefined) {
    const fromFile = parsePort(contents.port);
    if (fromFile === undefined) warn(`config.json: port must be an integer 0-65535; using ${DEFAULT_PORT}`);
    else port = fromFile;
  }
  if (env.NOTIFY_PORT !== undefined && env.NOTIFY_PORT !== "") {
    const fromEnv = parsePort(env.NOTIFY_PORT);
    if (fromEnv === undefined) throw new ConfigError(`NOTIFY_PORT must be an integer 0-65535`);
    port = fromEnv;
  }
  if (overrides.port !== undefined) port = overrides.port;

  const envToken = env.NOTIFY_TOKEN !== undefined && env.NOTIFY_TOKEN !== "" ? env.NOTIFY_TOKEN : undefined;
  return {
    dataDir,
    port,
    authToken: overrides.token ?? envToken ?? storedToken,
    maxRequestBodyBytes: positiveInteger(
      contents.maxRequestBodyBytes,
      DEFAULT_MAX_REQUEST_BODY_BYTES,
      "maxRequestBodyBytes",
      warn,
    ),
    rateLimitPerSecond: positiveInteger(
      contents.rateLimitPerSecond,
      DEFAULT_RATE_LIMIT_PER_SECOND,
      "rateLimitPerSecond",
      warn,
    ),
    notificationTypes: parseTypeDefinitions(contents.notificationTypes, warn),
    awayAfterSeconds: positiveInteger(contents.awayAfterSeconds, DEFAULT_AWAY_AFTER_SECONDS, "awayAfterSeconds", warn),
    followUp: parseFollowUp(contents.followUp, warn),
    receipts: parseReceipts(contents.receipts, warn),
  };
}
