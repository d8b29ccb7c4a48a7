import { describe, expect, it } from "vitest";
import { encodeSseEvent, type SseEvent, sseDecoderStream } from "../src/index.js";
import { byteStream, readAll } from "./helpers.js";

async function decode(input: string | Uint8Array, size = 0): Promise<SseEvent[]> {
  return readAll(byteStream(input, size).pipeThrough(sseDecoderStream()));
}

/** Every way of cutting `input` into two pieces, and into pieces of every size up to 16 bytes. */
async function expectSameAtEveryBoundary(input: string, expected: SseEvent[]) {
  const bytes = new TextEncoder().encode(input);
  for (let size = 1; size <= 16; size += 1) expect(await decode(bytes, size), `every ${size} bytes`).toEqual(expected);
  for (let cut = 0; cut <= bytes.length; cut += 1) {
    const pieces = [bytes.slice(0, cut), bytes.slice(cut)];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    expect(await readAll(stream.pipeThrough(sseDecoderStream())), `cut at byte ${cut}`).toEqual(expected);
  }
}

describe("SSE decoder (WHATWG event stream interpretation)", () => {
  it("splits events on blank lines and reads event and data fields", async () => {
    expect(await decode("event: ping\ndata: {}\n\ndata: second\n\n")).toEqual([
      { event: "ping", data: "{}" },
      { data: "second" },
    ]);
  });

  it("accepts LF, CRLF and CR line endings, mixed", async () => {
    const expected = [{ event: "a", data: "1" }, { data: "2" }, { event: "c", data: "3" }];
    expect(await decode("event: a\r\ndata: 1\r\n\r\ndata: 2\r\revent: c\ndata: 3\n\n")).toEqual(expected);
  });

  it("joins multi-line data with LF", async () => {
    expect(await decode("data: first\ndata:second\ndata:  third\n\n")).toEqual([{ data: "first\nsecond\n third" }]);
  });

  it("skips comments, unknown fields and retry, and ignores events without data", async () => {
    expect(await decode(": keep-alive\nretry: 100\nfoo: bar\n\nevent: empty\n\ndata: x\n\n")).toEqual([{ data: "x" }]);
  });

  it("reads a field line without a colon as a field with an empty value", async () => {
    expect(await decode("data\n\n")).toEqual([{ data: "" }]);
  });

  it("keeps the id field", async () => {
    expect(await decode("id: 42\ndata: x\n\n")).toEqual([{ id: "42", data: "x" }]);
  });

  it("strips a leading byte order mark", async () => {
    expect(await decode(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("data: x\n\n")]))).toEqual([
      { data: "x" },
    ]);
  });

  it("strips the byte order mark at the start only, wherever the chunks split it", async () => {
    await expectSameAtEveryBoundary("\uFEFFdata: x\n\ndata: \uFEFFy\n\n", [{ data: "x" }, { data: "\uFEFFy" }]);
  });

  it("delivers a last event whose blank line never came", async () => {
    expect(await decode("data: one\n\ndata: two")).toEqual([{ data: "one" }, { data: "two" }]);
  });

  it("gives the same events whatever the byte boundaries, including inside multi-byte characters", async () => {
    const input = 'event: delta\r\ndata: {"text":"héllo — 世界 🌍"}\r\n\r\ndata: ✓\rdata: 𝄞\r\r: c\n\n';
    await expectSameAtEveryBoundary(input, [{ event: "delta", data: '{"text":"héllo — 世界 🌍"}' }, { data: "✓\n𝄞" }]);
  });

  it("treats a CR at the end of one chunk and an LF at the start of the next as one line break", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const encoder = new TextEncoder();
        controller.enqueue(encoder.encode("data: a\r"));
        controller.enqueue(encoder.encode("\ndata: b\r"));
        controller.enqueue(encoder.encode("\n\r"));
        controller.enqueue(encoder.encode("\n"));
        controller.close();
      },
    });
    expect(await readAll(stream.pipeThrough(sseDecoderStream()))).toEqual([{ data: "a\nb" }]);
  });
});

describe("SSE encoder", () => {
  it("writes named and unnamed events that the decoder reads back", async () => {
    const events: SseEvent[] = [
      { event: "message_start", data: '{"a":1}' },
      { data: "line one\nline two" },
      { data: "" },
    ];
    const text = events.map(encodeSseEvent).join("");
    expect(text).toBe('event: message_start\ndata: {"a":1}\n\ndata: line one\ndata: line two\n\ndata: \n\n');
    expect(await decode(text, 3)).toEqual(events);
  });
});
