import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { untilValue } from "@notify/test-kit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { type CliBroker, closedPort, startCliBroker } from "../cli/cli-harness.js";
import { callAsk, type McpHost, startMcpHost, textOf } from "./mcp-harness.js";

/**
 * Issue 26, "Must show": the official MCP SDK client over stdio against the built `notify mcp` and a real broker on
 * loopback. Questions are answered, cancelled and checked over /v1 as any other Notify client would.
 */
let cli: CliBroker;
const hosts: McpHost[] = [];
let project: string;
/**
 * The expiry case waits out the shortest ttl the broker takes (30 s, docs/api.md "Limits"): its question opens here,
 * before every other case, so the wait runs alongside them; the case itself reads the outcome. It has a broker of its
 * own, so its long-poll is in no other case's count of waiters.
 */
let expiry: { broker: RunningBroker; dataDir: string; mcp: McpHost; call: ReturnType<typeof callAsk> } | undefined;

async function openExpiringQuestion(): Promise<NonNullable<typeof expiry>> {
  const dataDir = mkdtempSync(join(tmpdir(), "notify-mcp-expiry-"));
  const port = await closedPort();
  const broker = await startBroker({ dataDir, port, env: {} });
  const mcp = await startMcpHost(["--port", String(port), "--data-dir", dataDir], { cwd: join(project, "src") });
  const call = callAsk(mcp, { prompt: "Nobody will answer", ttl_seconds: 30 });
  call.result.catch(() => undefined);
  return { broker, dataDir, mcp, call };
}

beforeAll(async () => {
  // The project is the repository root's name above the working directory.
  project = mkdtempSync(join(tmpdir(), "notify-mcp-project-"));
  mkdirSync(join(project, ".git"));
  mkdirSync(join(project, "src"));
  [expiry, cli] = await Promise.all([openExpiringQuestion(), startCliBroker()]);
}, 60_000);
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close().catch(() => undefined);
});
afterAll(async () => {
  await expiry?.mcp.close().catch(() => undefined);
  await expiry?.broker.close();
  if (expiry) rmSync(expiry.dataDir, { recursive: true, force: true });
  await cli?.close();
  rmSync(project, { recursive: true, force: true });
});

async function host(options: Parameters<typeof startMcpHost>[1] = {}, args: string[] = cli.target): Promise<McpHost> {
  const started = await startMcpHost(args, { cwd: join(project, "src"), ...options });
  hosts.push(started);
  return started;
}

const interaction = async (id: string): Promise<Json> => (await cli.api<Json>("GET", `/v1/interactions/${id}`)).body;

async function answer(id: string, body: { choice_id?: string; text?: string }, api = cli.api): Promise<void> {
  const current = (await api<Json>("GET", `/v1/interactions/${id}`)).body;
  const answered = await api("POST", `/v1/interactions/${id}/respond`, {
    response_id: randomUUID(),
    request_digest: current.request_digest,
    nonce: current.nonce,
    source: "web",
    ...body,
  });
  expect(answered.status).toBe(200);
}

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> =>
  untilValue(what, probe, { timeoutMs, everyMs: 50 });

describe("notify mcp over stdio with the official SDK client (issue 26)", () => {
  it("initialize names the server; tools/list has ask_person and notify_person with the documented schemas", async () => {
    const mcp = await host();
    expect(mcp.client.getServerVersion()?.name).toBe("notify");
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(["ask_person", "notify_person"]);

    const ask: Json = byName.ask_person;
    expect(ask.inputSchema.required).toEqual(["prompt"]);
    expect(Object.keys(ask.inputSchema.properties).sort()).toEqual(
      ["choices", "kind", "prompt", "text_max_length", "ttl_seconds"].sort(),
    );
    expect(ask.inputSchema.properties.kind.enum).toEqual(["permission", "single_choice", "text"]);
    expect(ask.inputSchema.properties.choices.items.required).toEqual(["id", "label"]);
    expect(Object.keys(ask.inputSchema.properties.choices.items.properties).sort()).toEqual(["detail", "id", "label"]);
    expect(ask.outputSchema.required).toEqual(["status"]);
    expect(ask.outputSchema.properties.status.enum).toEqual(["answered", "expired", "cancelled"]);
    expect(Object.keys(ask.outputSchema.properties).sort()).toEqual(["choice_id", "source", "status", "text"]);
    // The description tells a model when (and when not) to call it.
    expect(ask.description).toMatch(/only the person can make/);
    expect(ask.description).toMatch(/Never use it for something you can find out yourself/);

    const notify: Json = byName.notify_person;
    expect(notify.inputSchema.required.sort()).toEqual(["message", "title"]);
    expect(Object.keys(notify.inputSchema.properties).sort()).toEqual(["message", "priority", "title", "type"]);
    expect(notify.outputSchema.required).toEqual(["id"]);
  });

  it("ask_person opens a question (agent, project, session) and returns the answer given on /v1", async () => {
    const mcp = await host({ clientName: "claude-code", env: { CLAUDE_CODE_SESSION_ID: "session-123" } });
    const call = callAsk(mcp, {
      prompt: "Postgres or SQLite for the new service?",
      kind: "single_choice",
      choices: [
        { id: "pg", label: "Postgres", detail: "a server to run" },
        { id: "sqlite", label: "SQLite" },
      ],
    });
    const id = await call.id;
    const question = await interaction(id);
    expect(question).toMatchObject({
      status: "pending",
      agent: "claude-code",
      session_id: "session-123",
      kind: "single_choice",
      prompt: "Postgres or SQLite for the new service?",
      choices: [
        { id: "pg", label: "Postgres", detail: "a server to run" },
        { id: "sqlite", label: "SQLite" },
      ],
    });
    expect(question.project).toBe(project.split("/").pop());
    await answer(id, { choice_id: "pg" });
    const result = await call.result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ status: "answered", choice_id: "pg", source: "web" });
    expect(textOf(result)).toBe('The person chose "Postgres" (choice_id: pg) (answered from web).');
    expect(call.progress[0]).toMatch(/^waiting for the person to answer in Notify \(interaction int_/);
  });

  it("a text question returns the text; an unknown client name is the agent as given", async () => {
    const mcp = await host({ clientName: "my-agent" });
    const call = callAsk(mcp, { prompt: "What should the release be called?", kind: "text", text_max_length: 40 });
    const id = await call.id;
    expect(await interaction(id)).toMatchObject({ agent: "my-agent", kind: "text", text_max_length: 40 });
    await answer(id, { text: "Aurora" });
    const result = await call.result;
    expect(result.structuredContent).toEqual({ status: "answered", text: "Aurora", source: "web" });
    expect(textOf(result)).toBe("The person answered (answered from web): Aurora");
  });

  it("cancelled by the person: status cancelled", async () => {
    const mcp = await host();
    const call = callAsk(mcp, { prompt: "Deploy now?" });
    const id = await call.id;
    expect((await cli.api("POST", `/v1/interactions/${id}/cancel`)).status).toBe(200);
    const result = await call.result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ status: "cancelled" });
  });

  it("the host cancelling the call (notifications/cancelled) withdraws the question", async () => {
    const mcp = await host();
    const abort = new AbortController();
    const call = callAsk(mcp, { prompt: "Withdraw me?" }, { signal: abort.signal });
    const id = await call.id;
    abort.abort("the user pressed Esc");
    await expect(call.result).rejects.toThrow();
    await until("the question withdrawn", async () =>
      (await interaction(id)).status === "cancelled" ? true : undefined,
    );
    // The server lives on: the next call works.
    const next = callAsk(mcp, { prompt: "Still there?" });
    await answer(await next.id, { choice_id: "allow" });
    expect((await next.result).structuredContent).toMatchObject({ status: "answered", choice_id: "allow" });
  });

  it("the host going away (stdin closed) withdraws the question and the server exits", async () => {
    const mcp = await host();
    const call = callAsk(mcp, { prompt: "Host gone?" });
    const id = await call.id;
    const child = (mcp.transport as unknown as { _process?: import("node:child_process").ChildProcess })._process;
    const exited = new Promise((resolve) => child?.once("exit", (code, signal) => resolve({ code, signal })));
    // Only stdin closes: no signal, as when the host process dies.
    child?.stdin?.end();
    await until("the question withdrawn", async () =>
      (await interaction(id)).status === "cancelled" ? true : undefined,
    );
    expect(await exited).toEqual({ code: 0, signal: null });
    call.result.catch(() => undefined);
  });

  it("SIGTERM withdraws the question too", async () => {
    const mcp = await host();
    const call = callAsk(mcp, { prompt: "Terminated?" });
    const id = await call.id;
    process.kill(mcp.pid ?? 0, "SIGTERM");
    await until("the question withdrawn", async () =>
      (await interaction(id)).status === "cancelled" ? true : undefined,
    );
    call.result.catch(() => undefined);
  });

  it("SIGKILL: the broker withdraws the server's questions within seconds, and no one else's (issue 31, item 7)", async () => {
    const before = cli.broker.waiters.size();
    const mcp = await host();
    const calls = ["First?", "Second?", "Third?"].map((prompt) => callAsk(mcp, { prompt }));
    const ids = await Promise.all(calls.map((call) => call.id));
    for (const call of calls) call.result.catch(() => undefined);
    // A plain /v1 client that opens a question and hangs up its long-poll: the plain API's behaviour, left until its TTL.
    const plain = (await cli.api<Json>("POST", "/v1/interactions/request", { prompt: "Mine, no opt-in?" })).body;
    const hangUp = new AbortController();
    const plainWait = fetch(`${cli.broker.url}/v1/interactions/${plain.id}/wait?timeout=120`, {
      headers: { authorization: `Bearer ${cli.token}` },
      signal: hangUp.signal,
    }).catch(() => undefined);
    // Every question has its long-poll open, so what ends them is the server's connections closing with it.
    await until("four long-polls", async () => (cli.broker.waiters.size() === before + 4 ? true : undefined));
    const killed = Date.now();
    process.kill(mcp.pid ?? 0, "SIGKILL");
    hangUp.abort();
    await plainWait;
    for (const id of ids) {
      await until(
        `${id} withdrawn`,
        async () => ((await interaction(id)).status === "cancelled" ? true : undefined),
        killed + 25_000 - Date.now(),
      );
    }
    expect(await Promise.all(ids.map(async (id) => (await interaction(id)).status))).toEqual([
      "cancelled",
      "cancelled",
      "cancelled",
    ]);
    // Past the grace its questions had: the plain client's question is still open.
    expect((await interaction(plain.id)).status).toBe("pending");
  });

  it("keeps waiting through a broker restart and returns the answer given after it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "notify-mcp-restart-"));
    const port = await closedPort();
    let broker: RunningBroker = await startBroker({ dataDir, port, env: {} });
    try {
      const target = ["--port", String(port), "--data-dir", dataDir];
      const mcp = await host({}, target);
      const call = callAsk(mcp, { prompt: "Restart-proof?" });
      const id = await call.id;
      await broker.close();
      await until("the server to notice", async () =>
        mcp.stderr().includes("lost the broker; reconnecting until the question expires") ? true : undefined,
      );
      broker = await startBroker({ dataDir, port, env: {} });
      const token = broker.settings.authToken;
      const api = async <T>(method: string, path: string, body?: unknown) => {
        const response = await fetch(`${broker.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json()) as T };
      };
      await answer(id, { choice_id: "allow" }, api);
      expect((await call.result).structuredContent).toEqual({ status: "answered", choice_id: "allow", source: "web" });
    } finally {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("broker down: a tool error that says what to run, at once", async () => {
    const port = await closedPort();
    const mcp = await host({}, ["--port", String(port), "--token", "some-token"]);
    const started = Date.now();
    const result = (await mcp.client.callTool({ name: "ask_person", arguments: { prompt: "Anyone?" } })) as Json;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/cannot reach the broker at http:\/\/127\.0\.0\.1:\d+.*notify serve/);
    expect(Date.now() - started).toBeLessThan(10_000);
    const notified = (await mcp.client.callTool({
      name: "notify_person",
      arguments: { title: "t", message: "m" },
    })) as Json;
    expect(notified.isError).toBe(true);
  });

  it("no token anywhere: a tool error naming notify serve; a refused token: one naming notify token", async () => {
    const empty = mkdtempSync(join(tmpdir(), "notify-mcp-empty-"));
    try {
      const none = await host({}, ["--port", String(cli.broker.port), "--data-dir", empty]);
      const missing = (await none.client.callTool({ name: "ask_person", arguments: { prompt: "Hi?" } })) as Json;
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/no broker token.*notify serve/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const bad = await host({}, ["--port", String(cli.broker.port), "--token", "not-the-token"]);
    const refused = (await bad.client.callTool({ name: "ask_person", arguments: { prompt: "Hi?" } })) as Json;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/refused the broker token \(401\).*notify token/);
    expect(textOf(refused)).not.toContain("not-the-token");
  });

  it("malformed arguments are a tool error, not a crash; the broker's own refusals too", async () => {
    const mcp = await host();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /prompt/],
      [{ prompt: 42 }, /prompt/],
      [{ prompt: "x", kind: "maybe" }, /kind/],
      [{ prompt: "x", ttl_seconds: 5 }, /ttl_seconds/],
      [
        {
          prompt: "x",
          kind: "single_choice",
          choices: [
            { id: "a b", label: "A" },
            { id: "b", label: "B" },
          ],
        },
        /id/,
      ],
      // Valid for the schema, refused by the broker (docs/api.md, "Limits"): its message comes back.
      [{ prompt: "x", kind: "single_choice" }, /choices/],
      [
        {
          prompt: "x",
          kind: "text",
          choices: [
            { id: "a", label: "A" },
            { id: "b", label: "B" },
          ],
        },
        /choices/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const result = (await mcp.client.callTool({ name: "ask_person", arguments: args })) as Json;
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result)).toMatch(pattern);
    }
    const notify = (await mcp.client.callTool({ name: "notify_person", arguments: { title: "" } })) as Json;
    expect(notify.isError).toBe(true);
    // Nothing was opened, and the server still answers.
    const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=test-host");
    expect(body).toEqual([]);
    expect((await mcp.client.listTools()).tools).toHaveLength(2);
  });

  it("notify_person creates a notification with the agent and project and returns its id", async () => {
    const mcp = await host({ clientName: "codex-mcp-client" });
    const result = (await mcp.client.callTool({
      name: "notify_person",
      arguments: { title: "Tests pass", message: "All 212 tests pass on main.", type: "completed", priority: "low" },
    })) as Json;
    expect(result.isError).toBeFalsy();
    const id = result.structuredContent.id;
    expect(id).toMatch(/^ntf_/);
    const { body } = await cli.api<Json>("GET", `/v1/notifications/${id}`);
    expect(body).toMatchObject({
      title: "Tests pass",
      type: "completed",
      priority: "low",
      agent: "codex",
      project: project.split("/").pop(),
    });
  });

  it("expiry: status expired once the question's ttl passes", async () => {
    // Opened in beforeAll (see `expiry`) with ttl_seconds 30; last, so the other cases run while it lives.
    const { broker, call } = expiry as NonNullable<typeof expiry>;
    const id = await call.id;
    const result = await call.result;
    expect(result.structuredContent).toEqual({ status: "expired" });
    expect(textOf(result)).toMatch(/expired/);
    const read = await fetch(`${broker.url}/v1/interactions/${id}`, {
      headers: { authorization: `Bearer ${broker.settings.authToken}` },
    });
    expect(((await read.json()) as Json).status).toBe("expired");
  }, 90_000);
});
