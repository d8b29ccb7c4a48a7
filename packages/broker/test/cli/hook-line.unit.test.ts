import { describe, expect, it } from "vitest";
import { parseHookLine } from "../../src/cli/hook-line.js";

// `notify hook` without commander (issue 33, item 2): the lines agents run parse as commander parsed them, and
// every other line is left to commander (undefined), so its errors and help stay the same.
describe("parseHookLine", () => {
  it("reads the agent, the event, the optional payload and the options, in any order", () => {
    expect(parseHookLine(["codex", "PostToolUse"])).toEqual({ agent: "codex", event: "PostToolUse" });
    expect(parseHookLine(["codex", "notify", '{"type":"agent-turn-complete"}'])).toEqual({
      agent: "codex",
      event: "notify",
      payload: '{"type":"agent-turn-complete"}',
    });
    expect(
      parseHookLine(["claude-code", "PermissionRequest", "--ttl", "120", "--data-dir=/data/it's here", "--port", "1"]),
    ).toEqual({ agent: "claude-code", event: "PermissionRequest", ttl: "120", dataDir: "/data/it's here", port: "1" });
    expect(parseHookLine(["--token", "t1", "codex", "--token=t2", "Stop"])).toEqual({
      agent: "codex",
      event: "Stop",
      token: "t2",
    });
    expect(parseHookLine(["codex", "Stop", "--ttl="])).toEqual({ agent: "codex", event: "Stop", ttl: "" });
  });

  it("leaves help, unknown options, missing values and wrong argument counts to commander", () => {
    for (const args of [
      [],
      ["codex"],
      ["codex", "Stop", "{}", "extra"],
      ["--help"],
      ["codex", "Stop", "-h"],
      ["codex", "Stop", "--verbose"],
      ["codex", "Stop", "--ttl"],
      ["codex", "Stop", "--port", "--ttl", "5"],
      ["codex", "Stop", "--", "x"],
      ["codex", "Stop", "-"],
      ["codex", "Stop", "--constructor", "x"],
    ]) {
      expect(parseHookLine(args), args.join(" ")).toBeUndefined();
    }
  });
});
