export const INTERACTION_KINDS = ["permission", "single_choice", "text"] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

export const INTERACTION_STATUSES = ["pending", "answered", "expired", "cancelled", "superseded"] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

export interface Choice {
  id: string;
  label: string;
  detail?: string;
}

export interface InteractionResponse {
  response_id: string;
  choice_id?: string;
  text?: string;
  source: string;
  device_id?: string;
  created_at: string;
}

/** InteractionDto (spec 1, snake_case). Absent optional fields are omitted. */
export interface InteractionDto {
  id: string;
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
  status: InteractionStatus;
  request_digest: string;
  nonce: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  answered_at?: string;
  response?: InteractionResponse;
}

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
