import type { StreamPart } from "./ir.js";
import { isObject } from "./json.js";

const PROVIDER_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The provider's short error code, when it has one we may repeat (docs/router.md, "Errors", rule 1): taken from
 * `error.code`, `error.type`, `detail.code`, or a top-level `code` or `type`, and only when it is an identifier of at
 * most 64 characters from [A-Za-z0-9_.-]. The provider's own message is never read.
 */
export function providerErrorCode(body: unknown, secrets: readonly string[] = []): string | undefined {
  if (!isObject(body)) return undefined;
  const error = isObject(body.error) ? body.error : undefined;
  const detail = isObject(body.detail) ? body.detail : undefined;
  const candidates = [error?.code, error?.type, detail?.code, body.code, body.type];
  for (const candidate of candidates) {
    if (typeof candidate === "string" && PROVIDER_CODE.test(candidate) && candidate !== "error") {
      // The pattern also matches typical keys: a code that carries a credential sent on this attempt (an upstream
      // echoing the key it received) is dropped, never repeated to the client or the log.
      return mentionsSecret(candidate, secrets) ? undefined : candidate;
    }
  }
  return undefined;
}

/** True when the text holds one of the secrets, or is itself a long enough piece of one. */
export function mentionsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some(
    (secret) => secret.length > 0 && (text.includes(secret) || (text.length >= 8 && secret.includes(text))),
  );
}

/** The error part for a failure the upstream reported inside its stream. */
export function upstreamErrorPart(body: unknown, secrets: readonly string[] = []): StreamPart {
  const code = providerErrorCode(body, secrets);
  return {
    type: "error",
    code: "upstream_error",
    message: code === undefined ? "upstream failed mid-stream" : `upstream failed mid-stream (${code})`,
  };
}

export const malformedChunkPart = (): StreamPart => ({
  type: "error",
  code: "upstream_error",
  message: "upstream sent a chunk that is not a JSON object",
});

export const TRUNCATED_STREAM_MESSAGE = "upstream stream ended before its terminal event";

export const CONNECTION_FAILED_MESSAGE = "upstream connection failed mid-stream";

export const connectionFailedPart = (): StreamPart => ({
  type: "error",
  code: "upstream_error",
  message: CONNECTION_FAILED_MESSAGE,
});

export const truncatedStreamPart = (): StreamPart => ({
  type: "error",
  code: "upstream_error",
  message: TRUNCATED_STREAM_MESSAGE,
});
