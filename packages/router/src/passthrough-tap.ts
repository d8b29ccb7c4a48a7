import type { RelayedStreamState } from "./http/wire-errors.js";
import type { StreamPart, Usage, Wire } from "./ir.js";
import { isObject, parseObject } from "./json.js";
import { SseScanner } from "./sse.js";
import {
  malformedChunkPart,
  TRUNCATED_STREAM_MESSAGE,
  truncatedStreamPart,
  upstreamErrorPart,
} from "./upstream-error.js";
import { decodeChatUsage } from "./wires/chat/usage.js";
import { decodeMessagesUsage } from "./wires/messages/usage.js";
import { decodeResponsesUsage } from "./wires/responses/usage.js";

type ErrorPart = Extract<StreamPart, { type: "error" }>;

/**
 * What the ledger needs from a stream relayed byte for byte: its usage, whether it reached its terminal event, the
 * upstream's own error, and (responses wire) the response id and last sequence number, so a broken stream can be
 * ended with events that continue its numbering. Synchronous and allocation-light: the relay writes each chunk and
 * hands it here, with no second stream pipeline (the full decoders serve translated streams).
 */
export class PassthroughTap {
  private readonly scanner = new SseScanner((event, data) => this.onEvent(event, data));
  private finished = false;
  usage: Usage | undefined;
  failure: ErrorPart | undefined;
  readonly relayed: RelayedStreamState = {};
  /** Messages wire: usage arrives in pieces (message_start, then cumulative message_delta). */
  private messagesUsage: Record<string, number> = {};

  constructor(private readonly wire: Wire) {}

  push(chunk: Uint8Array): void {
    this.scanner.push(chunk);
  }

  /** Call when the upstream body ended: a stream without its terminal event is a failure (truncated). */
  end(): void {
    this.scanner.end();
    if (!this.finished) this.failure ??= truncatedStreamPart() as ErrorPart;
  }

  get truncated(): boolean {
    return this.failure?.message === TRUNCATED_STREAM_MESSAGE;
  }

  private fail(part: ErrorPart): void {
    this.failure ??= part;
    this.finished = true;
  }

  private onEvent(name: string | undefined, data: string): void {
    if (this.finished) return;
    if (this.wire === "chat" && data.trim() === "[DONE]") {
      this.finished = true;
      return;
    }
    const parsed = parseObject(data);
    if (parsed === undefined) {
      this.fail(malformedChunkPart() as ErrorPart);
      return;
    }
    switch (this.wire) {
      case "chat": {
        if (parsed.error !== undefined) {
          this.fail(upstreamErrorPart(parsed) as ErrorPart);
          return;
        }
        if (parsed.usage !== undefined && parsed.usage !== null)
          this.usage = decodeChatUsage(parsed.usage) ?? this.usage;
        return;
      }
      case "messages": {
        const type = name ?? (typeof parsed.type === "string" ? parsed.type : undefined);
        if (type === "error") {
          this.fail(upstreamErrorPart(parsed) as ErrorPart);
          return;
        }
        const reported = type === "message_start" && isObject(parsed.message) ? parsed.message.usage : parsed.usage;
        if (isObject(reported)) {
          for (const [key, value] of Object.entries(reported))
            if (typeof value === "number") this.messagesUsage[key] = value;
          this.usage = decodeMessagesUsage(this.messagesUsage) ?? this.usage;
        }
        if (type === "message_stop") this.finished = true;
        return;
      }
      case "responses": {
        if (typeof parsed.sequence_number === "number") this.relayed.lastSequence = parsed.sequence_number;
        const response = isObject(parsed.response) ? parsed.response : undefined;
        if (typeof response?.id === "string") this.relayed.responseId = response.id;
        const type = typeof parsed.type === "string" ? parsed.type : name;
        if (type === "error") {
          this.fail(upstreamErrorPart(parsed) as ErrorPart);
          return;
        }
        if (type === "response.failed") {
          this.fail(upstreamErrorPart(response) as ErrorPart);
          return;
        }
        if (type === "response.completed" || type === "response.incomplete") {
          this.usage = decodeResponsesUsage(response?.usage) ?? this.usage;
          this.finished = true;
        }
        return;
      }
      default: {
        const _exhaustive: never = this.wire;
        throw new Error(`unknown wire ${String(_exhaustive)}`);
      }
    }
  }
}
