/**
 * Server-sent events, the framing of all three wires (WHATWG HTML, "Server-sent events", event stream
 * interpretation). One decoder: bytes, then lines (CR, LF or CRLF), then events split on blank lines, then fields.
 */

export interface SseEvent {
  /** The `event:` field; absent when the server named none (the chat wire never does). */
  event?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  id?: string;
}

/**
 * Bytes to events, synchronously. UTF-8 is decoded in streaming mode, so a character split across chunks survives;
 * a CR at the end of one chunk and an LF at the start of the next count as one line break.
 */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  private pendingCarriageReturn = false;
  private event: string | undefined;
  private id: string | undefined;
  private dataLines: string[] = [];
  private out: SseEvent[] = [];

  /** The events completed by this chunk. */
  push(chunk: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    this.drainLines();
    return this.take();
  }

  /**
   * The rest at the end of the stream. A last event without its blank line is still delivered: if it was cut short
   * its JSON fails to parse downstream, and if it was whole (a server that omits the final blank line) nothing is
   * lost.
   */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    this.drainLines();
    if (this.buffer !== "") this.handleLine(this.buffer);
    this.buffer = "";
    this.dispatch();
    return this.take();
  }

  private take(): SseEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  private dispatch(): void {
    if (this.dataLines.length > 0) {
      const parsed: SseEvent = { data: this.dataLines.join("\n") };
      if (this.event !== undefined) parsed.event = this.event;
      if (this.id !== undefined) parsed.id = this.id;
      this.out.push(parsed);
    }
    this.event = undefined;
    this.dataLines = [];
  }

  private handleLine(line: string): void {
    if (line === "") {
      this.dispatch();
      return;
    }
    if (line.startsWith(":")) return; // a comment, e.g. a keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.dataLines.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.id = value;
        break;
      default:
        break; // `retry` and unknown fields mean nothing to a proxy
    }
  }

  private drainLines(): void {
    const buffer = this.buffer;
    let start = 0;
    for (let position = 0; position < buffer.length; position += 1) {
      const character = buffer[position];
      if (character === "\n" && this.pendingCarriageReturn) {
        this.pendingCarriageReturn = false;
        start = position + 1;
        continue;
      }
      this.pendingCarriageReturn = false;
      if (character === "\r" || character === "\n") {
        this.handleLine(buffer.slice(start, position));
        this.pendingCarriageReturn = character === "\r";
        start = position + 1;
      }
    }
    this.buffer = buffer.slice(start);
  }
}

/** The same parser as a TransformStream, for the translation pipelines. */
export function sseDecoderStream(): TransformStream<Uint8Array, SseEvent> {
  const parser = new SseParser();
  return new TransformStream<Uint8Array, SseEvent>({
    transform(chunk, controller) {
      for (const event of parser.push(chunk)) controller.enqueue(event);
    },
    flush(controller) {
      for (const event of parser.end()) controller.enqueue(event);
    },
  });
}

/** One event as text, ready to write. Multi-line data becomes several `data:` lines. */
export function encodeSseEvent(event: SseEvent): string {
  let frame = "";
  if (event.event !== undefined) frame += `event: ${event.event}\n`;
  if (event.id !== undefined) frame += `id: ${event.id}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** A named event whose data is the JSON of `payload` (the responses and messages wires). */
export function namedJsonEvent(name: string, payload: unknown): string {
  return encodeSseEvent({ event: name, data: JSON.stringify(payload) });
}

/** An unnamed event whose data is the JSON of `payload` (the chat wire). */
export function jsonEvent(payload: unknown): string {
  return encodeSseEvent({ data: JSON.stringify(payload) });
}
