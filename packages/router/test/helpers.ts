import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type EncodeOptions,
  encodeSseEvent,
  type SseEvent,
  type StreamPart,
  sequentialIds,
  sseDecoderStream,
  type Upstream,
  type Usage,
  WIRE_CODECS,
  type Wire,
} from "../src/index.js";

/** An enabled chat-wire upstream record at `https://<slug>.example/v1` declaring `models`; `fields` override. */
export function upstreamRecord(slug: string, models: string[], fields: Partial<Upstream> = {}): Upstream {
  return {
    id: `ups_${slug}`,
    slug,
    label: slug,
    wire: "chat_wire",
    base_url: `https://${slug}.example/v1`,
    has_key: false,
    models,
    enabled: true,
    auth: "api_key",
    model_wires: {},
    credential_ref: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "",
    ...fields,
  };
}

const FIXTURES = fileURLToPath(new URL("./__fixtures__/", import.meta.url));

/** What a reply means, independent of framing: what the golden tests compare across wires. */
export interface Semantics {
  text: string;
  reasoning: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  usage: Usage | null;
  finish: string | null;
  error?: { code: string; message: string };
}

export interface FixtureExpectation extends Semantics {
  customToolNames?: string[];
}

export function fixtureChunks(name: string): string[] {
  return readFileSync(`${FIXTURES}${name}.chunks.txt`, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

export function fixtureExpectation(name: string): FixtureExpectation {
  return JSON.parse(readFileSync(`${FIXTURES}${name}.expected.json`, "utf8")) as FixtureExpectation;
}

/**
 * A fixture as the SSE text its upstream sends: on the responses and messages wires each event is named after its
 * `type`; the chat wire sends bare data lines and ends with `data: [DONE]`.
 */
export function renderSse(wire: Wire, chunks: string[], lineEnding = "\n"): string {
  return chunks
    .map((chunk) => {
      const event: SseEvent = { data: chunk };
      if (wire !== "chat") event.event = (JSON.parse(chunk) as { type: string }).type;
      return encodeSseEvent(event).replaceAll("\n", lineEnding);
    })
    .join("");
}

/** The bytes of `text` as a stream that delivers `size` bytes at a time (0: all at once). */
export function byteStream(text: string | Uint8Array, size = 0): ReadableStream<Uint8Array> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const step = size <= 0 ? Math.max(bytes.length, 1) : size;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + step));
      offset += step;
    },
  });
}

export async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const values: T[] = [];
  for await (const value of stream) values.push(value);
  return values;
}

export async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** SSE text of one wire through that wire's stream decoder. */
export async function decodeSse(wire: Wire, text: string, size = 0): Promise<StreamPart[]> {
  return readAll(byteStream(text, size).pipeThrough(sseDecoderStream()).pipeThrough(WIRE_CODECS[wire].decodeStream()));
}

export async function encodeParts(
  wire: Wire,
  parts: StreamPart[],
  options: Partial<EncodeOptions> = {},
): Promise<string> {
  const source = new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const frames = await readAll(source.pipeThrough(WIRE_CODECS[wire].encodeStream({ ...deterministic(), ...options })));
  return frames.join("");
}

/** Ids and clock fixed, so encoded streams can be compared byte for byte with checked-in files. */
export function deterministic(): EncodeOptions {
  return { model: "router-test-model", newId: sequentialIds(), now: () => 1_760_000_000_000 };
}

/**
 * Reduces parts to their meaning, checking on the way the shape every decoder promises: tool-call deltas only
 * between their start and end, text deltas only inside an open text, and exactly one terminal part, last.
 */
export function summarize(parts: StreamPart[]): Semantics {
  const summary: Semantics = { text: "", reasoning: "", toolCalls: [], usage: null, finish: null };
  const openTools = new Map<number, Semantics["toolCalls"][number]>();
  let textOpen = false;
  parts.forEach((part, position) => {
    const terminal = part.type === "finish" || part.type === "error";
    if (terminal && position !== parts.length - 1) throw new Error(`terminal part ${part.type} is not last`);
    switch (part.type) {
      case "text-start":
        if (textOpen) throw new Error("text-start inside open text");
        textOpen = true;
        break;
      case "text-delta":
        if (!textOpen) throw new Error("text-delta outside text");
        summary.text += part.text;
        break;
      case "text-end":
        if (!textOpen) throw new Error("text-end without text-start");
        textOpen = false;
        break;
      case "reasoning-delta":
        summary.reasoning += part.text;
        break;
      case "tool-call-start": {
        if (openTools.has(part.index)) throw new Error(`tool call ${part.index} started twice`);
        const call = { id: part.id, name: part.name, arguments: "" };
        openTools.set(part.index, call);
        summary.toolCalls.push(call);
        break;
      }
      case "tool-call-delta": {
        const call = openTools.get(part.index);
        if (call === undefined) throw new Error(`tool-call-delta for closed call ${part.index}`);
        call.arguments += part.json;
        break;
      }
      case "tool-call-end":
        if (!openTools.delete(part.index)) throw new Error(`tool-call-end for closed call ${part.index}`);
        break;
      case "usage":
        summary.usage = part.usage;
        break;
      case "finish":
        if (textOpen || openTools.size > 0) throw new Error("finish with open content");
        summary.finish = part.reason.unified;
        break;
      case "error":
        summary.error = { code: part.code, message: part.message };
        break;
    }
  });
  return summary;
}
