/** GET /ui/api/router/status: the contract's shape, which the route (http/routes/ui-router.ts) satisfies. */
export type { RouterStatus } from "@notify/contracts/ui";

/** The /ui/api/router routes, relative to the broker's base URL. */
export const ROUTER_UI = "/ui/api/router";
