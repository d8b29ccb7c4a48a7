import { readdirSync, readFileSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { hookTokenPath, rotateHookToken } from "../../src/hooks/hook-token.js";
import { type CliBroker, NO_FOLLOW_UPS, startCliBroker, tempDataDir } from "../cli/cli-harness.js";
import { claude } from "./fixtures.js";

/**
 * Issue 33, item 1: Claude Code's `"type": "http"` hooks post the hook's JSON to POST /v1/hooks/claude-code with the
 * hook token. The broker runs the hook's logic itself; the hook token opens that route and no other.
 */
let cli: CliBroker;
let hookToken: string;
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
  hookToken = rotateHookToken(cli.dataDir);
});
afterAll(async () => {
  await cli?.close();
});

const post = (body: unknown, token: string | undefined, signal?: AbortSignal) =>
  fetch(`${cli.broker.url}/v1/hooks/claude-code`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
    ...(signal !== undefined ? { signal } : {}),
  });

const pending = async (session: string): Promise<Json | undefined> => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&session=${session}`);
    if (body[0] !== undefined) return body[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
};

async function respond(id: string, choice: string): Promise<number> {
  const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
  const answer = await cli.api("POST", `/v1/interactions/${id}/respond`, {
    response_id: `r-${id}`,
    request_digest: body.request_digest,
    nonce: body.nonce,
    choice_id: choice,
    source: "desktop",
  });
  return answer.status;
}

describe("POST /v1/hooks/claude-code", () => {
  it("a PermissionRequest waits for the answer and returns Claude Code's decision", async () => {
    const reply = post({ ...claude.permissionRequestBash.input, session_id: "h-allow" }, hookToken);
    const question = await pending("h-allow");
    expect(question).toMatchObject({ kind: "permission", agent: "claude-code" });
    expect(await respond(question?.id, "allow")).toBe(200);
    const response = await reply;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
  });

  it("Claude Code closing the request (answered in its own prompt) withdraws the question", async () => {
    const abort = new AbortController();
    const reply = post({ ...claude.permissionRequestBash.input, session_id: "h-close" }, hookToken, abort.signal);
    const question = await pending("h-close");
    abort.abort();
    await reply.catch(() => undefined);
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      const { body } = await cli.api<Json>("GET", `/v1/interactions/${question?.id}`);
      if (body.status === "cancelled") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await cli.api<Json>("GET", `/v1/interactions/${question?.id}`)).body.status).toBe("cancelled");
  });

  it("a report-only event answers an empty decision; Stop raises completed", async () => {
    const quiet = await post({ ...claude.postToolUseBash.input, session_id: "h-quiet" }, hookToken);
    expect(quiet.status).toBe(200);
    expect(await quiet.json()).toEqual({});
    const stop = await post({ ...claude.stop.input, session_id: "h-quiet" }, hookToken);
    expect(stop.status).toBe(200);
    const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code&type=completed");
    expect(body.find((n) => n.metadata?.arc?.session_id === "h-quiet")).toMatchObject({ status: "active" });
  });
});

describe("the hook token (issue 33, item 1)", () => {
  it("opens only the hook route: it cannot read, answer or post anything else", async () => {
    const withHookToken = (method: string, path: string, body?: unknown) =>
      fetch(`${cli.broker.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${hookToken}`,
          "x-notify-ui": "1",
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const created = await cli.api<Json>("POST", "/v1/interactions/request", {
      kind: "single_choice",
      title: "t",
      prompt: "Which?",
      choices: [
        { id: "a", label: "A" },
        { id: "b", label: "B" },
      ],
      ttl_seconds: 600,
    });
    const id = (created.body.interaction ?? created.body).id as string;
    for (const [method, path, body] of [
      ["GET", "/v1/interactions", undefined],
      ["GET", `/v1/interactions/${id}`, undefined],
      ["GET", "/v1/notifications", undefined],
      ["POST", `/v1/interactions/${id}/respond`, { response_id: "x", choice_id: "a", source: "cli" }],
      ["POST", "/v1/notifications", { title: "t", message: "m" }],
      ["POST", "/v1/events", {}],
      ["GET", "/ui/api/inbox", undefined],
    ] as const) {
      const response = await withHookToken(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(401);
    }
    expect((await post(claude.postToolUseBash.input, undefined)).status).toBe(401);
    expect((await post(claude.postToolUseBash.input, "nh_not-the-token-0123456789012345")).status).toBe(401);
  });

  it("a rotation (notify hooks install) ends the old token at once", async () => {
    const old = hookToken;
    hookToken = rotateHookToken(cli.dataDir);
    expect((await post(claude.postToolUseBash.input, old)).status).toBe(401);
    expect((await post(claude.postToolUseBash.input, hookToken)).status).toBe(200);
  });

  it("never appears in a log", async () => {
    await post({ ...claude.notificationIdle.input, session_id: "h-log" }, hookToken);
    await post(claude.postToolUseBash.input, `${hookToken}x`);
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(cli.dataDir);
    const logs = files.filter((path) => path !== hookTokenPath(cli.dataDir) && /log/i.test(path));
    for (const path of logs) expect(readFileSync(path, "utf8"), path).not.toContain(hookToken);
    expect(readFileSync(hookTokenPath(cli.dataDir), "utf8").trim()).toBe(hookToken);
    expect(statSync(hookTokenPath(cli.dataDir)).mode & 0o777).toBe(0o600);
  });
});

describe("a broker with HTTP hooks stops promptly (issue 33, item 1)", () => {
  // Before: a PermissionRequest in flight held the close until its question's expiry (10 minutes), and a spare
  // connection of the broker's own fetch pool held it about 70 s (the pool's keep-alive).
  it("a wait in flight answers {} and withdraws its question; a connection that sent nothing is dropped", async () => {
    const dataDir = tempDataDir();
    const broker = await startBroker({ dataDir, port: 0, env: {} });
    const token = rotateHookToken(dataDir);
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    const api = (path: string) =>
      fetch(`${broker.url}${path}`, { headers: { authorization: `Bearer ${broker.settings.authToken}` } });
    const reply = fetch(`${broker.url}/v1/hooks/claude-code`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...claude.permissionRequestBash.input, session_id: "h-stop" }),
    });
    let id: string | undefined;
    for (const deadline = Date.now() + 20_000; id === undefined && Date.now() < deadline; ) {
      const list = (await (await api("/v1/interactions?pending=true&session=h-stop")).json()) as Json[];
      id = list[0]?.id;
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(id).toBeDefined();
    // A client that connected and never sent a byte (what Node's fetch pool leaves behind).
    const silent = connect(broker.port, "127.0.0.1");
    await new Promise((resolve) => silent.once("connect", resolve));
    const started = Date.now();
    await broker.close();
    expect(Date.now() - started).toBeLessThan(8_000);
    silent.destroy();
    const response = await reply;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    const again = await startBroker({ dataDir, port: 0, env: {} });
    try {
      const question = (await (
        await fetch(`${again.url}/v1/interactions/${id}`, {
          headers: { authorization: `Bearer ${again.settings.authToken}` },
        })
      ).json()) as Json;
      expect(question.status).toBe("cancelled");
    } finally {
      await again.close();
    }
  }, 30_000);
});
