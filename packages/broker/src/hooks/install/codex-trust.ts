import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { isNotifyCommand } from "./entries.js";

/**
 * Whether Codex trusts Notify's hooks. Codex runs a non-managed command hook only after a person trusts it in its
 * /hooks screen; it keeps a `trusted_hash` per hook in config.toml (`[hooks.state."<file>:<event>:<group>:<n>"]`),
 * a hash of its own making. Rather than guess that hash, Notify asks Codex itself: `codex app-server` speaks
 * JSON-RPC on stdio, and its `hooks/list` gives each hook's `trustStatus` (`trusted`, `untrusted`, or `modified`
 * when the hook changed after it was trusted).
 */
export type CodexTrust =
  | { checked: true; hooks: { key: string; trustStatus: string; currentHash: string }[] }
  | { checked: false; reason: string };

type Json = Record<string, unknown>;

/** `codex` on PATH, as the shell would find it. */
export function codexOnPath(path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "codex");
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return undefined;
}

/** Asks `codex app-server` for the hooks it sees from `cwd` and keeps Notify's. Never waits past `timeoutMs`. */
export function codexHookTrust(cwd: string, timeoutMs = 15_000): Promise<CodexTrust> {
  const codex = codexOnPath();
  if (codex === undefined) return Promise.resolve({ checked: false, reason: "codex is not on PATH" });
  return new Promise((resolve) => {
    const child = spawn(codex, ["app-server"], { cwd, stdio: ["pipe", "pipe", "ignore"] });
    let settled = false;
    const finish = (trust: CodexTrust) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGTERM");
      resolve(trust);
    };
    const timer = setTimeout(
      () => finish({ checked: false, reason: `codex app-server did not answer within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    const send = (message: Json) => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    };
    child.on("error", (error) => finish({ checked: false, reason: `codex app-server: ${error.message}` }));
    child.on("exit", (code) => finish({ checked: false, reason: `codex app-server exited (${code})` }));
    child.stdin.on("error", () => {});
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let message: Json;
        try {
          message = JSON.parse(line) as Json;
        } catch {
          continue;
        }
        if (message.id === 1) {
          send({ method: "initialized" });
          send({ id: 2, method: "hooks/list", params: { cwds: [cwd] } });
        } else if (message.id === 2) {
          if (message.error !== undefined) {
            finish({ checked: false, reason: `codex hooks/list: ${JSON.stringify(message.error).slice(0, 200)}` });
            return;
          }
          const entries = (((message.result as Json)?.data as Json[]) ?? []).flatMap(
            (entry) => (entry.hooks as Json[]) ?? [],
          );
          const hooks = entries
            .filter((hook) => isNotifyCommand(hook.command, "codex"))
            .map((hook) => ({
              key: String(hook.key),
              trustStatus: String(hook.trustStatus),
              currentHash: String(hook.currentHash),
            }));
          finish({ checked: true, hooks });
        }
      }
    });
    send({ id: 1, method: "initialize", params: { clientInfo: { name: "notify-doctor", version: "1" } } });
  });
}
