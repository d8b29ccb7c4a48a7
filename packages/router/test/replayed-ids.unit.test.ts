import { describe, expect, it } from "vitest";
import { stripReplayedIds } from "../src/index.js";

describe("replayed conversation identifiers (docs/router.md, 'Passthrough')", () => {
  it("strips identifiers the wire cannot accept and drops such reasoning items whole", () => {
    const body = {
      model: "gpt-5",
      input: [
        { type: "message", id: "msg_ok-1", role: "user", content: "hi" },
        { type: "reasoning", id: "rs_good", summary: [] },
        { type: "reasoning", id: "rs:from/another.vendor", summary: [], encrypted_content: "x" },
        { type: "function_call", id: "toolu_01/abc", call_id: "c", name: "f", arguments: "{}" },
        { type: "message", id: "", role: "assistant", content: "" },
        { type: "function_call_output", call_id: "c", output: "ok" },
      ],
    };
    const stripped = stripReplayedIds(body);
    expect(stripped.count).toBe(3);
    expect(stripped.body.input).toEqual([
      { type: "message", id: "msg_ok-1", role: "user", content: "hi" },
      { type: "reasoning", id: "rs_good", summary: [] },
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      { type: "message", role: "assistant", content: "" },
      { type: "function_call_output", call_id: "c", output: "ok" },
    ]);
    expect(body.input).toHaveLength(6); // the caller's body is not changed in place
  });

  it("never touches a body whose identifiers are all acceptable", () => {
    const body = { model: "m", input: [{ type: "message", id: "msg_1", role: "user", content: "hi" }] };
    const stripped = stripReplayedIds(body);
    expect(stripped).toEqual({ body, count: 0 });
    expect(stripped.body).toBe(body);
    expect(stripReplayedIds({ model: "m", input: "text" }).count).toBe(0);
  });
});
