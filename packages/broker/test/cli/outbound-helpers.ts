import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brokerApi, type Json } from "@notify/test-kit";
import { hookFixture } from "../hook-fixture.js";
import type { CliBroker } from "./cli-harness.js";

export type { Json } from "@notify/test-kit";
/** A GET on /ui/api (no bearer needed: a loopback Host is enough for reads). */
export async function uiGet<T = Json>(cli: CliBroker, path: string): Promise<T> {
  const response = await fetch(`${cli.broker.url}/ui/api${path}`, {
    headers: { authorization: `Bearer ${cli.token}` },
  });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return (await response.json()) as T;
}

/** A change on /ui/api, with the `X-Notify-UI: 1` header those need. */
export async function uiSend<T = Json>(cli: CliBroker, method: string, path: string, body?: unknown): Promise<T> {
  const reply = await brokerApi(cli.broker.url, cli.token).ui<T>(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.body;
}

/** Types, providers and routes as the broker holds them: equal snapshots mean nothing changed. */
export async function brokerState(cli: CliBroker): Promise<{ types: Json[]; providers: Json[]; routes: Json[] }> {
  const [types, providers, routes] = await Promise.all([
    uiGet(cli, "/types"),
    uiGet(cli, "/outbound/providers"),
    uiGet(cli, "/outbound/routes"),
  ]);
  return { types, providers, routes };
}

/** A fresh {@link fileDir} for each test of the calling file (or describe), removed after it (see hookFixture). */
export function fileDirPerTest(): ReturnType<typeof fileDir> {
  return hookFixture(
    "test",
    async () => fileDir(),
    (dir) => dir.remove(),
  );
}

/** A temporary directory for apply files; `write` puts one file in it and returns its path. */
export function fileDir(): { write(name: string, content: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "notify-apply-"));
  return {
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir` whose bytes contain `needle`, except those named in `except`. */
export function filesContaining(dir: string, needle: string, except: readonly string[] = []): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(needle, "utf8");
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || except.includes(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path).includes(bytes)) found.push(path);
  }
  return found;
}

/** Polls until `check` returns a value other than undefined. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
