// Issue 37, item 1: the agent sessions the broker hears of through the hooks (docs/api.md, "Sessions"). A real
// broker, the real `notify hook` command (as the agents run it) and the http hook route, `notify sessions --json`.
import { type Json, tempDir } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateOf } from "../../src/sessions/sessions.js";
import { type CliBroker, NO_FOLLOW_UPS, runCli, startCliBroker } from "../cli/cli-harness.js";
import { claude } from "./fixtures.js";
import { spawnHook, WAITING } from "./hook-harness.js";

let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
});
afterAll(async () => {
  await cli?.close();
});

const cwd = tempDir("sessions-project-");
const event = (session: string, hook_event_name: string, extra: Json = {}): Json => ({
  session_id: session,
  transcript_path: "/nonexistent/transcript.jsonl",
  cwd,
  hook_event_name,
  ...extra,
});

async function listed(session: string): Promise<Json | undefined> {
  const result = await runCli(["sessions", "--json", ...cli.target]);
  expect(result.code).toBe(0);
  const { sessions } = JSON.parse(result.stdout) as { sessions: Json[] };
  const all = await cli.api<{ sessions: Json[] }>("GET", "/ui/api/sessions");
  expect(all.status).toBe(200);
  return sessions.find((entry) => entry.cwd === cwd && entry.id === idOf.get(session));
}
const idOf = new Map<string, string>();

async function hook(session: string, name: string, extra: Json = {}): Promise<void> {
  const done = await spawnHook(["claude-code", name, ...cli.target], event(session, name, extra)).done;
  expect(done.code).toBe(0);
}

describe("agent sessions (issue 37, item 1)", () => {
  // Eight CLI processes and a hook waiting on a question: 12 s at load 8, more than the suite's default.
  it("follow the hook events: working, waiting on a question, working again, finished, ended", {
    timeout: 90_000,
  }, async () => {
    await hook("s-one", "UserPromptSubmit");
    const { body } = await cli.api<{ sessions: Json[] }>("GET", "/v1/sessions");
    const first = body.sessions.find((entry) => entry.cwd === cwd);
    expect(first).toMatchObject({ agent: "claude-code", state: "working", open_questions: 0 });
    expect(first?.id).toMatch(/^ses_[0-9a-f]{24}$/);
    expect(first?.machine).toBeTypeOf("string");
    idOf.set("s-one", first?.id as string);

    // A permission question: the session waits on the person while it is open.
    const asking = spawnHook(["claude-code", "PermissionRequest", ...cli.target], {
      ...claude.permissionRequestBash.input,
      session_id: "s-one",
      cwd,
    });
    const id = (await asking.stderrMatching(WAITING, 30_000))[1] ?? "";
    expect(await listed("s-one")).toMatchObject({ state: "waiting", open_questions: 1 });
    await cli.api("POST", `/v1/interactions/${id}/cancel`);
    await asking.done;
    expect(await listed("s-one")).toMatchObject({ state: "working", open_questions: 0 });

    await hook("s-one", "Stop", { stop_hook_active: false, last_assistant_message: "All tests pass.\nDone." });
    const finished = await listed("s-one");
    expect(finished).toMatchObject({ state: "finished", last_message: "All tests pass.\nDone." });
    expect(Date.parse(finished?.last_active_at as string)).toBeGreaterThanOrEqual(
      Date.parse(finished?.started_at as string),
    );

    // Claude Code's idle notification, about a minute after the turn: still finished, the last message kept.
    await hook("s-one", "Notification", {
      message: "Claude is waiting for your input",
      notification_type: "idle_prompt",
    });
    expect(await listed("s-one")).toMatchObject({ state: "finished", last_message: "All tests pass.\nDone." });

    await hook("s-one", "SessionEnd");
    expect(await listed("s-one")).toMatchObject({ state: "ended", last_message: "All tests pass.\nDone." });

    // The plain listing: a summary on stderr, one line per session on stdout.
    const plain = await runCli(["sessions", ...cli.target]);
    expect(plain.stderr).toMatch(/^notify: /);
    expect(plain.stdout).toMatch(/^ended\s+claude-code/m);
  });

  it("the http hook records its session inside the broker", async () => {
    const response = await fetch(`${cli.broker.url}/v1/hooks/claude-code`, {
      method: "POST",
      headers: { authorization: `Bearer ${cli.token}`, "content-type": "application/json" },
      body: JSON.stringify(event("s-http", "UserPromptSubmit")),
    });
    expect(response.status).toBe(200);
    const { body } = await cli.api<{ sessions: Json[] }>("GET", "/v1/sessions");
    expect(body.sessions.filter((entry) => entry.cwd === cwd).map((entry) => entry.state)).toContain("working");
  });

  it("POST /v1/sessions refuses a bad observation with 400 and stores nothing", async () => {
    const before = (await cli.api<{ sessions: Json[] }>("GET", "/v1/sessions")).body.sessions.length;
    for (const [body, error] of [
      [{ agent: "x", session_id: "s", signal: "sleeping" }, "signal must be one of working, asking, finished, ended"],
      [{ agent: "x", signal: "working" }, "session_id is required"],
      [{ agent: "x", session_id: "s", signal: "working", extra: 1 }, "extra"],
    ] as const) {
      const refused = await cli.api<Json>("POST", "/v1/sessions", body);
      expect(refused.status).toBe(400);
      expect(String(refused.body.error)).toContain(error);
    }
    expect((await cli.api<{ sessions: Json[] }>("GET", "/v1/sessions")).body.sessions).toHaveLength(before);
  });

  it("the state shown: an open question waits, a quiet working session is idle", () => {
    expect(stateOf("working", 0, 29 * 60_000)).toBe("working");
    expect(stateOf("working", 0, 31 * 60_000)).toBe("idle");
    expect(stateOf("asking", 0, 0)).toBe("working");
    expect(stateOf("finished", 1, 0)).toBe("waiting");
    expect(stateOf("ended", 2, 0)).toBe("ended");
  });
});
