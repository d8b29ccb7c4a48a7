import { terminalJson } from "@notify/contracts/text";
import { ExitError } from "../cli/exit-error.js";
import { ConfigError, configPath, readConfigFile } from "../config/config-file.js";
import { resolveDataDir } from "../config/paths.js";
import { DEFAULT_PORT, parsePort } from "../config/settings.js";

/** The options every client command takes. */
export interface ClientOptions {
  port?: string | undefined;
  dataDir?: string | undefined;
  token?: string | undefined;
}

/** A failed HTTP response; the message is `<status> <error>` so the entry prints `notify: 429 rate limit exceeded`. */
export class HttpFailure extends ExitError {
  constructor(
    readonly status: number,
    readonly serverMessage: string,
    hint = "",
    /** False when the message names the command's flags: the status code would only distract from them. */
    withStatus = true,
  ) {
    super(1, withStatus ? `${status} ${serverMessage}${hint}` : `${serverMessage}${hint}`);
    this.name = "HttpFailure";
  }
}

export interface RequestOptions {
  /** JSON, or raw bytes (a sound file) sent as application/octet-stream. */
  body?: unknown;
  query?: Record<string, string | undefined>;
  /** Aborts the request (ask's SIGINT); the AbortError is rethrown as is. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * A /ui/api call: `X-Notify-UI: 1` on every change (docs/api.md, "Web UI API: `/ui/api`"). The
   * loopback Host those routes demand comes with the `127.0.0.1` base URL.
   */
  ui?: boolean;
  /**
   * The command's flag for each body or query field the broker may name in a 400 (`ttl_seconds` is `--ttl`), so
   * the person reads the flag they typed, not the API's field (issue 21, item 21).
   */
  flags?: Record<string, string>;
}

export interface BrokerClient {
  /** `http://127.0.0.1:<port>` (docs/cli.md, "Finding the broker"). */
  baseUrl: string;
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** A value that is a non-empty string, else undefined (config.json fields, options, environment variables). */
export const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** config.json of `dataDir` for a command: a file that cannot be read or parsed ends the command with exit 1. */
export function readConfigOrExit(dataDir: string): Record<string, unknown> {
  try {
    return readConfigFile(dataDir);
  } catch (error) {
    if (error instanceof ConfigError) throw new ExitError(1, error.message);
    throw error;
  }
}

/**
 * Resolves where the broker is and which token to present, then returns a small JSON client.
 * Port: `--port`, env NOTIFY_PORT, config.json `port`, 47821. Token (docs/config.md, "Token"): `--token`, env
 * NOTIFY_TOKEN, config.json `authToken`. config.json is read only when an option and the environment leave a gap.
 */
export function createClient(options: ClientOptions, env: NodeJS.ProcessEnv = process.env): BrokerClient {
  const { dataDir, baseUrl, token } = brokerTarget(options, env);
  // Without a token the request still goes out: an unreachable broker is the likelier problem and says so itself.
  const missingTokenHint =
    token === undefined
      ? ` (no token found: pass --token, set NOTIFY_TOKEN, or run \`notify serve\` once to create ${configPath(dataDir)})`
      : "";

  return {
    baseUrl,
    async request<T>(method: string, path: string, requestOptions: RequestOptions = {}): Promise<T> {
      const url = new URL(path, baseUrl);
      for (const [name, value] of Object.entries(requestOptions.query ?? {})) {
        if (value !== undefined) url.searchParams.set(name, value);
      }
      const headers: Record<string, string> = { accept: "application/json" };
      if (requestOptions.ui && method !== "GET" && method !== "HEAD") headers["x-notify-ui"] = "1";
      // /ui/api takes the bearer token too: it is how a CLI gets past the page's session check (docs/security.md).
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      const raw = requestOptions.body instanceof Uint8Array ? requestOptions.body : undefined;
      if (requestOptions.body !== undefined)
        headers["content-type"] = raw ? "application/octet-stream" : "application/json";
      const timeout = AbortSignal.timeout(requestOptions.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const signal = requestOptions.signal ? AbortSignal.any([requestOptions.signal, timeout]) : timeout;

      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method,
          headers,
          signal,
          ...(requestOptions.body !== undefined ? { body: raw ?? JSON.stringify(requestOptions.body) } : {}),
        });
        text = await response.text();
      } catch (error) {
        if (requestOptions.signal?.aborted) throw error;
        if (timeout.aborted) throw new ExitError(1, `the broker at ${baseUrl} did not answer in time`);
        throw new ExitError(1, `cannot reach the broker at ${baseUrl} (is \`notify serve\` running?)`);
      }

      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (!response.ok) {
        // docs/api.md, "Errors": bodies are `{error: string}`; a 413 has no body.
        const serverMessage =
          parsed !== null && typeof parsed === "object" && typeof (parsed as { error?: unknown }).error === "string"
            ? (parsed as { error: string }).error
            : response.statusText || "request failed";
        const named =
          response.status === 400 && requestOptions.flags !== undefined
            ? withFlagNames(serverMessage, requestOptions.flags)
            : serverMessage;
        if (named !== serverMessage) throw new HttpFailure(response.status, named, "", false);
        throw new HttpFailure(response.status, serverMessage, response.status === 401 ? missingTokenHint : "");
      }
      // A DELETE answers 204 with no body.
      if (response.status === 204) return undefined as T;
      if (parsed === undefined) throw new ExitError(1, `unexpected response from the broker at ${baseUrl}`);
      return parsed as T;
    },
  };
}

/**
 * A broker's 400 message with each API field it names replaced by the command's flag: `ttl_seconds must be
 * 30-3600` becomes `--ttl must be 30-3600`. Only a field that begins one of the message's problems (they are
 * joined with `; `) is replaced, so the same word inside a sentence stays as it is. An element of a repeated flag is counted from 1
 * (`choices[1].id must match ...` becomes `the id of --choice #2 must match ...`).
 */
export function withFlagNames(message: string, flags: Record<string, string>): string {
  let named = message;
  for (const [field, flag] of Object.entries(flags)) {
    const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    named = named.replace(
      new RegExp(`(?<=^|; )${escaped}(?:\\[(\\d+)\\](?:\\.(\\w+))?)?(?![\\w-])`, "g"),
      (_match, index: string | undefined, part: string | undefined) => {
        if (index === undefined) return flag;
        const element = `${flag} #${Number(index) + 1}`;
        return part === undefined ? element : `the ${part} of ${element}`;
      },
    );
  }
  return named;
}

/** Where the broker is and which token to present (the resolution order of createClient). */
export function brokerTarget(
  options: ClientOptions,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; baseUrl: string; token: string | undefined } {
  const dataDir = resolveDataDir(options.dataDir, env);
  let config: Record<string, unknown> | undefined;
  const readConfig = (): Record<string, unknown> => {
    config ??= readConfigOrExit(dataDir);
    return config;
  };
  const port = resolvePort(options.port, env, readConfig);
  const token = nonEmpty(options.token) ?? nonEmpty(env.NOTIFY_TOKEN) ?? nonEmpty(readConfig().authToken);
  return { dataDir, baseUrl: `http://127.0.0.1:${port}`, token };
}

function resolvePort(
  option: string | undefined,
  env: NodeJS.ProcessEnv,
  readConfig: () => Record<string, unknown>,
): number {
  if (option !== undefined) {
    const port = parsePort(option);
    if (port === undefined || port === 0) throw new ExitError(1, `invalid --port ${option}: expected 1-65535`);
    return port;
  }
  const fromEnv = nonEmpty(env.NOTIFY_PORT);
  if (fromEnv !== undefined) {
    const port = parsePort(fromEnv);
    if (port === undefined || port === 0) throw new ExitError(1, `invalid NOTIFY_PORT ${fromEnv}: expected 1-65535`);
    return port;
  }
  // Like the broker, an unusable config value falls back to the default.
  const fromConfig = parsePort(readConfig().port);
  return fromConfig !== undefined && fromConfig !== 0 ? fromConfig : DEFAULT_PORT;
}

/** Parses an integer option value, or exits 1 naming the option. */
export function parseIntegerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new ExitError(1, `${name} must be an integer, got ${value}`);
  return Number(value.trim());
}

/**
 * Writes data to stdout as two-space JSON (`--json`). The values are exact; DEL, C1 and bidi controls, which
 * JSON.stringify leaves raw and a terminal would act on, are written as `\u` escapes (docs/cli.md, "Text from agents
 * on the terminal"), so text without them prints byte for byte as JSON.stringify gives it.
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${terminalJson(value)}\n`);
}

/** The interaction without its single-use `nonce`, which the CLI never prints (docs/api.md, "Interaction object"). */
export function withoutNonce<T extends { nonce?: unknown }>(interaction: T): Omit<T, "nonce"> {
  const { nonce: _nonce, ...rest } = interaction;
  return rest;
}
