import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { KeySourceId } from "@notify/router";
import { builtInDir } from "../connectors/accounts.js";

/**
 * What other tools on this computer hold that the router may use, read only when the owner asks (docs/router.md,
 * "Keys another tool holds"; POST /ui/api/router/models/fetch): a plain API key for the same provider, and the
 * host tool's own cached model list. OAuth sign-ins are never read here. Nothing read is logged or returned; the
 * errors below name the file, never its contents.
 */

/** Where other tools live: `HOME`, `CODEX_HOME` and `CLAUDE_CONFIG_DIR` of this environment. */
export interface OtherTools {
  env: NodeJS.ProcessEnv;
  /**
   * The provider origin each tool's key belongs to; the key goes to no other origin. Tests point these at loopback
   * mocks; the defaults are the vendors' public APIs.
   */
  keyOrigins?: Partial<Record<KeySourceId, string>>;
}

/** A tool's file is missing, unreadable or holds nothing usable: a short reason naming the file, never its contents. */
export class OtherToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OtherToolError";
  }
}

export const KEY_SOURCE_LABELS: Record<KeySourceId, string> = {
  codex: "the key Codex holds",
  claude_code: "the key Claude Code holds",
};

const DEFAULT_KEY_ORIGINS: Record<KeySourceId, string> = {
  codex: "https://api.openai.com",
  claude_code: "https://api.anthropic.com",
};

export function isKeySource(value: unknown): value is KeySourceId {
  return value === "codex" || value === "claude_code";
}

/** The origin a tool's key may be sent to. */
export function keyOrigin(tools: OtherTools, source: KeySourceId): string {
  return tools.keyOrigins?.[source] ?? DEFAULT_KEY_ORIGINS[source];
}

const home = (env: NodeJS.ProcessEnv): string => (env.HOME && env.HOME !== "" ? env.HOME : homedir());

/** Codex's home: `$CODEX_HOME`, else `~/.codex`, as the connectors find the built-in account. */
export const codexHome = (env: NodeJS.ProcessEnv): string => builtInDir("codex", { env });

/** Claude Code's global state file: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`. */
function claudeStateFile(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR !== ""
    ? join(env.CLAUDE_CONFIG_DIR, ".claude.json")
    : join(home(env), ".claude.json");
}

const MAX_TOOL_FILE_BYTES = 4 * 1024 * 1024;

/** Reads a tool's JSON file (up to 4 MiB); `display` is how the error names it. */
export function readToolJson(path: string, display: string): Record<string, unknown> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new OtherToolError(`${display} was not found`);
  }
  if (size > MAX_TOOL_FILE_BYTES) throw new OtherToolError(`${display} is larger than 4 MiB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new OtherToolError(`${display} is not readable JSON`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new OtherToolError(`${display} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The plain API key another tool holds:
 * - Codex: `OPENAI_API_KEY` of `$CODEX_HOME/auth.json` (openai/codex codex-rs/login/src/auth/storage.rs,
 *   `AuthDotJson`: `{auth_mode?, OPENAI_API_KEY: string | null, tokens?, last_refresh?}`); its ChatGPT tokens are
 *   not touched.
 * - Claude Code: `primaryApiKey` of `~/.claude.json` (where Claude Code keeps a key entered at its own prompt on
 *   Linux); its OAuth sign-in (`~/.claude/.credentials.json`) is not touched.
 */
export function readOtherToolKey(tools: OtherTools, source: KeySourceId): string {
  const [path, display, field] =
    source === "codex"
      ? [join(codexHome(tools.env), "auth.json"), "Codex's auth.json", "OPENAI_API_KEY"]
      : [claudeStateFile(tools.env), "Claude Code's .claude.json", "primaryApiKey"];
  const value = readToolJson(path, display)[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw new OtherToolError(`${display} holds no API key (${field})`);
  }
  if (value.length > 8192) throw new OtherToolError(`${display} holds a key longer than 8192 characters`);
  return value.trim();
}

/**
 * The host tool's own cached model list, for a subscription preset without a public list: Codex's
 * `$CODEX_HOME/models_cache.json` (openai/codex codex-rs/core/src/models_manager/cache.rs, `ModelsCache`:
 * `{fetched_at, etag?, client_version?, models: [ModelInfo]}`; `ModelInfo` has `slug`, `visibility`
 * (`list`, `hide`, `none`) and `priority`). Only entries whose visibility is `list`, in priority order.
 */
export function readCodexModelCache(tools: OtherTools): string[] {
  const cache = readToolJson(join(codexHome(tools.env), "models_cache.json"), "Codex's models_cache.json");
  if (!Array.isArray(cache.models)) throw new OtherToolError("Codex's models_cache.json has no models list");
  const listed: { slug: string; priority: number; order: number }[] = [];
  cache.models.forEach((entry: unknown, order) => {
    if (entry === null || typeof entry !== "object") return;
    const { slug, visibility, priority } = entry as Record<string, unknown>;
    if (visibility !== "list" || typeof slug !== "string" || slug.length < 1 || slug.length > 200) return;
    listed.push({ slug, priority: typeof priority === "number" ? priority : Number.MAX_SAFE_INTEGER, order });
  });
  listed.sort((a, b) => a.priority - b.priority || a.order - b.order);
  return [...new Set(listed.map((entry) => entry.slug))];
}
