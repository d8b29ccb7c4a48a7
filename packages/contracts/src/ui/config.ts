import type { RecordWire, SwitchStrategy, UpstreamAuth } from "./constants.js";

/**
 * Response shapes of the /ui/api configuration routes (types, outbound, router), as the page reads them. The
 * broker's and the router's own records are the source; these name the fields the page may rely on, and carry
 * no secret by construction (secrets are write-only: `secretNames`, `has_key`).
 */

import type { OutboxStatus, Priority, RouterRouteKind, SoundFormat } from "../enums.js";
import type { QuietHours, RouteWhen } from "../routing.js";

/**
 * GET/PUT /ui/api/types: a custom notification type (docs/desktop.md, "Local presentation rules", rule 7), as
 * config.json holds it under
 * `notificationTypes` (docs/config.md).
 */
export interface TypeDefinition {
  id: string;
  label: string;
  enabled: boolean;
  defaultPriority?: Priority;
  /** Presentation: a CSS color, an icon name, a built-in tone or imported sound, toast lifetime. */
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
  /** A provider that takes answers from a chat app (Telegram `answers: true`, `slack_app`) while its loop runs. */
  connection?: OutboundConnection;
}

/** The state of a chat provider's answer loop (getUpdates poll, Socket Mode socket); docs/outbound.md. */
export interface OutboundConnection {
  state: "connecting" | "connected" | "retrying";
  /** The last failure's fixed code (`http_429`, `socket_closed`, `slack_invalid_auth`...), kept until connected. */
  lastCode?: string;
  since: string;
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
  /** Less noise (docs/outbound.md, "Less noise"): absent means the default (0: one message per item; true). */
  digest_seconds?: number;
  replace_finished?: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * One hop of a route's test (`notify test`, POST /ui/api/outbound/test; docs/outbound.md, "Testing routes"): what was
 * checked, how it went, its time, and what to do about a failure.
 */
export interface RouteTestHop {
  hop: "provider" | "send" | "answers" | "phones";
  status: "ok" | "fail";
  ms: number;
  detail: string;
  fix?: string;
}

export interface RouteTestResult {
  route: string;
  kind: string;
  status: "ok" | "fail";
  hops: RouteTestHop[];
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
  digest_seconds?: number | null;
  replace_finished?: boolean | null;
}

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

/**
 * The result of one delivery attempt (docs/outbound.md), and of the provider Test action that answers with it.
 * Diagnostics are an HTTP status and a short fixed code, never text from outside.
 */
export type DeliveryResult =
  | { ok: true; status?: number }
  | { ok: false; retryable: boolean; code: string; status?: number; retryAfterMs?: number };

/**
 * GET /ui/api/router/status, and the answer of PUT /ui/api/router/settings (packages/broker/src/http/routes/
 * ui-router.ts). The router key itself is never in it.
 */
export interface RouterStatus {
  enabled: boolean;
  /** Whether a router key exists; the key itself is never returned (`notify router key` reads config.json). */
  has_key: boolean;
  /** `/router/v1`, relative to the broker's base URL. */
  base_path: string;
  max_request_body_bytes: number;
  ledger_retention_days: number;
  /** How many upstreams and routes are configured. */
  upstreams: number;
  routes: number;
  default_route: string | null;
  switch_strategy: SwitchStrategy;
  native_fallback_route: string | null;
}

/** PUT /ui/api/router/settings: any subset; the broker keeps the first three, the router the rest. */
export interface RouterSettingsInput {
  enabled?: boolean;
  max_request_body_bytes?: number;
  ledger_retention_days?: number;
  default_route?: string | null;
  switch_strategy?: SwitchStrategy;
  native_fallback_route?: string | null;
}

export interface RouterUpstream {
  id: string;
  slug: string;
  label: string;
  wire: RecordWire;
  base_url: string;
  has_key: boolean;
  models: string[];
  enabled: boolean;
  auth: UpstreamAuth;
  /** Models served over another wire than the upstream's own. */
  model_wires: Record<string, RecordWire>;
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
  kind: RouterRouteKind;
  targets: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
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
  format: SoundFormat;
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
