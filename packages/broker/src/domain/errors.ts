/**
 * The one catalogue of domain errors. Each carries the HTTP status and the `error` string of the spec's Errors
 * table (spec 1, "Errors"); the HTTP edge maps them once, in http/errors.ts.
 */
export type DomainErrorCode =
  | "validation"
  | "notification_not_found"
  | "interaction_not_found"
  | "already_answered"
  | "relay_not_configured"
  | "event_conflict";

const STATUS: Record<DomainErrorCode, number> = {
  validation: 400,
  notification_not_found: 404,
  interaction_not_found: 404,
  already_answered: 409,
  relay_not_configured: 400,
  event_conflict: 409,
};

export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
    this.status = STATUS[code];
  }
}

export const invalid = (message: string): DomainError => new DomainError("validation", message);
export const notificationNotFound = (): DomainError =>
  new DomainError("notification_not_found", "notification not found");
export const interactionNotFound = (): DomainError => new DomainError("interaction_not_found", "interaction not found");
export const alreadyAnswered = (): DomainError =>
  new DomainError("already_answered", "interaction already answered with a different response");
