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

/** What a scanner hands over per event: its `event:` field, its data, and the last `id:` seen so far. */
export type SseListener = (event: string | undefined, data: string, id: string | undefined) => void;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/** True when bytes[start..end) begins with the ASCII field `name` followed by a colon or the line's end. */
function isField(bytes: Buffer, start: number, end: number, name: string): boolean {
  const after = start + name.length;
  if (after > end || (after < end && bytes[after] !== COLON)) return false;
  for (let index = 0; index < name.length; index += 1) {
    if (bytes[start + index] !== name.charCodeAt(index)) return false;
  }
  return true;
}

/**
 * Bytes to events, synchronously, read in bytes: line ends (CR, LF or CRLF, also across chunks) are found in the
 * chunk's bytes, and only the values of `data:`, `event:` and `id:` lines become strings; no whole chunk is decoded
 * and no line or event object is made. A value is decoded as UTF-8 once its line is complete, so a character split
 * across chunks survives. A byte order mark at the very start is skipped, as a UTF-8 decoder does.
 */
export class SseScanner {
  /** The bytes of a line not yet ended (copied: the caller's chunk is not kept). */
  private carry: Buffer | undefined;
  private pendingCarriageReturn = false;
  private started = false;
  private event: string | undefined;
  private data: string | undefined;
  private id: string | undefined;

  constructor(private readonly onEvent: SseListener) {}

  push(chunk: Uint8Array): void {
    let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.carry !== undefined) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = undefined;
    }
    let start = 0;
    if (!this.started) {
      // A byte order mark may itself arrive split: wait for three bytes (or fewer that are not its start).
      const bom = [0xef, 0xbb, 0xbf];
      const seen = Math.min(bytes.length, 3);
      let prefix = true;
      for (let index = 0; index < seen; index += 1) if (bytes[index] !== bom[index]) prefix = false;
      if (prefix && seen < 3) {
        this.carry = Buffer.from(bytes);
        return;
      }
      this.started = true;
      if (prefix) start = 3;
    }
    const length = bytes.length;
    let lineStart = start;
    if (this.pendingCarriageReturn && start < length) {
      this.pendingCarriageReturn = false;
      if (bytes[start] === LF) lineStart = start + 1;
    }
    if (bytes.indexOf(CR, lineStart) === -1) {
      // The usual case, LF only: native search instead of a loop over every byte.
      for (let end = bytes.indexOf(LF, lineStart); end !== -1; end = bytes.indexOf(LF, lineStart)) {
        this.line(bytes, lineStart, end);
        lineStart = end + 1;
      }
    } else {
      for (let position = lineStart; position < length; position += 1) {
        const byte = bytes[position];
        if (byte === LF && this.pendingCarriageReturn) {
          this.pendingCarriageReturn = false;
          lineStart = position + 1;
          continue;
        }
        this.pendingCarriageReturn = false;
        if (byte === CR || byte === LF) {
          this.line(bytes, lineStart, position);
          this.pendingCarriageReturn = byte === CR;
          lineStart = position + 1;
        }
      }
    }
    if (lineStart < length) this.carry = Buffer.from(bytes.subarray(lineStart));
  }

  /**
   * The rest at the end of the stream. A last event without its blank line is still delivered: if it was cut short
   * its JSON fails to parse downstream, and if it was whole (a server that omits the final blank line) nothing is
   * lost.
   */
  end(): void {
    const carry = this.carry;
    this.carry = undefined;
    if (carry !== undefined && carry.length > 0) this.line(carry, 0, carry.length);
    this.dispatch();
  }

  private dispatch(): void {
    if (this.data !== undefined) this.onEvent(this.event, this.data, this.id);
    this.event = undefined;
    this.data = undefined;
  }

  private line(bytes: Buffer, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    const first = bytes[start];
    if (first === COLON) return; // a comment, e.g. a keep-alive
    let field: "data" | "event" | "id";
    if (first === 0x64 && isField(bytes, start, end, "data")) field = "data";
    else if (first === 0x65 && isField(bytes, start, end, "event")) field = "event";
    else if (first === 0x69 && isField(bytes, start, end, "id")) field = "id";
    else return; // `retry` and unknown fields mean nothing to a proxy
    let valueStart = start + field.length + 1;
    if (valueStart < end && bytes[valueStart] === SPACE) valueStart += 1;
    const value = valueStart >= end ? "" : bytes.toString("utf8", valueStart, end);
    if (field === "data") this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (field === "event") this.event = value;
    else if (!value.includes("\0")) this.id = value;
  }
}

/** Bytes to event objects, synchronously (the scanner, collecting what each chunk completes). */
export class SseParser {
  private out: SseEvent[] = [];
  private readonly scanner = new SseScanner((event, data, id) => {
    const parsed: SseEvent = { data };
    if (event !== undefined) parsed.event = event;
    if (id !== undefined) parsed.id = id;
    this.out.push(parsed);
  });

  /** The events completed by this chunk. */
  push(chunk: Uint8Array): SseEvent[] {
    this.scanner.push(chunk);
    return this.take();
  }

  /** The rest at the end of the stream (see SseScanner.end). */
  end(): SseEvent[] {
    this.scanner.end();
    return this.take();
  }

  private take(): SseEvent[] {
    const events = this.out;
    if (events.length === 0) return NO_EVENTS;
    this.out = [];
    return events;
  }
}

/** What a chunk that completes no event yields: one shared empty list instead of a new one per chunk. */
const NO_EVENTS: SseEvent[] = Object.freeze([]) as unknown as SseEvent[];

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
