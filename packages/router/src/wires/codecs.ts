import type { DecodedRequest, Reply, Request, StreamPart, Wire } from "../ir.js";
import type { SseEvent } from "../sse.js";
import { decodeChatRequest } from "./chat/decode-request.js";
import { decodeChatResponse } from "./chat/decode-response.js";
import { decodeChatStream } from "./chat/decode-stream.js";
import { encodeChatRequest } from "./chat/encode-request.js";
import { encodeChatResponse } from "./chat/encode-response.js";
import { encodeChatStream } from "./chat/encode-stream.js";
import type { EncodeOptions } from "./encode-options.js";
import { decodeMessagesRequest } from "./messages/decode-request.js";
import { decodeMessagesResponse } from "./messages/decode-response.js";
import { decodeMessagesStream } from "./messages/decode-stream.js";
import { encodeMessagesRequest } from "./messages/encode-request.js";
import { encodeMessagesResponse } from "./messages/encode-response.js";
import { encodeMessagesStream } from "./messages/encode-stream.js";
import { decodeResponsesRequest } from "./responses/decode-request.js";
import { decodeResponsesResponse } from "./responses/decode-response.js";
import { decodeResponsesStream } from "./responses/decode-stream.js";
import { encodeResponsesRequest } from "./responses/encode-request.js";
import { encodeResponsesResponse } from "./responses/encode-response.js";
import { encodeResponsesStream } from "./responses/encode-stream.js";

/** The six converters of one wire. Three of these give all nine translation pairs. */
export interface WireCodec {
  decodeRequest(body: unknown): DecodedRequest;
  encodeRequest(request: Request): object;
  decodeStream(): TransformStream<SseEvent, StreamPart>;
  encodeStream(options: EncodeOptions): TransformStream<StreamPart, string>;
  decodeResponse(body: unknown): Reply;
  encodeResponse(reply: Reply, options: EncodeOptions): object;
}

export const WIRE_CODECS: Readonly<Record<Wire, WireCodec>> = {
  responses: {
    // Through a codec the request always crosses to another wire: a same-wire hop is passthrough, not decoded.
    decodeRequest: (body) => decodeResponsesRequest(body, { translatedHop: true }),
    encodeRequest: encodeResponsesRequest,
    decodeStream: decodeResponsesStream,
    encodeStream: encodeResponsesStream,
    decodeResponse: decodeResponsesResponse,
    encodeResponse: encodeResponsesResponse,
  },
  chat: {
    decodeRequest: decodeChatRequest,
    encodeRequest: encodeChatRequest,
    decodeStream: decodeChatStream,
    encodeStream: encodeChatStream,
    decodeResponse: decodeChatResponse,
    encodeResponse: encodeChatResponse,
  },
  messages: {
    decodeRequest: decodeMessagesRequest,
    encodeRequest: encodeMessagesRequest,
    decodeStream: decodeMessagesStream,
    encodeStream: encodeMessagesStream,
    decodeResponse: decodeMessagesResponse,
    encodeResponse: encodeMessagesResponse,
  },
};
