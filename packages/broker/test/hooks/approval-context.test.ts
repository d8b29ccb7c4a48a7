// Issue 36, items 1 and 2: a permission question carries what it asks about (docs/hooks.md, "Approvals with
// context"), and what is seen is what is approved: the same question shown with another context is a new question,
// and an answer to the one shown before is refused.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Json, tempDir } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, NO_FOLLOW_UPS, startCliBroker } from "../cli/cli-harness.js";
import { claude } from "./fixtures.js";
import { spawnHook } from "./hook-harness.js";

const WAITING = /waiting for an answer to interaction (int_\S+)/;

let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
});
afterAll(async () => {
  await cli?.close();
});

const ui = async (path: string): Promise<{ status: number; body: Json }> => {
  const response = await fetch(`${cli.broker.url}/ui/api${path}`, {
    headers: { authorization: `Bearer ${cli.token}` },
  });
  return { status: response.status, body: (await response.json()) as Json };
};

let events = 0;
function permissionEvent(key: string, contextId: string): Json {
  return {
    arc_version: "0.2",
    event_id: `approval-${++events}`,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "claude-code" },
    request: {
      key,
      kind: "permission",
      message: "Claude Code wants to change a file with Edit: src/db.ts",
      response: {
        kind: "permission",
        choices: [
          { id: "allow", label: "Allow" },
          { id: "deny", label: "Deny" },
        ],
        expires_at: new Date(Date.now() + 600_000).toISOString(),
      },
    },
    extensions: { "x-notify-context": { id: contextId } },
  };
}

const diffContext = (line: string) => ({
  kind: "diff",
  files: [{ path: "src/db.ts", status: "modified", added: 1, removed: 1, diff: `@@ -1,1 +1,1 @@\n-a\n+${line}` }],
});

describe("a permission question carries its context (issue 36)", () => {
  it("Claude Code's Edit: the PermissionRequest hook posts the diff against the file on disk", async () => {
    const cwd = tempDir("approval-context-");
    writeFileSync(join(cwd, "db.ts"), "const a = 1;\nconst b = 2;\n");
    const hook = spawnHook(["claude-code", "PermissionRequest", ...cli.target], {
      ...claude.permissionRequestBash.input,
      session_id: "s-approval",
      cwd,
      tool_name: "Edit",
      tool_input: { file_path: join(cwd, "db.ts"), old_string: "const b = 2;", new_string: "const b = 3;" },
    });
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    const { body: item } = await ui(`/interactions/${id}`);
    expect(item.has_context).toBe(true);
    const { status, body: context } = await ui(`/items/${id}/context`);
    expect(status).toBe(200);
    expect(context).toMatchObject({
      kind: "diff",
      truncated: false,
      files: [
        {
          path: join(cwd, "db.ts"),
          status: "modified",
          added: 1,
          removed: 1,
          diff: "@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;",
        },
      ],
    });
    await cli.api("POST", `/v1/interactions/${id}/cancel`);
    await hook.done;
  });

  it("Bash: the whole command, its directory and the agent's reason", async () => {
    const hook = spawnHook(["claude-code", "PermissionRequest", ...cli.target], {
      ...claude.permissionRequestBash.input,
      session_id: "s-approval-bash",
    });
    const id = (await hook.stderrMatching(WAITING, 30_000))[1] ?? "";
    expect((await ui(`/items/${id}/context`)).body).toEqual({
      kind: "command",
      command: "rm -rf node_modules",
      cwd: "/Users/dev/my-project",
      reason: "Remove node_modules directory",
      truncated: false,
      bytes: expect.any(Number),
    });
    await cli.api("POST", `/v1/interactions/${id}/cancel`);
    await hook.done;
  });

  it("the same question with another context is a new question; the answer to the one shown is refused", async () => {
    const first = await cli.api<Json>("POST", "/v1/contexts", diffContext("b"));
    const shown = await cli.api<Json>("POST", "/v1/events", permissionEvent("approval-key", first.body.id));
    expect(shown.status).toBe(201);
    const old = shown.body.interaction as Json;

    // The same context again (a retry of the hook): the same question.
    const same = await cli.api<Json>("POST", "/v1/contexts", diffContext("b"));
    const kept = await cli.api<Json>("POST", "/v1/events", permissionEvent("approval-key", same.body.id));
    expect((kept.body.interaction as Json).id).toBe(old.id);

    // The file changed again: the same prompt and key, another diff.
    const changed = await cli.api<Json>("POST", "/v1/contexts", diffContext("c"));
    const next = await cli.api<Json>("POST", "/v1/events", permissionEvent("approval-key", changed.body.id));
    const fresh = next.body.interaction as Json;
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.request_digest).toBe(old.request_digest);
    expect((await cli.api<Json>("GET", `/v1/interactions/${old.id}`)).body.status).toBe("superseded");

    // The answer given to what was shown first (its digest and nonce) is refused; the new one takes an answer.
    const refused = await cli.api<Json>("POST", `/v1/interactions/${old.id}/respond`, {
      response_id: "seen-first",
      request_digest: old.request_digest,
      nonce: old.nonce,
      choice_id: "allow",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("interaction is superseded");
    expect(((await ui(`/items/${fresh.id}/context`)).body.files as Json[])[0]?.diff).toContain("+c");
    const accepted = await cli.api<Json>("POST", `/v1/interactions/${fresh.id}/respond`, {
      response_id: "seen-second",
      request_digest: fresh.request_digest,
      nonce: fresh.nonce,
      choice_id: "allow",
    });
    expect(accepted.status).toBe(200);
  });
});
