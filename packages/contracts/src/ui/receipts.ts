/**
 * GET /ui/api/relay/unfetched (issue 37 item 3; docs/relay.md, "Receipts on the broker"): relay routes whose
 * deliveries no phone fetched within `receipts.warnAfterSeconds` of being handed to the relay. The Outbound page
 * flags each, and `notify doctor` warns. Only relays that record receipts are judged.
 */
export interface UnfetchedRoute {
  route_id: string;
  /** Absent once the route was deleted. */
  route_name?: string;
  provider_id: string;
  /** Deliveries handed to the relay over `warn_after_seconds` ago (within the last 24 hours) that no phone fetched. */
  unfetched: number;
  /** When the oldest of them was handed to the relay. */
  oldest_at: string;
}

export interface UnfetchedRoutes {
  warn_after_seconds: number;
  routes: UnfetchedRoute[];
}
