import { randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { jsonValueSpans } from "./json-spans.js";

/**
 * The Codex CLI's ChatGPT sign-in file, `$CODEX_HOME/auth.json` (default `~/.codex/auth.json`). Its shape, per the
 * Codex sources (openai/codex, codex-rs/login/src/auth/storage.rs `AuthDotJson` and token_data.rs `TokenData`):
 *
 *   { "OPENAI_API_KEY": string | null,
 *     "tokens": { "id_token": JWT, "access_token": JWT, "refresh_token": string, "account_id": string? },
 *     "last_refresh": RFC 3339 timestamp, ...fields of newer versions (auth_mode, ...) }
 *
 * The router reads the file on every attempt and writes back only the token fields it renewed (plus
 * `last_refresh`, which Codex itself stamps on every refresh); every other byte of the file stays as it was.
 */

export interface SigninEnv {
  CODEX_HOME?: string | undefined;
  HOME?: string | undefined;
}

export const SIGNIN_FILE_NAME = "auth.json";

/** The default Codex account's directory: `$CODEX_HOME`, else `~/.codex` (Codex's own rule). */
export function defaultCodexHome(env: SigninEnv): string | undefined {
  if (env.CODEX_HOME) return env.CODEX_HOME;
  return env.HOME ? join(env.HOME, ".codex") : undefined;
}

/** The directory a `credential_ref` names: `profile:<directory>` (`~/` expanded), or the default account. */
export function accountDirectory(credentialRef: string | null, env: SigninEnv): string | undefined {
  if (credentialRef?.startsWith("profile:")) {
    const dir = credentialRef.slice("profile:".length);
    if (dir.startsWith("~/")) return env.HOME ? join(env.HOME, dir.slice(2)) : undefined;
    return isAbsolute(dir) ? dir : undefined;
  }
  return defaultCodexHome(env);
}

export interface SigninTokens {
  accessToken: string | undefined;
  refreshToken: string | undefined;
  idToken: string | undefined;
  accountId: string | undefined;
}

export interface SigninFile extends SigninTokens {
  path: string;
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** Reads and parses a sign-in file; undefined when it is missing, unreadable, not JSON, or holds no tokens. */
export function readSigninFile(directory: string): SigninFile | undefined {
  const path = join(directory, SIGNIN_FILE_NAME);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object") return undefined;
  const tokens = (parsed as Record<string, unknown>).tokens;
  if (tokens === null || typeof tokens !== "object") return undefined;
  const record = tokens as Record<string, unknown>;
  const file: SigninFile = {
    path,
    accessToken: text(record.access_token),
    refreshToken: text(record.refresh_token),
    idToken: text(record.id_token),
    accountId: text(record.account_id),
  };
  return file.accessToken || file.refreshToken || file.idToken ? file : undefined;
}

export interface RenewedTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  idToken?: string | undefined;
}

/**
 * Writes renewed tokens back into the sign-in file. The file is read again just before (so a change another program
 * made meanwhile is kept), and only the string values of `tokens.access_token`, `tokens.refresh_token`,
 * `tokens.id_token` and `last_refresh` are replaced in its text: key order, spacing and every other field (known or
 * not) stay byte for byte. A file missing one of those fields is re-serialized the way Codex writes it (pretty JSON,
 * two spaces). The new file is written whole beside the old one (beside the file a symlink points at) with exactly
 * the same mode, and renamed over it; only the nested `tokens` keys are touched, never a top-level key whose name
 * holds a dot.
 */
export function writeRenewedTokens(path: string, renewed: RenewedTokens, now: Date): void {
  // A symlinked auth.json (dotfiles) stays a link: the file it points at is the one replaced.
  const real = realpathSync(path);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const original = readFileSync(real, "utf8");
    const next = renewedText(original, renewed, now);
    // Codex may have renewed or rewritten the file meanwhile: its write wins over a rename based on an older read,
    // and the renewal is worked out again on the new content.
    if (replaceIfUnchanged(real, original, next)) return;
  }
  throw new Error(`${path} kept changing while the router wrote renewed tokens into it`);
}

function renewedText(original: string, renewed: RenewedTokens, now: Date): string {
  const parsed = JSON.parse(original) as Record<string, unknown>;
  const values: Record<string, string> = { "tokens.access_token": renewed.accessToken };
  if (renewed.refreshToken) values["tokens.refresh_token"] = renewed.refreshToken;
  if (renewed.idToken) values["tokens.id_token"] = renewed.idToken;
  values.last_refresh = now.toISOString();
  const spans = jsonValueSpans(original, new Set(Object.keys(values)));
  if (Object.keys(values).every((field) => spans.get(field)?.isString)) {
    let next = original;
    const ordered = [...spans.entries()].sort((a, b) => b[1].start - a[1].start);
    for (const [field, span] of ordered) {
      next = `${next.slice(0, span.start)}${JSON.stringify(values[field])}${next.slice(span.end)}`;
    }
    return next;
  }
  const nested = parsed.tokens;
  const tokens = (nested !== null && typeof nested === "object" && !Array.isArray(nested) ? nested : {}) as Record<
    string,
    unknown
  >;
  tokens.access_token = renewed.accessToken;
  if (renewed.refreshToken) tokens.refresh_token = renewed.refreshToken;
  if (renewed.idToken) tokens.id_token = renewed.idToken;
  parsed.tokens = tokens;
  parsed.last_refresh = values.last_refresh;
  return JSON.stringify(parsed, null, 2);
}

/**
 * Writes `contents` beside `real` with exactly its mode (fchmod: the umask does not narrow or change it) and renames
 * it over `real`, unless `real` no longer holds `expected`. Returns whether it did.
 */
function replaceIfUnchanged(real: string, expected: string, contents: string): boolean {
  const mode = statSync(real).mode & 0o7777;
  const temporary = join(dirname(real), `.${basename(real)}.notify-${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temporary, "wx", 0o600);
  try {
    writeSync(fd, contents);
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    if (readFileSync(real, "utf8") !== expected) {
      rmSync(temporary, { force: true });
      return false;
    }
    renameSync(temporary, real);
    return true;
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
