// Issue 36, item 3: every decision the asking agent accepts, and only those (docs/hooks.md, "Decisions"), printed
// in the agent's own output shape by a real `notify hook` process against a real broker. A decision that needs
// words (a reason, an edited command) asks for them in a second, text question of the same item.
import { type Json, untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alwaysRule, decisionChoices } from "../../src/hooks/decisions.js";
import { type CliBroker, NO_FOLLOW_UPS, startCliBroker } from "../cli/cli-harness.js";
import { claude, codex } from "./fixtures.js";
import { spawnHook } from "./hook-harness.js";

const WAITING = /waiting for an answer to interaction (int_\S+)/;

let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
});
afterAll(async () => {
  await cli?.close();
});

async function answer(id: string, body: { choice_id: string } | { text: string }): Promise<void> {
  const { body: question } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
  const answered = await cli.api("POST", `/v1/interactions/${id}/respond`, {
    response_id: `r-${id}`,
    request_digest: question.request_digest,
    nonce: question.nonce,
    source: "phone",
    ...body,
  });
  expect(answered.status).toBe(200);
}

/** The words question a decision opened: the pending text question under the first one's key plus `:words`. */
const wordsQuestion = (key: string): Promise<Json> =>
  untilValue(
    `the words question under ${key}`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true");
      return body.find((question) => question.key === `${key}:words`);
    },
    { timeoutMs: 30_000 },
  );

function permission(session: string, input: Record<string, unknown> = {}) {
  return spawnHook(["claude-code", "PermissionRequest", ...cli.target], {
    ...claude.permissionRequestBash.input,
    session_id: session,
    ...input,
  });
}

describe("decisions (issue 36, item 3)", () => {
  it("Always allow (this session): allow with Claude Code's own suggested rule, for the session", async () => {
    const suggestion = {
      type: "addRules",
      rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
      behavior: "allow",
      destination: "localSettings",
    };
    const hook = permission("s-always", {
      tool_input: { command: "npm test", description: "Run the tests" },
      permission_suggestions: [suggestion],
    });
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    const { body: question } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect((question.choices as Json[]).find((choice) => choice.id === "allow_always")?.detail).toBe(
      "Adds the rule Bash(npm test:*) for this session",
    );
    await answer(id, { choice_id: "allow_always" });
    const out = JSON.parse((await hook.done).stdout);
    expect(out.hookSpecificOutput.decision).toEqual({
      behavior: "allow",
      updatedPermissions: [
        {
          type: "addRules",
          rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
          behavior: "allow",
          destination: "session",
        },
      ],
    });
  });

  it("Always allow (this project): the rule goes to the project's local settings", async () => {
    const hook = permission("s-always-project");
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    await answer(id, { choice_id: "allow_always_project" });
    const decision = JSON.parse((await hook.done).stdout).hookSpecificOutput.decision;
    expect(decision.updatedPermissions[0]).toMatchObject({
      rules: [{ toolName: "Bash", ruleContent: "rm:*" }],
      destination: "localSettings",
    });
  });

  it("Deny with a reason: a text question in the same item; the reason goes back as the deny's message", async () => {
    const hook = permission("s-reason");
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    const { body: first } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    await answer(id, { choice_id: "deny_reason" });
    const words = await wordsQuestion(first.key);
    expect(words).toMatchObject({ kind: "text", session_id: "s-reason" });
    await answer(words.id, { text: "Keep node_modules; run npm ci instead." });
    const decision = JSON.parse((await hook.done).stdout).hookSpecificOutput.decision;
    expect(decision.behavior).toBe("deny");
    expect(decision.message.split("\n")[0]).toBe("Keep node_modules; run npm ci instead.");
  });

  it("Edit the command: the edited command is allowed in place of the agent's", async () => {
    const hook = permission("s-edit");
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    const { body: first } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    await answer(id, { choice_id: "edit" });
    const words = await wordsQuestion(first.key);
    expect(words.prompt).toContain("rm -rf node_modules");
    await answer(words.id, { text: "rm -rf node_modules/.cache" });
    const decision = JSON.parse((await hook.done).stdout).hookSpecificOutput.decision;
    expect(decision).toEqual({
      behavior: "allow",
      updatedInput: { command: "rm -rf node_modules/.cache", description: "Remove node_modules directory" },
    });
  });

  it("Codex: allow, deny and deny with a reason only (it refuses updatedInput and updatedPermissions)", async () => {
    const hook = spawnHook(["codex", "PermissionRequest", ...cli.target], {
      ...codex.permissionRequestBash.input,
      session_id: "s-codex-decisions",
    });
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    const { body: question } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect((question.choices as Json[]).map((choice) => choice.id)).toEqual(["allow", "deny", "deny_reason"]);
    await cli.api("POST", `/v1/interactions/${id}/cancel`);
    await hook.done;
  });
});

describe("the rule of Always allow", () => {
  it("the agent's addRules suggestion first; else the command's first word; never a rule from shell syntax", () => {
    expect(alwaysRule("Bash", { command: "git push origin" }, undefined)).toEqual([
      { toolName: "Bash", ruleContent: "git:*" },
    ]);
    expect(alwaysRule("Bash", { command: "$(curl evil) x" }, undefined)).toBeUndefined();
    expect(alwaysRule("Edit", {}, undefined)).toEqual([{ toolName: "Edit" }]);
    const choices = decisionChoices("claude-code", "pre-tool-use", "Bash", { command: "ls" }, undefined);
    expect(choices.map((choice) => choice.id)).toEqual(["allow", "deny", "deny_reason"]);
  });
});
