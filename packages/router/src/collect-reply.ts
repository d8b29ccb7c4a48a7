import type { Reply, ReplyPart, StreamPart, Usage } from "./ir.js";

export type CollectedReply = { ok: true; reply: Reply } | { ok: false; code: string; message: string };

/**
 * Gathers a stream of parts into one reply: for a client that asked for one response from an upstream that only
 * streams (docs/router.md, "`plan_signin_a`: the sign-in's own backend"), and for checking streams in tests.
 */
export async function collectReply(parts: ReadableStream<StreamPart>): Promise<CollectedReply> {
  const content: ReplyPart[] = [];
  const toolCalls = new Map<number, Extract<ReplyPart, { type: "tool-call" }>>();
  let usage: Usage | undefined;
  const appendText = (type: "text" | "reasoning", text: string) => {
    const last = content.at(-1);
    if (last?.type === type) last.text += text;
    else content.push({ type, text });
  };
  for await (const part of parts) {
    switch (part.type) {
      case "text-start":
        content.push({ type: "text", text: "" });
        break;
      case "text-delta":
        appendText("text", part.text);
        break;
      case "reasoning-delta":
        appendText("reasoning", part.text);
        break;
      case "tool-call-start": {
        const call = { type: "tool-call" as const, id: part.id, name: part.name, argumentsJson: "" };
        toolCalls.set(part.index, call);
        content.push(call);
        break;
      }
      case "tool-call-delta": {
        const call = toolCalls.get(part.index);
        if (call !== undefined) call.argumentsJson += part.json;
        break;
      }
      case "text-end":
      case "tool-call-end":
        break;
      case "usage":
        usage = part.usage;
        break;
      case "finish": {
        const reply: Reply = {
          content: content.filter((entry) => entry.type !== "text" || entry.text !== ""),
          finish: part.reason,
        };
        if (usage !== undefined) reply.usage = usage;
        return { ok: true, reply };
      }
      case "error":
        return { ok: false, code: part.code, message: part.message };
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown stream part ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  return { ok: false, code: "upstream_error", message: "stream ended without a finish part" };
}
