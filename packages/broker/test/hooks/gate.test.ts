import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, runCli, startCliBroker } from "../cli/cli-harness.js";
import { spawnHook, WAITING } from "./hook-harness.js";

/**
 * Issue 38 (DESIGN.md, "More agents"): where no hook can answer the agent's own prompt (Gemini CLI's BeforeTool,
 * OpenCode's tool.execute.before through Notify's plugin), the real `notify hook` process gates the call: with the
 * person present it prints nothing and asks nothing (the agent's own prompt applies); away or unknown it asks, and
 * the answer is the agent's decision for the call.
 */
let cli: CliBroker;

beforeAll(async () => {
  // No page and no session bus: presence is `unknown`, which gates as away does.
  cli = await startCliBroker({ followUp: { waitSeconds: 0 } });
});
afterAll(async () => {
  await cli?.close();
});

const beforeTool = (session: string, command: string) => ({
  session_id: session,
  cwd: "/work/project",
  hook_event_name: "BeforeTool",
  tool_name: "run_shell_command",
  tool_input: { command },
});

async function markPresent(broker: CliBroker): Promise<void> {
  // A visible, used /ui page vouches for the person (docs/routing.md, "Presence").
  const activity = await fetch(`${broker.broker.url}/ui/api/presence/activity`, {
    method: "POST",
    headers: { authorization: `Bearer ${broker.token}`, "x-notify-ui": "1", "content-type": "application/json" },
    body: JSON.stringify({ page: "gate-test", visible: true }),
  });
  expect(activity.status).toBe(200);
}

describe("a before-tool gate through the real hook process", () => {
  it("Gemini CLI, presence unknown: asks; deny prints Gemini's deny with the reason, allow its allow", async () => {
    for (const choice of ["deny", "allow"] as const) {
      const hook = spawnHook(["gemini", "BeforeTool", ...cli.target], beforeTool(`g-${choice}`, `rm -rf ${choice}`));
      const [, id] = await hook.stderrMatching(WAITING);
      const question = (await cli.api<Json>("GET", `/v1/interactions/${id}`)).body;
      expect(question).toMatchObject({ agent: "gemini", kind: "permission", project: "project" });
      expect((await runCli(["answer", id as string, "--choice", choice, ...cli.target])).code).toBe(0);
      const result = await hook.done;
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(
        choice === "deny"
          ? { decision: "deny", reason: "Denied in Notify (answered from cli)" }
          : { decision: "allow" },
      );
    }
  });

  it("OpenCode's plugin payload, present at the desk: nothing asked, nothing printed", async () => {
    const present = await startCliBroker({ followUp: { waitSeconds: 0 } });
    try {
      await markPresent(present);
      const payload = {
        hook_event_name: "tool.execute.before",
        session_id: "ses_present",
        tool_use_id: "call_1",
        cwd: "/work/project",
        tool_name: "bash",
        tool_input: { command: "npm publish" },
      };
      const result = await spawnHook(["opencode", "tool.execute.before", ...present.target], payload).done;
      expect(result).toMatchObject({ code: 0, stdout: "" });
      expect(result.stderr).toContain("the person is present");
      expect((await present.api<Json[]>("GET", "/v1/interactions?pending=true")).body).toEqual([]);
      expect((await present.api<Json[]>("GET", "/v1/interactions?agent=opencode")).body).toEqual([]);
    } finally {
      await present.close();
    }
  });
});
