// Issue 37, item 1: sessions heard of from every producer, not only the hooks: an MCP client's `ask_person` (the real
// `notify mcp` under the official SDK client), an ARC 0.2 sender whose event names a session, and a hook's follow-up
// (the ARC completion with a text question a finished turn sends), which counts as the session waiting.
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendObservation } from "../../src/sessions/journal.js";
import { type CliBroker, runCli, startCliBroker } from "../cli/cli-harness.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";
import { callAsk, startMcpHost } from "../mcp/mcp-harness.js";

async function sessionsOf(broker: TestBroker): Promise<Json[]> {
  const reply = await broker.call("GET", "/v1/sessions");
  expect(reply.status).toBe(200);
  return (reply.body as { sessions: Json[] }).sessions;
}

let events = 0;
async function arc(broker: TestBroker, body: Json): Promise<Json> {
  events += 1;
  const reply = await broker.call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: `e${events}`,
    event_type: "request.created",
    occurred_at: new Date(broker.clock.now()).toISOString(),
    ...body,
  });
  expect(reply.status).toBeLessThan(300);
  return reply.body as Json;
}

const inMinutes = (broker: TestBroker, minutes: number): string =>
  new Date(broker.clock.now() + minutes * 60_000).toISOString();

describe("sessions from ARC senders (issue 37, item 1)", () => {
  it("an event naming a session observes it; its question makes it wait; a completion finishes it", async () => {
    const broker = testBroker();
    // A notice with a session id: the session is heard of, working.
    await arc(broker, {
      sender: { id: "deploy-bot" },
      context: { session_id: "run-7", project: "infra" },
      request: { kind: "information", message: "Starting the rollout" },
    });
    expect(await sessionsOf(broker)).toMatchObject([
      { agent: "deploy-bot", project: "infra", state: "working", open_questions: 0 },
    ]);

    const asked = await arc(broker, {
      sender: { id: "deploy-bot" },
      context: { session_id: "run-7", project: "infra" },
      request: {
        key: "rollout",
        kind: "permission",
        message: "Roll out to production?",
        response: {
          kind: "permission",
          choices: [
            { id: "allow", label: "Allow" },
            { id: "deny", label: "Deny" },
          ],
          expires_at: inMinutes(broker, 10),
        },
      },
    });
    expect(await sessionsOf(broker)).toMatchObject([
      { state: "waiting", open_questions: 1, last_message: "Roll out to production?" },
    ]);
    const question = asked.interaction as Json;
    await broker.call("POST", `/v1/interactions/${question.id}/cancel`);
    expect(await sessionsOf(broker)).toMatchObject([{ state: "working", open_questions: 0 }]);

    await arc(broker, {
      sender: { id: "deploy-bot" },
      context: { session_id: "run-7" },
      request: { kind: "completion", message: "Rolled out to 3 regions." },
    });
    expect(await sessionsOf(broker)).toMatchObject([{ state: "finished", last_message: "Rolled out to 3 regions." }]);

    // An event without a session id observes nothing.
    await arc(broker, { sender: { id: "other-bot" }, request: { kind: "information", message: "Hello" } });
    expect(await sessionsOf(broker)).toHaveLength(1);
  });

  it("a finished turn's follow-up makes the session wait, and leaves it finished when nobody replies", async () => {
    const broker = testBroker();
    // What a hook says at Stop (POST /v1/sessions), then the follow-up it sends: a completion that asks for text.
    const observed = await broker.call("POST", "/v1/sessions", {
      agent: "claude-code",
      session_id: "s-follow",
      signal: "finished",
      last_message: "Tests pass.",
    });
    expect(observed.status).toBe(204);
    const followUp = await arc(broker, {
      sender: { id: "claude-code" },
      context: { session_id: "s-follow" },
      request: {
        key: "claude-code:session:s-follow",
        kind: "completion",
        message: "Tests pass.",
        response: { kind: "text", text_max_length: 2000, expires_at: inMinutes(broker, 5) },
      },
    });
    expect(await sessionsOf(broker)).toMatchObject([{ agent: "claude-code", state: "waiting", open_questions: 1 }]);
    // Nobody replies in time: the session is finished again (not working: the follow-up said nothing it did).
    broker.clock.advance(6 * 60_000);
    const expired = await broker.call("GET", `/v1/interactions/${(followUp.interaction as Json).id}`);
    expect((expired.body as Json).status).toBe("expired");
    expect(await sessionsOf(broker)).toMatchObject([{ state: "finished", open_questions: 0 }]);
  });
});

describe("a command hook's journal (issue 37, item 1)", () => {
  it("is taken in soon after a hook appends, with nobody listing (the phone's summary follows at once)", async () => {
    const broker = testBroker();
    const journal = join(broker.dataDir, "hooks", "sessions.jsonl");
    // The first append makes the hooks folder; the broker watched the data dir for it.
    for (const sessionId of ["c-1", "c-2"]) {
      appendObservation(broker.dataDir, { agent: "codex", sessionId, signal: "working", at: broker.clock.now() });
      await untilValue("the journal taken in", async () => (existsSync(journal) ? undefined : true), {
        timeoutMs: 10_000,
        everyMs: 20,
      });
    }
    expect((await sessionsOf(broker)).map((session) => session.agent)).toEqual(["codex", "codex"]);
  });
});

describe("sessions from MCP clients (issue 37, item 1)", () => {
  let cli: CliBroker;
  beforeAll(async () => {
    cli = await startCliBroker();
  });
  afterAll(async () => {
    await cli?.close();
  });

  // Two processes (the SDK host's `notify mcp`, `notify sessions`) on a loaded machine.
  it("ask_person names the client as agent and its session; the session waits until answered", {
    timeout: 60_000,
  }, async () => {
    const session = `mcp-${randomUUID()}`;
    const host = await startMcpHost(cli.target, {
      clientName: "claude-code",
      env: { CLAUDE_CODE_SESSION_ID: session },
    });
    try {
      const asking = callAsk(host, {
        prompt: "Postgres or SQLite?",
        kind: "single_choice",
        choices: [
          { id: "pg", label: "Postgres" },
          { id: "sqlite", label: "SQLite" },
        ],
      });
      const id = await asking.id;
      const listed = async (): Promise<Json | undefined> => {
        const result = await runCli(["sessions", "--json", ...cli.target]);
        expect(result.code).toBe(0);
        const { sessions } = JSON.parse(result.stdout) as { sessions: Json[] };
        return sessions.find((entry) => entry.last_message === "Postgres or SQLite?");
      };
      expect(await listed()).toMatchObject({ agent: "claude-code", state: "waiting", open_questions: 1 });
      const current = (await cli.api<Json>("GET", `/v1/interactions/${id}`)).body;
      const answered = await cli.api("POST", `/v1/interactions/${id}/respond`, {
        response_id: randomUUID(),
        request_digest: current.request_digest,
        nonce: current.nonce,
        source: "web",
        choice_id: "sqlite",
      });
      expect(answered.status).toBe(200);
      await asking.result;
      expect(await listed()).toMatchObject({ agent: "claude-code", state: "working", open_questions: 0 });
    } finally {
      await host.close();
    }
  });
});
