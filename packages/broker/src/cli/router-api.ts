import type { RouterSettings } from "@notify/router";

/** GET /ui/api/router/status (packages/broker/src/http/routes/ui-router.ts); the router key itself is never in it. */
export interface RouterStatus extends RouterSettings {
  enabled: boolean;
  has_key: boolean;
  /** `/router/v1`, relative to the broker's base URL. */
  base_path: string;
  max_request_body_bytes: number;
  ledger_retention_days: number;
  /** How many upstreams and routes are configured. */
  upstreams: number;
  routes: number;
}

/** The /ui/api/router routes, relative to the broker's base URL. */
export const ROUTER_UI = "/ui/api/router";
