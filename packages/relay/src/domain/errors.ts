/**
 * Typed domain errors with a code; the HTTP edge maps each once to its status and body (docs/relay.md, Errors).
 * Messages never carry a token, nonce or answer text.
 */
export type RelayErrorCode =
  | "unauthorized"
  | "forbidden"
  | "invalid_request"
  | "unsupported_contract_version"
  | "invalid_cursor"
  | "not_found"
  | "conflict"
  | "unsupported_media_type"
  | "payload_too_large"
  | "rate_limited"
  | "invalid_pairing_code"
  | "invalid_join_code"
  | "too_many_machines"
  | "too_many_join_codes"
  | "unavailable";

const STATUS: Record<RelayErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  invalid_request: 400,
  unsupported_contract_version: 400,
  invalid_cursor: 400,
  not_found: 404,
  conflict: 409,
  unsupported_media_type: 415,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_pairing_code: 400,
  invalid_join_code: 400,
  too_many_machines: 409,
  too_many_join_codes: 409,
  unavailable: 503,
};

export class RelayError extends Error {
  readonly status: number;
  constructor(
    readonly code: RelayErrorCode,
    message: string = code.replaceAll("_", " "),
    /** Seconds, for 429. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "RelayError";
    this.status = STATUS[code];
  }
}
