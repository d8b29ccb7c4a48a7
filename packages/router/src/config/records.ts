import type { RecordWire, RouterRouteKind, SwitchStrategy, UpstreamAuth } from "@notify/contracts/ui-constants";
import type { Wire } from "../ir.js";
import type { EffortOverrides } from "./effort-config.js";

// The record constants are the contract's (packages/contracts/src/ui/constants.ts), which the page and the
// router's input schemas share.
export {
  MAX_DECLARED_MODELS,
  RECORD_WIRES,
  type RecordWire,
  SLUG_PATTERN,
  SWITCH_STRATEGIES,
  type SwitchStrategy,
  UPSTREAM_AUTHS,
  type UpstreamAuth,
} from "@notify/contracts/ui-constants";

/**
 * docs/router.md names wires `responses_wire`, `chat_wire`, `messages_wire` in records; the IR says `responses` etc.
 */
export const toWire = (wire: RecordWire): Wire => wire.replace("_wire", "") as Wire;

export interface Upstream {
  id: string;
  slug: string;
  label: string;
  wire: RecordWire;
  base_url: string;
  /** Whether a sealed key is stored; the key itself never leaves the store except to build a request. */
  has_key: boolean;
  models: string[];
  enabled: boolean;
  auth: UpstreamAuth;
  model_wires: Record<string, RecordWire>;
  credential_ref: string | null;
  created_at: string;
  updated_at: string;
}

export interface Route {
  id: string;
  name: string;
  kind: RouterRouteKind;
  targets: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface RouterSettings {
  default_route: string | null;
  switch_strategy: SwitchStrategy;
  native_fallback_route: string | null;
}

/** One immutable view of the configuration; selection is a pure function of it and the model string. */
export interface ConfigSnapshot {
  upstreams: readonly Upstream[];
  routes: readonly Route[];
  settings: RouterSettings;
  /** Effort override sets; absent means none. */
  effort?: EffortOverrides;
}

/** The wire a model is served over at an upstream: its `model_wires` entry, else the upstream's own wire. */
export function wireFor(upstream: Upstream, model: string): Wire {
  return toWire(upstream.model_wires[model] ?? upstream.wire);
}

/**
 * Destination rule (docs/router.md, "Destination rule"): absolute https, or http only to a loopback literal; no user
 * info, query or fragment. Returns the problem, or undefined when the URL is acceptable.
 */
export function destinationProblem(baseUrl: string): string | undefined {
  // Parsers disagree on these (WHATWG reads a backslash as `/` and drops tabs and newlines; others read another
  // host), so a URL holding one is refused rather than stored as typed.
  for (const character of baseUrl) {
    const code = character.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f || character === "\\" || /\s/.test(character)) {
      return "base_url must not contain spaces, control characters or backslashes";
    }
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "base_url must be an absolute URL";
  }
  if (url.username || url.password) return "base_url must not carry user info";
  if (url.search || baseUrl.includes("?")) return "base_url must not carry a query";
  if (url.hash || baseUrl.includes("#")) return "base_url must not carry a fragment";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:") {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (host === "127.0.0.1" || host === "::1" || host === "localhost") return undefined;
    return "http base_url is allowed only for a loopback host (127.0.0.1, ::1, localhost)";
  }
  return "base_url must be https (or http to a loopback host)";
}

/**
 * The form of an accepted base URL that is stored: the standard parser's own serialization (lower-case scheme and
 * host, default port dropped, dot segments resolved) without trailing slashes, so what is saved is exactly what was
 * validated.
 */
export function normalizedBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}
