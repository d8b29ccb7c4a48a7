import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../fs/private-files.js";

/**
 * The hook token (issue 33, item 1): what Claude Code's `"type": "http"` hooks present to `POST
 * /v1/hooks/claude-code`, and nothing else accepts it. It is never the main bearer token, lives in the data dir's
 * 0700 `hooks/` (0600, like the token in config.json), reaches Claude Code only through the user's own settings
 * (`env.NOTIFY_HOOK_TOKEN` in ~/.claude/settings.json, never a project's file), and a new one is made by every
 * `notify hooks install claude-code`.
 */
export const HOOK_TOKEN_ENV = "NOTIFY_HOOK_TOKEN";
const PREFIX = "nh_";

export const hookTokenPath = (dataDir: string): string => join(dataDir, "hooks", "hook-token");

/** A new hook token, not yet stored. */
export const newHookToken = (): string => `${PREFIX}${randomBytes(32).toString("base64url")}`;

/** Stores the hook token the broker accepts; the previous one stops working at once. */
export function storeHookToken(dataDir: string, token: string): void {
  ensurePrivateDir(dataDir);
  ensurePrivateDir(join(dataDir, "hooks"));
  writePrivateFile(hookTokenPath(dataDir), `${token}\n`);
}

/** Makes, stores and returns a new hook token; the previous one stops working at once. */
export function rotateHookToken(dataDir: string): string {
  const token = newHookToken();
  storeHookToken(dataDir, token);
  return token;
}

/**
 * The current hook token for the broker, read again when the file changes (a rotation while the broker runs takes
 * effect on the next hook call), or undefined when none was ever made.
 */
export class HookTokenFile {
  private cached: { key: string; token: string | undefined } | undefined;

  constructor(
    private readonly dataDir: string,
    /** Told every token read, so the log never carries it. */
    private readonly onToken: (token: string) => void = () => undefined,
  ) {}

  current(): string | undefined {
    const path = hookTokenPath(this.dataDir);
    let key: string;
    try {
      const stat = statSync(path);
      key = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    } catch {
      return undefined;
    }
    if (this.cached?.key === key) return this.cached.token;
    let token: string | undefined;
    try {
      const text = readFileSync(path, "utf8").trim();
      token = text.startsWith(PREFIX) && text.length > PREFIX.length + 20 ? text : undefined;
    } catch {
      token = undefined;
    }
    if (token !== undefined) this.onToken(token);
    this.cached = { key, token };
    return token;
  }
}
