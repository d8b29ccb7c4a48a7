// A question's context (docs/api.md, "Item context"): checked once, and cut to fit the phone's sealed envelope
// (docs/relay.md, "The question payload"), where the relay's own schema accepts what the broker sends.
import { describe, expect, it } from "vitest";
import { checkItemContext, contextBytes, fitItemContext, type ItemContext } from "../src/item-context.js";
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
    const sealed = payload.interaction.context;
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
});
