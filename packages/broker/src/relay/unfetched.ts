import type { UnfetchedRoutes } from "@notify/contracts/ui";
import { type Clock, isoTime } from "../domain/clock.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { RelayReceiptStore } from "../store/relay-receipt-store.js";
import { receiptPolls } from "./receipt-poll.js";

/** Deliveries older than this are not what a person waits for now: they are not judged. */
const WINDOW_MS = 24 * 3_600_000;

/**
 * Relay routes whose deliveries no phone fetched (docs/relay.md, "Receipts on the broker"): handed to the relay more
 * than `warnAfterSeconds` ago, within the last 24 hours, with no `fetched` receipt from any phone. Judged only for a
 * relay whose receipt poll answered in this process: a relay without the receipt route cannot tell.
 */
export class UnfetchedRouteCheck {
  constructor(
    private readonly outbound: OutboundService,
    private readonly receipts: RelayReceiptStore,
    private readonly warnAfterSeconds: number,
    private readonly clock: Clock,
  ) {}

  list(): UnfetchedRoutes {
    const now = this.clock.now();
    const report: UnfetchedRoutes = { warn_after_seconds: this.warnAfterSeconds, routes: [] };
    const providers = this.outbound
      .listProfiles()
      .filter((profile) => profile.kind === "relay" && receiptPolls.get(profile.id)?.receipts === "on");
    if (providers.length === 0) return report;
    const names = new Map(this.outbound.listRoutes().map((route) => [route.id, route.name]));
    for (const row of this.receipts.unfetched(
      providers.map((profile) => profile.id),
      now - WINDOW_MS,
      now - this.warnAfterSeconds * 1000,
    )) {
      const name = names.get(row.routeId);
      report.routes.push({
        route_id: row.routeId,
        ...(name === undefined ? {} : { route_name: name }),
        provider_id: row.providerId,
        unfetched: row.count,
        oldest_at: isoTime(row.oldestMs),
      });
    }
    return report;
  }
}
