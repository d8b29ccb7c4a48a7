import type { ArcInteraction } from "@notify/contracts";
import {
  type AnsweredVia,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  type InteractionKind,
  type InteractionStatus,
} from "@notify/contracts/enums";
import type { UiFormFact } from "@notify/contracts/ui";

/** The lists are the contract's (issue 34: each enum once), named here as the broker always has. */
export { type AnsweredVia, INTERACTION_KINDS, INTERACTION_STATUSES, type InteractionKind, type InteractionStatus };

/**
 * InteractionDto (docs/api.md, "Interaction object", snake_case). Absent optional fields are omitted. The shape is the
 * contract's (`ArcInteraction` in @notify/contracts, what producers get back), declared once there.
 */
export type InteractionDto = ArcInteraction;
export type Choice = ArcInteraction["choices"][number];
export type InteractionResponse = NonNullable<ArcInteraction["response"]>;

export interface InteractionInput {
  key?: string;
  agent: string;
  agent_instance?: string;
  project?: string;
  session_id?: string;
  turn_id?: string;
  native_request_id?: string;
  kind: InteractionKind;
  prompt: string;
  choices: Choice[];
  text_max_length: number;
  ttl_seconds: number;
  /** An absolute expiry (ARC `expires_at`); wins over `ttl_seconds`. */
  expires_at_ms?: number;
  /** The notification this question belongs to (ARC); answering it resolves that notification. */
  notification_id?: string;
}

export interface RespondInput {
  response_id: string;
  request_digest: string;
  nonce: string;
  choice_id?: string;
  text?: string;
  source: string;
  device_id?: string;
  /**
   * How the answer reached the broker, for display only (docs/api.md): `ui` when it came through POST /ui/api,
   * `toast` from a desktop notification's button.
   */
  via?: AnsweredVia;
}

/** Display-only facts of a question the web page reads (docs/api.md, /ui/api): never part of the /v1 DTO. */
export interface UiFacts {
  notification_id?: string;
  answered_via?: AnsweredVia;
  has_context?: true;
  form?: UiFormFact;
}

export interface InteractionFilter {
  pending?: boolean;
  status?: InteractionStatus;
  agent?: string;
  project?: string;
  session?: string;
  limit: number;
}

export const isTerminal = (status: InteractionStatus): boolean => status !== "pending";

/** Permission questions without explicit choices get these two (docs/api.md). */
export const DEFAULT_PERMISSION_CHOICES: Choice[] = [
  { id: "allow", label: "Allow" },
  { id: "deny", label: "Deny" },
];
