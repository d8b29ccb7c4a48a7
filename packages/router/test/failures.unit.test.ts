import { describe, expect, it, vi } from "vitest";
import { translateStream, WIRES, type Wire } from "../src/index.js";
import { byteStream, decodeSse, deterministic, fixtureChunks, readText, renderSse, summarize } from "./helpers.js";

const translate = (upstream: Wire, client: Wire, source: ReadableStream<Uint8Array>) =>
  readText(translateStream(upstream, client, source, { ...deterministic(), includeUsage: true }));

/** The last SSE event of a client stream, as the wire writes its failure. */
function lastEvent(text: string): { event?: string; data: string } {
  const frames = text.trimEnd().split("\n\n");
  const lines = (frames.at(-1) ?? "").split("\n");
  const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
  const data = lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "";
  return event === undefined ? { data } : { event, data };
}

/**
 * docs/router.md, "Failover and cooldowns", rule 4: a committed stream that fails ends with the wire's own error event.
 */
function expectWireError(client: Wire, output: string) {
  const last = lastEvent(output);
  switch (client) {
    case "responses":
      expect(last.event).toBe("response.failed");
      expect(JSON.parse(last.data).response.status).toBe("failed");
      break;
    case "messages":
      expect(last.event).toBe("error");
      expect(JSON.parse(last.data).type).toBe("error");
      break;
    case "chat":
      expect(JSON.parse(last.data).error.code).toBe("upstream_error");
      expect(output).not.toContain("[DONE]");
      break;
  }
}

describe.each(WIRES)("a %s upstream stream", (upstream) => {
  const chunks = fixtureChunks(`${upstream}-tool-calls`);

  it("cut off at any event boundary before its terminal event decodes to an error part, never a finish", async () => {
    for (let kept = 0; kept < chunks.length; kept += 1) {
      const parts = await decodeSse(upstream, renderSse(upstream, chunks.slice(0, kept)));
      const summary = summarize(parts);
      expect(summary.finish, `cut after ${kept} events`).toBeNull();
      expect(summary.error?.code).toBe("upstream_error");
    }
  });

  it("cut off in the middle of an event decodes to an error part", async () => {
    const sse = renderSse(upstream, chunks);
    for (const cut of [10, Math.floor(sse.length / 3), sse.length - 20]) {
      const summary = summarize(await decodeSse(upstream, sse.slice(0, cut), 7));
      expect(summary.finish).toBeNull();
      expect(summary.error).toBeDefined();
    }
  });

  it("with a malformed chunk yields an error part instead of throwing", async () => {
    const malformed = "data: {not json\n\n";
    const sse = `${renderSse(upstream, chunks.slice(0, 4))}${malformed}${renderSse(upstream, chunks.slice(4))}`;
    const parts = await decodeSse(upstream, sse, 13);
    expect(parts.at(-1)).toEqual({
      type: "error",
      code: "upstream_error",
      message: "upstream sent a chunk that is not a JSON object",
    });
  });

  describe.each(WIRES)("translated to a %s client", (client) => {
    it("ends with the client wire's error event when the upstream is truncated", async () => {
      const sse = renderSse(upstream, chunks.slice(0, Math.floor(chunks.length / 2)));
      expectWireError(client, await translate(upstream, client, byteStream(sse, 7)));
    });

    it("ends with the client wire's error event when the upstream connection fails", async () => {
      const bytes = new TextEncoder().encode(renderSse(upstream, chunks.slice(0, 5)));
      const failing = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.error(new Error("socket hang up"));
        },
      });
      const output = await translate(upstream, client, failing);
      expectWireError(client, output);
      expect(output).not.toContain("socket hang up");
    });
  });
});

describe("an error the upstream reports mid-stream", () => {
  // docs/router.md, "Errors", rule 1: never the provider's message, only its short code.
  const cases: { wire: Wire; sse: string }[] = [
    {
      wire: "messages",
      sse: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded secret detail"}}\n\n',
    },
    {
      wire: "responses",
      sse: 'event: response.failed\ndata: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"secret detail"}}}\n\n',
    },
    {
      wire: "responses",
      sse: 'event: error\ndata: {"type":"error","sequence_number":2,"code":"rate_limit_exceeded","message":"secret detail"}\n\n',
    },
    {
      wire: "chat",
      sse: 'data: {"error":{"message":"secret detail","type":"server_error","code":"internal_error"}}\n\n',
    },
  ];

  it.each(cases)("on the $wire wire becomes an error part carrying only the provider's code", async ({ wire, sse }) => {
    const parts = await decodeSse(wire, sse);
    expect(parts).toHaveLength(1);
    const [part] = parts;
    expect(part?.type).toBe("error");
    expect(JSON.stringify(part)).not.toContain("secret detail");
    expect(JSON.stringify(part)).toMatch(/\((overloaded_error|server_error|rate_limit_exceeded|internal_error)\)/);
  });

  it.each(WIRES)("reaches a %s client as its wire's error event", async (client) => {
    const sse = cases[0]?.sse ?? "";
    const output = await translate("messages", client, byteStream(sse));
    expectWireError(client, output);
    expect(output).not.toContain("secret detail");
  });
});

describe("cancellation", () => {
  it("a client that stops reading cancels the upstream body", async () => {
    let cancelled = false;
    const upstream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const reader = translateStream("chat", "messages", upstream, deterministic()).getReader();
    await reader.read();
    await reader.cancel();
    // Cancellation travels up the pipe chain asynchronously.
    await vi.waitFor(() => expect(cancelled).toBe(true), { timeout: 10_000 });
  });
});
