/**
 * The one catalogue of the errors the broker answers (docs/api.md, "Errors"): a code, the HTTP status, the `error`
 * text when it is fixed, and for the few whose words depend on the case, none (the thrower words them). Routes and
 * services throw `DomainError`s with these codes; the HTTP edge (http/errors.ts) is the one place that turns them
 * into responses, so a status or a text is written here once. The /v1 texts are the documented ones, byte for byte
 * (docs/api.md, "Errors"). The provider router's own wire errors (docs/router.md, "Errors") are the router package's
 * and not listed here.
 */
export interface CatalogueEntry {
  /** The status; a list when the thrower picks one of them (the first is the default); `4xx`: any client error. */
  readonly status: number | readonly number[] | "4xx";
  /** The `error` text; absent when the thrower words it (a validation problem names the field and the rule). */
  readonly message?: string;
  /** An HTML page rather than `{error}` (the `message` is its title), or no body at all (413). */
  readonly body?: "html" | "empty";
}

export const ERRORS = {
  // The request pipeline (docs/api.md, "Request pipeline"), before any route.
  body_too_large: { status: 413, body: "empty" },
  unauthorized: { status: 401, message: "unauthorized" },
  rate_limited: { status: 429, message: "rate limit exceeded" },
  invalid_json: { status: 400, message: "invalid JSON body" },
  /** Nested deeper than the limit, or a string that is not valid Unicode (contracts/json-shape.ts words it). */
  body_shape: { status: 400 },
  not_found: { status: 404, message: "not found" },
  bad_url: { status: 400, message: "invalid request: bad URL" },
  bad_request: { status: 400, message: "invalid request: bad request" },
  /** Any other refusal of the HTTP framework: 400 `invalid request: <what>`, another 4xx with its own words. */
  framework_refused: { status: "4xx" },
  request_timeout: { status: 408, message: "request not received in time" },
  headers_too_large: { status: 431, message: "request headers too large" },
  malformed_request: { status: 400, message: "malformed HTTP request" },
  shutting_down: { status: 503, message: "broker is shutting down" },
  internal: { status: 500, message: "internal error" },

  // The domain (docs/api.md, "Errors").
  /** A body, query or state transition the rules refuse; the text names the problem, `field` the option. */
  validation: { status: 400 },
  notification_not_found: { status: 404, message: "notification not found" },
  interaction_not_found: { status: 404, message: "interaction not found" },
  already_answered: { status: 409, message: "interaction already answered with a different response" },
  event_conflict: { status: 409, message: "event_id was already used by this sender for a different event" },

  // The web page's own API (/ui, /ui/api): not spec'd, this project's.
  non_loopback_host: { status: 403, message: "non-loopback host" },
  missing_ui_header: { status: 403, message: "missing X-Notify-UI: 1" },
  login_link_needs_token: { status: 403, message: "a login link needs the bearer token" },
  login_link_refused: { status: 401, message: "This login link does not work any more", body: "html" },
  ui_not_built: { status: 503, message: "The web UI is not built", body: "html" },
  sound_not_found: { status: 404, message: "sound not found" },
  context_not_found: { status: 404, message: "context not found" },
  sound_too_large: { status: 413, message: "a sound file is at most 10 MB" },
  outbound_provider_not_found: { status: 400, message: "provider not found" },
  outbound_route_not_found: { status: 400, message: "route not found" },
  outbox_item_not_found: { status: 400, message: "outbox item not found" },
  device_not_found: { status: 404, message: "device not found" },
  /** The relay refused or could not be reached: the text names only its status or a fixed code. */
  relay_unavailable: { status: 502 },
  upstream_not_found: { status: 404, message: "upstream not found" },
  router_route_not_found: { status: 404, message: "route not found" },
  effort_family_not_found: { status: 404, message: "effort family not found" },
  family_override_not_found: { status: 404, message: "no override for this family" },
  model_override_not_found: { status: 404, message: "no override for this model" },
  account_not_found: { status: 404, message: "account not found" },
  agent_not_found: { status: 404, message: "agent not found" },
  /** Connecting an agent refused: a bad selector (400), no such backup (404), a file or state in the way (409). */
  connector_refused: { status: [409, 400, 404] },
  /** Fetching a provider's model list: a bad request (400), no such upstream (404), the provider failed (502). */
  model_fetch_failed: { status: [502, 400, 404] },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERRORS;
/** Kept for the services that name the type. */
export type DomainErrorCode = ErrorCode;

export interface ErrorOptions {
  /** The option at fault (`quiet_hours.end`), sent as `field` by /ui/api so the page needs not read the text. */
  field?: string;
  /** One of the entry's statuses, for an entry that has several. */
  status?: number;
}

/** An error from the catalogue: what every route and service throws, and all the HTTP edge answers with. */
export class DomainError extends Error {
  readonly status: number;
  readonly field: string | undefined;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    options: ErrorOptions = {},
  ) {
    const entry: CatalogueEntry = ERRORS[code];
    super(message ?? entry.message ?? code);
    this.name = "DomainError";
    this.status = statusOf(entry, options.status);
    this.field = options.field;
  }
}

/** The entry's status, or the one asked for when the entry allows it. */
function statusOf(entry: CatalogueEntry, asked: number | undefined): number {
  if (typeof entry.status === "number") return entry.status;
  if (entry.status === "4xx") return asked !== undefined && asked >= 400 && asked < 500 ? asked : 400;
  return asked !== undefined && entry.status.includes(asked) ? asked : (entry.status[0] ?? 500);
}

export const invalid = (message: string, field?: string): DomainError =>
  new DomainError("validation", message, field === undefined ? {} : { field });
export const notificationNotFound = (): DomainError => new DomainError("notification_not_found");
export const interactionNotFound = (): DomainError => new DomainError("interaction_not_found");
export const alreadyAnswered = (): DomainError => new DomainError("already_answered");
