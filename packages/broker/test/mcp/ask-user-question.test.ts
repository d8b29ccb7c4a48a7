import { type Json, untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planHook } from "../../src/hooks/mapping.js";
import { type CliBroker, startCliBroker } from "../cli/cli-harness.js";
import { spawnHook } from "../hooks/hook-harness.js";

/**
 * Issue 26 item 3: Claude Code's own question tool, AskUserQuestion, through `notify hook claude-code PreToolUse`
 * (the entry `notify hooks install claude-code` writes with matcher AskUserQuestion), against a real broker: each
 * question opens in Notify, the answers given on /v1 come back as the call's updatedInput (the input plus
 * `answers`), and anything short of every question answered leaves the terminal's own dialog to ask.
 */
let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker();
});
afterAll(async () => {
  await cli?.close();
});

const WAITING_ALL = /waiting for answers to (int_\S+(?:, int_\S+)*)\n/;

const DATABASE = {
  question: "Which database should the service use?",
  header: "Database",
  options: [
    { label: "Postgres", description: "a server, more to run" },
    { label: "SQLite", description: "one file" },
  ],
  multiSelect: false,
};
const CHECKS = {
  question: "Which checks should run on every push?",
  header: "CI",
  options: [{ label: "lint", description: "seconds" }, { label: "unit tests" }, { label: "e2e" }],
  multiSelect: true,
};

function payload(session: string, questions: unknown[], toolUseId = `toolu_${session}`): Json {
  return {
    session_id: session,
    transcript_path: `/tmp/${session}.jsonl`,
    cwd: "/home/dev/service",
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: "AskUserQuestion",
    tool_input: { questions },
    tool_use_id: toolUseId,
  };
}

async function respond(id: string, answer: { choice_id: string } | { text: string }): Promise<void> {
  const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
  const result = await cli.api("POST", `/v1/interactions/${id}/respond`, {
    response_id: `r-${id}`,
    request_digest: body.request_digest,
    nonce: body.nonce,
    source: "phone",
    ...answer,
  });
  expect(result.status).toBe(200);
}

const get = async (id: string): Promise<Json> => (await cli.api<Json>("GET", `/v1/interactions/${id}`)).body;

describe("AskUserQuestion through Notify (issue 26, item 3)", () => {
  it("each question opens in Notify; once all are answered the hook allows with the answers as updatedInput", async () => {
    const hook = spawnHook(["claude-code", "PreToolUse", ...cli.target], payload("s-auq", [DATABASE, CHECKS]));
    const ids = ((await hook.stderrMatching(WAITING_ALL, 30_000))[1] ?? "").split(", ");
    expect(ids).toHaveLength(2);
    const [database, checks] = [await get(ids[0] as string), await get(ids[1] as string)];
    expect(database).toMatchObject({
      agent: "claude-code",
      project: "service",
      session_id: "s-auq",
      kind: "single_choice",
      prompt: DATABASE.question,
      choices: [
        { id: "option_1", label: "Postgres", detail: "a server, more to run" },
        { id: "option_2", label: "SQLite", detail: "one file" },
        { id: "other", label: "Other…", detail: "Type your own answer" },
      ],
    });
    // Notify has no multiple choice: a multiSelect question takes the labels as text, as Claude Code joins them.
    expect(checks).toMatchObject({ kind: "text", session_id: "s-auq" });
    expect(checks.prompt).toBe(
      `${CHECKS.question}\n\n- lint: seconds\n- unit tests\n- e2e\n\nChoose one or more; answer with their names separated by commas.`,
    );

    await respond(database.id, { choice_id: "option_2" });
    await respond(checks.id, { text: "lint, unit tests" });
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "Answered in Notify (from phone)",
        updatedInput: {
          questions: [DATABASE, CHECKS],
          answers: { [DATABASE.question]: "SQLite", [CHECKS.question]: "lint, unit tests" },
        },
      },
    });
  });

  it("Other…: the person's own words, asked in a second text question, are the answer (issue 36, item 4)", async () => {
    const hook = spawnHook(["claude-code", "PreToolUse", ...cli.target], payload("s-auq-other", [DATABASE]));
    const ids = ((await hook.stderrMatching(WAITING_ALL, 30_000))[1] ?? "").split(", ");
    const database = await get(ids[0] as string);
    await respond(database.id, { choice_id: "other" });
    const words = await untilValue(
      "the words question",
      async () => {
        const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true");
        return body.find((question) => question.key === `${database.key}:words`);
      },
      { timeoutMs: 30_000 },
    );
    expect(words).toMatchObject({ kind: "text", prompt: DATABASE.question });
    await respond(words.id, { text: "DuckDB, in memory" });
    const result = await hook.done;
    expect(JSON.parse(result.stdout).hookSpecificOutput.updatedInput.answers).toEqual({
      [DATABASE.question]: "DuckDB, in memory",
    });
  });

  it("one question dismissed by the person: the other is withdrawn and nothing is printed (the terminal asks)", async () => {
    const hook = spawnHook(["claude-code", "PreToolUse", ...cli.target], payload("s-auq-dismiss", [DATABASE, CHECKS]));
    const ids = ((await hook.stderrMatching(WAITING_ALL, 30_000))[1] ?? "").split(", ");
    expect((await cli.api("POST", `/v1/interactions/${ids[0]}/cancel`)).status).toBe(200);
    const result = await hook.done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).toContain("Claude Code asks in the terminal");
    expect((await get(ids[1] as string)).status).toBe("cancelled");
  });

  it("the agent stopping the hook (Esc in the terminal, SIGTERM) withdraws every question", async () => {
    const hook = spawnHook(["claude-code", "PreToolUse", ...cli.target], payload("s-auq-esc", [DATABASE]));
    const ids = ((await hook.stderrMatching(WAITING_ALL, 30_000))[1] ?? "").split(", ");
    hook.child.kill("SIGTERM");
    const result = await hook.done;
    expect(result.stdout).toBe("");
    expect((await get(ids[0] as string)).status).toBe("cancelled");
  });

  it("an input Notify cannot ask faithfully, and AskUserQuestion's PermissionRequest, ask nothing", () => {
    const pre = (questions: unknown[]) =>
      planHook("claude-code", "PreToolUse", {
        hookEventName: "PreToolUse",
        sessionId: "s",
        toolName: "AskUserQuestion",
        toolInput: { questions },
        toolUseId: "toolu_1",
      });
    expect(pre([DATABASE]).questions?.keys).toHaveLength(1);
    expect(pre([]).questions).toBeUndefined();
    expect(pre([{ ...DATABASE, options: [{ label: "only one" }] }]).questions).toBeUndefined();
    expect(pre([{ ...DATABASE, options: [{ label: "" }, { label: "x" }] }]).questions).toBeUndefined();
    expect(pre([DATABASE, DATABASE]).questions).toBeUndefined();
    // The dialog's PermissionRequest: the person answers there; no "allow AskUserQuestion?" question.
    const permission = planHook("claude-code", "PermissionRequest", {
      hookEventName: "PermissionRequest",
      sessionId: "s",
      toolName: "AskUserQuestion",
      toolInput: { questions: [DATABASE] },
    });
    expect(permission.ask).toBeUndefined();
    expect(permission.questions).toBeUndefined();
  });
});
