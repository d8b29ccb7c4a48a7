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
 * Bytes to events. UTF-8 is decoded in streaming mode, so a character split across chunks survives; a CR at the end
 * of one chunk and an LF at the start of the next count as one line break.
 */
export function sseDecoderStream(): TransformStream<Uint8Array, SseEvent> {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let pendingCarriageReturn = false;
  let event: string | undefined;
  let id: string | undefined;
  let dataLines: string[] = [];

  const dispatch = (controller: TransformStreamDefaultController<SseEvent>) => {
    if (dataLines.length > 0) {
      const parsed: SseEvent = { data: dataLines.join("\n") };
      if (event !== undefined) parsed.event = event;
      if (id !== undefined) parsed.id = id;
      controller.enqueue(parsed);
    }
    event = undefined;
    dataLines = [];
  };

  const handleLine = (line: string, controller: TransformStreamDefaultController<SseEvent>) => {
    if (line === "") return dispatch(controller);
    if (line.startsWith(":")) return; // a comment, e.g. a keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        dataLines.push(value);
        break;
      case "event":
        event = value;
        break;
      case "id":
        if (!value.includes("\0")) id = value;
        break;
      default:
        break; // `retry` and unknown fields mean nothing to a proxy
    }
  };

  const drainLines = (controller: TransformStreamDefaultController<SseEvent>) => {
    let start = 0;
    for (let position = 0; position < buffer.length; position += 1) {
      const character = buffer[position];
      if (character === "\n" && pendingCarriageReturn) {
        pendingCarriageReturn = false;
        start = position + 1;
        continue;
      }
      pendingCarriageReturn = false;
      if (character === "\r" || character === "\n") {
        handleLine(buffer.slice(start, position), controller);
        pendingCarriageReturn = character === "\r";
        start = position + 1;
      }
    }
    buffer = buffer.slice(start);
  };

  return new TransformStream<Uint8Array, SseEvent>({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      drainLines(controller);
    },
    flush(controller) {
      buffer += decoder.decode();
      drainLines(controller);
      // A last event without its blank line is still delivered: if it was cut short its JSON fails to parse and
      // becomes an error part, and if it was whole (a server that omits the final blank line) nothing is lost.
      if (buffer !== "") handleLine(buffer, controller);
      buffer = "";
      dispatch(controller);
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
