import type { Transformer } from "node:stream/web";
import type { StreamPart, Wire } from "../ir.js";
import type { SseEvent } from "../sse.js";
import { decodeChatStreamTransformer } from "./chat/decode-stream.js";
import { encodeChatStreamTransformer } from "./chat/encode-stream.js";
import type { EncodeOptions } from "./encode-options.js";
import { decodeMessagesStreamTransformer } from "./messages/decode-stream.js";
import { encodeMessagesStreamTransformer } from "./messages/encode-stream.js";
import { decodeResponsesStreamTransformer } from "./responses/decode-stream.js";
import { encodeResponsesStreamTransformer } from "./responses/encode-stream.js";

/** The stream decoders and encoders of each wire as plain transformers (see SyncTransform). */
export const STREAM_TRANSFORMERS: Readonly<
  Record<
    Wire,
    {
      decode(): Transformer<SseEvent, StreamPart>;
      encode(options: EncodeOptions): Transformer<StreamPart, string>;
    }
  >
> = {
  responses: { decode: decodeResponsesStreamTransformer, encode: encodeResponsesStreamTransformer },
  chat: { decode: decodeChatStreamTransformer, encode: encodeChatStreamTransformer },
  messages: { decode: decodeMessagesStreamTransformer, encode: encodeMessagesStreamTransformer },
};
