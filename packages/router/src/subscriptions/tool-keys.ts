import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultCodexHome, SIGNIN_FILE_NAME, type SigninEnv } from "./signin-file.js";

/**
 * Plain API keys another tool holds for a provider (docs/router.md, "Saved accounts"): read only when the owner asks
 * (saving one as an account, or fetching a model list with it), then sealed like a typed key and never returned.
 * OAuth sign-ins of the tool are not reused this way (they are `plan_signin_a` / `plan_signin_b`).
 *
 * Codex keeps the key of an API-key login (`codex login --with-api-key`) in the same auth.json as its sign-in,
 * field `OPENAI_API_KEY` (openai/codex, codex-rs/login/src/auth/storage.rs `AuthDotJson.openai_api_key`), for the
 * `openai` provider.
 */
export const TOOL_KEY_SOURCES = { codex: "openai" } as const;
export type KeyTool = keyof typeof TOOL_KEY_SOURCES;

export function isKeyTool(tool: unknown): tool is KeyTool {
  return typeof tool === "string" && Object.hasOwn(TOOL_KEY_SOURCES, tool);
}

/** The tool's plain key and its provider; undefined when the tool holds none. */
export function toolApiKey(tool: KeyTool, env: SigninEnv): { provider: string; key: string } | undefined {
  const home = defaultCodexHome(env);
  if (home === undefined) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(join(home, SIGNIN_FILE_NAME), "utf8")) as Record<string, unknown>;
    const key = parsed.OPENAI_API_KEY;
    return typeof key === "string" && key.length > 0 && key.length <= 8192
      ? { provider: TOOL_KEY_SOURCES[tool], key }
      : undefined;
  } catch {
    return undefined;
  }
}
