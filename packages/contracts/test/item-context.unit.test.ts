// A question's context (docs/api.md, "Item context"): checked once, and cut to fit the phone's sealed envelope
// (docs/relay.md, "The question payload"), where the relay's own schema accepts what the broker sends.
import { describe, expect, it } from "vitest";
import {
  checkItemContext,
  contextBytes,
  contextSummary,
  fitItemContext,
  type ItemContext,
  type ToolContext,
  type TurnContext,
} from "../src/item-context.js";
import { interactionRequestPayload, RELAY_CONTEXT_MAX_BYTES } from "../src/relay/payloads.js";
import { validateRelayInteractionRequest } from "../src/validate.js";

const question = {
  id: "int_1",
  key: "claude-code:session:s1",
  agent: "claude-code",
  kind: "text" as const,
  prompt: "Turn done.",
  choices: [],
  text_max_length: 2000,
  status: "pending" as const,
  request_digest: "a".repeat(64),
  nonce: "n1",
  created_at: "2026-11-28T03:00:00.000Z",
  expires_at: "2026-11-28T03:15:00.000Z",
};

function turn(messages: number, size: number): ItemContext {
  const checked = checkItemContext({
    kind: "turn",
    duration_ms: 61_000,
    messages: Array.from({ length: messages }, (_, index) => ({
      role: index % 2 === 0 ? "user" : "assistant",
      text: `${index}:${"é".repeat(size)}`,
    })),
  });
  if (!checked.ok) throw new Error(checked.error);
  return checked.value;
}

describe("item context", () => {
  it("bytes is the UTF-8 size of the stored JSON", () => {
    const context = turn(2, 10);
    expect(context.bytes).toBe(Buffer.byteLength(JSON.stringify({ ...context, bytes: 0 })));
    expect(contextBytes(context)).toBe(context.bytes);
  });

  it("a small context goes into the envelope whole, and the relay's schema takes the payload", () => {
    const context = turn(3, 20);
    const payload = interactionRequestPayload(question as never, context);
    expect(payload.interaction.context).toEqual(context);
    expect(validateRelayInteractionRequest(payload).ok).toBe(true);
  });

  it("a large one loses its oldest messages until it fits, and says it was cut", () => {
    const context = turn(8, 3990);
    expect(context.bytes).toBeGreaterThan(RELAY_CONTEXT_MAX_BYTES);
    const payload = interactionRequestPayload(question as never, context);
    const sealed = payload.interaction.context as TurnContext | undefined;
    expect(sealed?.truncated).toBe(true);
    expect(sealed?.bytes).toBeLessThanOrEqual(RELAY_CONTEXT_MAX_BYTES);
    // The newest messages are the ones kept.
    expect(sealed?.messages.at(-1)?.text.startsWith("7:")).toBe(true);
    expect(sealed?.messages.length).toBeLessThan(8);
    expect(validateRelayInteractionRequest(payload).ok).toBe(true);
  });

  it("no context: the payload has none", () => {
    expect("context" in interactionRequestPayload(question as never).interaction).toBe(false);
    expect(fitItemContext(turn(0, 0), 10)).toBeUndefined();
  });

  it("a diff: each file keeps its header and counts, lines go from the end, and each file says how many", () => {
    const lines = (sign: string, count: number) =>
      Array.from({ length: count }, (_, index) => `${sign}line ${index} ${"x".repeat(60)}`).join("\n");
    const checked = checkItemContext({
      kind: "diff",
      files: [
        { path: "src/a.ts", status: "modified", added: 400, removed: 0, diff: `@@ -1,0 +1,400 @@\n${lines("+", 400)}` },
        { path: "src/b.ts", status: "added", added: 400, removed: 0, diff: `@@ -0,0 +1,400 @@\n${lines("+", 400)}` },
      ],
    });
    if (!checked.ok) throw new Error(checked.error);
    const fitted = fitItemContext(checked.value, RELAY_CONTEXT_MAX_BYTES) as ToolContext;
    expect(fitted.bytes).toBeLessThanOrEqual(RELAY_CONTEXT_MAX_BYTES);
    expect(fitted.truncated).toBe(true);
    const [a, b] = fitted.files ?? [];
    expect(a).toMatchObject({ path: "src/a.ts", added: 400, removed: 0 });
    expect(b).toMatchObject({ path: "src/b.ts", status: "added", added: 400 });
    // The first file is shown further than the second; together the cut lines and the shown ones are all of them.
    const shown = (file?: { diff: string }) => (file?.diff === "" ? 0 : (file?.diff.split("\n").length ?? 0));
    expect(shown(a) + (a?.cut_lines ?? 0)).toBe(401);
    expect(shown(b) + (b?.cut_lines ?? 0)).toBe(401);
    expect(b?.cut_lines).toBeGreaterThan(0);
    expect(fitted.bytes).toBe(contextBytes(fitted));
    const payload = interactionRequestPayload(question as never, checked.value);
    expect(validateRelayInteractionRequest(payload).ok).toBe(true);
    expect(contextSummary(checked.value)).toBe("src/a.ts +400 -0, 1 more file");
  });

  it("a command: cut at its end with the marker; each kind needs its field", () => {
    const checked = checkItemContext({
      kind: "command",
      command: `echo ${"y".repeat(60_000)}`,
      cwd: "/w",
      reason: "r",
    });
    if (!checked.ok) throw new Error(checked.error);
    const fitted = fitItemContext(checked.value, 4096) as ToolContext;
    expect(fitted.bytes).toBeLessThanOrEqual(4096);
    expect(fitted.command).toMatch(/^echo y+\n… \[cut: \d+ more characters not shown\]$/);
    expect(contextSummary(checked.value)).toBe(`echo ${"y".repeat(60_000)}`);
    expect(checkItemContext({ kind: "diff" })).toEqual({ ok: false, error: "$.files: required for kind diff" });
    expect(checkItemContext({ kind: "url", url: 3 })).toEqual({ ok: false, error: "$.url: expected a string" });
    expect(checkItemContext({ kind: "diff", files: [{ path: "a", status: "renamed" }] })).toEqual({
      ok: false,
      error: "$.files[0].status: expected one of added, modified, deleted",
    });
  });
});
