/**
 * Input that matters and cannot be expressed on the target wire, or a body the router cannot read at all. The codes
 * are docs/router.md, "Errors" codes; the HTTP edge maps them to the inbound wire's error shape.
 */
export type TranslationErrorCode = "invalid_request" | "not_supported" | "unsupported_previous_response_id";

export class TranslationError extends Error {
  constructor(
    readonly code: TranslationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "TranslationError";
  }
}

export const invalidRequest = (message: string): TranslationError => new TranslationError("invalid_request", message);
export const notSupported = (message: string): TranslationError => new TranslationError("not_supported", message);
