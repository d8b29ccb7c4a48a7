import { readdirSync } from "node:fs";
import { join } from "node:path";
import { timelineLine } from "@notify/contracts/ui-timeline-words";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFollowUp } from "../../src/config/follow-up.js";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { claude, codex } from "./fixtures.js";
import { spawnHook } from "./hook-harness.js";

/** The line the Stop hook writes once its follow-up question is open. */
const FOLLOW_UP = /waiting up to \d+ s for a follow-up to interaction (int_\S+)/;

let cli: CliBroker;
beforeAll(async () => {
  // No page and no session bus: presence is `unknown`, which asks as away does (docs/hooks.md, "Follow-ups").
  cli = await startCliBroker({ followUp: { waitSeconds: 120, maxInARow: 2 } });
});
afterAll(async () => {
  await cli?.close();
});

const stopOf = (fixture: { input: Record<string, unknown> }, session: string, continued = false) => ({
  ...fixture.input,
  session_id: session,
  stop_hook_active: continued,
});

async function reply(id: string, text: string, source = "phone"): Promise<number> {
  const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
  return (
    await cli.api("POST", `/v1/interactions/${id}/respond`, {
      response_id: `r-${id}`,
      request_digest: body.request_digest,
      nonce: body.nonce,
      text,
      source,
    })
  ).status;
}

describe("a finished turn asks for a follow-up while the person is not known present (issue 35)", () => {
  it("Claude Code Stop: a text question in the session's item; the reply is the Stop hook's block", async () => {
    const stop = spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, "s-follow"));
    const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    const { body: question } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(question).toMatchObject({
      status: "pending",
      kind: "text",
      agent: "claude-code",
      prompt: "I've completed the refactoring. Here's a summary...",
    });
    // The session's one item: the "finished" notification carries the question.
    const { body: rows } = await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code&unresolved=true");
    const items = rows.filter((row) => row.metadata?.arc?.session_id === "s-follow");
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: "completed", title: "Claude Code finished in my-project" });

    expect(await reply(id, "  Now run the tests and fix what fails.  ")).toBe(200);
    const result = await stop.done;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ decision: "block", reason: "Now run the tests and fix what fails." });
    expect(result.stderr).toContain("a reply from phone goes to the agent");
    // The item's timeline says who replied and where it went.
    const timeline = await fetch(`${cli.broker.url}/ui/api/interactions/${id}/timeline`, {
      headers: { authorization: `Bearer ${cli.token}` },
    });
    const { entries } = (await timeline.json()) as { entries: Json[] };
    const settled = entries.find((entry) => entry.event === "settled");
    expect(settled).toMatchObject({ status: "answered", source: "phone", follow_up: true });
    expect(timelineLine(settled as never, (iso) => iso)).toBe("Reply from phone: sent to the agent");
  });

  it("`notify answer --text` answers it from the CLI, for Codex too", async () => {
    const stop = spawnHook(["codex", "Stop", ...cli.target], stopOf(codex.stop, "s-codex-follow"));
    const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    const answered = await runCli(["answer", id, "--text", "Also update the changelog.", ...cli.target]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(JSON.parse((await stop.done).stdout)).toEqual({ decision: "block", reason: "Also update the changelog." });
    const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(body.response).toMatchObject({ source: "cli", text: "Also update the changelog." });
  });

  it("a prompt typed in the terminal (UserPromptSubmit) withdraws it everywhere; the Stop hook ends quietly", async () => {
    const stop = spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, "s-typed"));
    const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    const typed = await spawnHook(["claude-code", "UserPromptSubmit", ...cli.target], {
      ...claude.stop.input,
      hook_event_name: "UserPromptSubmit",
      session_id: "s-typed",
      prompt: "something else",
    }).done;
    expect(typed.code).toBe(0);
    expect(await stop.done).toMatchObject({ code: 0, stdout: "" });
    expect((await cli.api<Json>("GET", `/v1/interactions/${id}`)).body.status).toBe("cancelled");
  });

  it("a cancel ends the turn as today: nothing printed", async () => {
    const stop = spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, "s-cancel"));
    const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    expect((await cli.api("POST", `/v1/interactions/${id}/cancel`, {})).status).toBe(200);
    expect(await stop.done).toMatchObject({ code: 0, stdout: "" });
  });

  it("followUp.maxInARow: the chain of replies ends the turn; a typed prompt starts the count again", async () => {
    const session = "s-chain";
    // Two replies in a row (maxInARow 2), each Stop after the first continued by a Stop hook.
    for (const continued of [false, true]) {
      const stop = spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, session, continued));
      const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
      expect(await reply(id, `step ${continued ? 2 : 1}`)).toBe(200);
      expect(JSON.parse((await stop.done).stdout).decision).toBe("block");
    }
    const third = await spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, session, true)).done;
    expect(third).toMatchObject({ code: 0, stdout: "" });
    expect(third.stderr).toContain("2 follow-ups in a row (followUp.maxInARow 2); the turn ends");
    // The person typed a prompt: its Stop is not a continuation, and asks again.
    const fresh = spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, session, false));
    const id = (await fresh.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    expect(await reply(id, "one more")).toBe(200);
    expect(JSON.parse((await fresh.done).stdout).reason).toBe("one more");
    // The count lives in the data dir, one small file per session, never the reply's text.
    const dir = join(cli.dataDir, "hooks", "follow-ups");
    expect(readdirSync(dir).length).toBeGreaterThan(0);
  });
});

describe("Claude Code's own cap on Stop blocks in a row", () => {
  it("a reply past CLAUDE_CODE_STOP_HOOK_BLOCK_CAP would be overridden: the turn ends instead of asking", async () => {
    const env = { ...cliEnv(), CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "1" };
    const first = spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, "s-cap"), env);
    const id = (await first.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    expect(await reply(id, "go on")).toBe(200);
    expect(JSON.parse((await first.done).stdout).reason).toBe("go on");
    const second = await spawnHook(["claude-code", "Stop", ...cli.target], stopOf(claude.stop, "s-cap", true), env)
      .done;
    expect(second).toMatchObject({ code: 0, stdout: "" });
    expect(second.stderr).toContain("1 follow-ups in a row (Claude Code's own cap 1); the turn ends");
  });
});

describe("a finished turn that does not wait", () => {
  it("present at the desk: Stop returns at once with no question; the item is the plain notification", async () => {
    const present = await startCliBroker({ followUp: { waitSeconds: 120 } });
    try {
      // A visible, used /ui page vouches for the person (docs/routing.md, "Presence").
      const activity = await fetch(`${present.broker.url}/ui/api/presence/activity`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${present.token}`,
          "x-notify-ui": "1",
          "content-type": "application/json",
        },
        body: JSON.stringify({ page: "follow-up-test", visible: true }),
      });
      expect(activity.status).toBe(200);
      expect((await present.api<Json>("GET", "/v1/follow-up")).body).toEqual({
        wait_seconds: 120,
        max_in_a_row: 20,
        presence: "present",
      });
      const result = await spawnHook(["claude-code", "Stop", ...present.target], stopOf(claude.stop, "s-present")).done;
      expect(result).toMatchObject({ code: 0, stdout: "" });
      const { body: pending } = await present.api<Json[]>("GET", "/v1/interactions?pending=true");
      expect(pending).toEqual([]);
      const { body: rows } = await present.api<Json[]>("GET", "/v1/notifications?type=completed");
      expect(rows.find((row) => row.metadata?.arc?.session_id === "s-present")).toBeDefined();
    } finally {
      await present.close();
    }
  });

  it("followUp.waitSeconds 0 turns follow-ups off", async () => {
    const off = await startCliBroker({ followUp: { waitSeconds: 0 } });
    try {
      expect((await off.api<Json>("GET", "/v1/follow-up")).body).toMatchObject({ wait_seconds: 0 });
      const result = await spawnHook(["codex", "Stop", ...off.target], stopOf(codex.stop, "s-off")).done;
      expect(result).toMatchObject({ code: 0, stdout: "" });
      expect((await off.api<Json[]>("GET", "/v1/interactions?pending=true")).body).toEqual([]);
    } finally {
      await off.close();
    }
  });

  it("no reply within the window: the turn ends at the window with nothing printed", async () => {
    const short = await startCliBroker({ followUp: { waitSeconds: 1 } });
    try {
      const started = Date.now();
      const result = await spawnHook(["claude-code", "Stop", ...short.target], stopOf(claude.stop, "s-window")).done;
      expect(result).toMatchObject({ code: 0, stdout: "" });
      expect(result.stderr).toMatch(/ended expired without a reply; the turn ends/);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await short.close();
    }
  });
});

describe("config.json followUp", () => {
  it("defaults, bounds and one warning per wrong value", () => {
    const warnings: string[] = [];
    const warn = (line: string) => warnings.push(line);
    expect(parseFollowUp(undefined, warn)).toEqual({ waitSeconds: 900, maxInARow: 20 });
    expect(parseFollowUp({ waitSeconds: 0, maxInARow: 1000 }, warn)).toEqual({ waitSeconds: 0, maxInARow: 1000 });
    expect(warnings).toEqual([]);
    expect(parseFollowUp({ waitSeconds: 86_401, maxInARow: 0, extra: true }, warn)).toEqual({
      waitSeconds: 900,
      maxInARow: 20,
    });
    expect(warnings).toEqual([
      "config.json: followUp.waitSeconds must be an integer 0-86400; using 900",
      "config.json: followUp.maxInARow must be an integer 1-1000; using 20",
      "config.json: followUp.extra is not a setting; ignored",
    ]);
    expect(parseFollowUp("soon", warn)).toEqual({ waitSeconds: 900, maxInARow: 20 });
    expect(warnings.at(-1)).toBe("config.json: followUp must be an object; using the defaults");
  });
});
