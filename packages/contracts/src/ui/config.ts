/**
 * Response shapes of the /ui/api configuration routes (types, outbound, router), as the page reads them. The
 * broker's and the router's own records are the source; these name the fields the page may rely on, and carry
 * no secret by construction (secrets are write-only: `secretNames`, `has_key`).
 */

import type { QuietHours, RouteWhen } from "../routing.js";

export type Priority = "low" | "normal" | "high" | "critical";

/** GET/PUT /ui/api/types: a custom notification type (spec 1, presentation rule 7). */
export interface TypeDefinition {
  id: string;
  label: string;
  enabled: boolean;
  defaultPriority?: Priority;
  color?: string;
  icon?: string;
  sound?: string;
  toastSeconds?: number;
}

export interface OutboundKind {
  kind: string;
  secrets: { required: readonly string[]; optional: readonly string[] };
}

export interface OutboundProvider {
  id: string;
  kind: string;
  name: string;
  settings: Record<string, unknown>;
  /** Names of the secrets that are set; never their values. */
  secretNames: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** POST/PATCH body: `secrets` values replace the named secrets, `null` removes one. */
export interface OutboundProviderInput {
  kind?: string;
  name?: string;
  settings?: Record<string, unknown>;
  secrets?: Record<string, string | null>;
  enabled?: boolean;
}

export interface OutboundRoute {
  id: string;
  name: string;
  providerId: string;
  enabled: boolean;
  minimumPriority: Priority;
  typeId?: string;
  project?: string;
  agent?: string;
  includeMessage: boolean;
  /** Attention routing (docs/routing.md): absent means the default (0, `always`, no quiet hours). */
  delay_seconds?: number;
  when?: RouteWhen;
  quiet_hours?: QuietHours;
  createdAt: string;
  updatedAt: string;
}

/** POST/PATCH body. The routing options are `RoutingOptions` (routing.ts); `null` puts one back to its default. */
export interface OutboundRouteInput {
  name?: string;
  provider?: string;
  enabled?: boolean;
  minimumPriority?: Priority;
  typeId?: string | null;
  project?: string | null;
  agent?: string | null;
  includeMessage?: boolean;
  delay_seconds?: number | null;
  when?: RouteWhen | null;
  quiet_hours?: QuietHours | null;
}

export type OutboxStatus = "Pending" | "Retry" | "Delivered" | "DeadLetter";

export interface OutboxItem {
  id: string;
  notificationId: string;
  routeId: string;
  providerId: string;
  status: OutboxStatus;
  attempts: number;
  payload: { id: string; title: string; type: string; priority: Priority };
  lastStatus?: number;
  lastCode?: string;
  createdAt: string;
  updatedAt: string;
  deliveredAt?: string;
}

export interface Outbox {
  counts: Record<OutboxStatus, number>;
  items: OutboxItem[];
}

/** The provider Test action's result. */
export type DeliveryResult =
  | { ok: true; status?: number }
  | { ok: false; retryable: boolean; code: string; status?: number };

export interface RouterStatus {
  enabled: boolean;
  /** Whether a router key exists; the key itself is never returned (`notify router key` reads config.json). */
  has_key: boolean;
  base_path: string;
  max_request_body_bytes: number;
  ledger_retention_days: number;
  upstreams: number;
  routes: number;
  default_route: string | null;
  switch_strategy: "off" | "ordered" | "sticky" | "round_robin";
  native_fallback_route: string | null;
}

export interface RouterSettingsInput {
  enabled?: boolean;
  default_route?: string | null;
  switch_strategy?: RouterStatus["switch_strategy"];
  native_fallback_route?: string | null;
}

export type RecordWire = "responses_wire" | "chat_wire" | "messages_wire";

export interface RouterUpstream {
  id: string;
  slug: string;
  label: string;
  wire: RecordWire;
  base_url: string;
  has_key: boolean;
  models: string[];
  enabled: boolean;
  auth: string;
  /** Where the key comes from instead of `has_key`: `api_account:<id>` (a saved account) or `profile:<dir>`. */
  credential_ref?: string | null;
  created_at: string;
  updated_at: string;
}

/** GET /ui/api/router/accounts: a saved provider account; its key is write-only (docs/router.md). */
export interface RouterAccount {
  id: string;
  provider: string;
  label: string;
  /** A key that only administers the provider: never offered as an upstream's key. */
  admin_only: boolean;
  has_key: true;
  created_at: string;
}

export interface RouterRoute {
  id: string;
  name: string;
  kind: "alias" | "combo";
  targets: string[];
  enabled: boolean;
}

export interface RouterAttempt {
  ordinal: number;
  upstream_slug: string;
  model: string;
  status: number | null;
  error_code: string | null;
  duration_ms: number;
}

export interface RouterRequest {
  id: string;
  started_at: string;
  requested_model: string | null;
  route_name: string | null;
  upstream_slug: string | null;
  upstream_model: string | null;
  status: number | null;
  outcome: string | null;
  tokens: { input: number | null; cached_input: number | null; output: number | null; reasoning: number | null };
  error_code: string | null;
  attempts: RouterAttempt[];
}

/** An imported sound file (`<data dir>/sounds/<name>.<format>`), as listed and as the import answers (201). */
export interface ImportedSound {
  name: string;
  format: "wav" | "mp3";
  bytes: number;
  /** Hex SHA-256 of the file. */
  sha256: string;
}

/** GET /ui/api/sounds (and PUT /ui/api/sounds/types): what a toast can play and which type plays what. */
export interface SoundsListing {
  builtIn: string[];
  imported: ImportedSound[];
  /** The per-type choice: type ID to sound name or `none`; a type not listed plays its default. */
  typeSounds: Record<string, string>;
  /** The built-in types' default sounds. */
  defaults: Record<string, string>;
  maxBytes: number;
}

/** PUT /ui/api/sounds/types: a sound name, `none` (silent) or null (back to the default) per type ID. */
export type TypeSoundsPatch = Record<string, string | null>;
