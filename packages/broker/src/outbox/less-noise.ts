import type { Clock } from "../domain/clock.js";
import type { Logger } from "../log/logger.js";
import { type DigestWindow, DigestWindows, digestPayload, digestText, entryOf } from "./digest.js";
import type { OutboundService } from "./outbound-service.js";
import type {
  DeliveryContext,
  DeliveryResult,
  OutboundPayload,
  OutboundRoute,
  ProviderAdapter,
  ProviderProfile,
} from "./types.js";

/** An attempt's outcome: a delivery result, or "wait for the digest window's end" (no attempt is counted). */
export type NoiseOutcome = DeliveryResult | { deferUntilMs: number };

/** The type id of an agent's "finished" notification (a hook's completion; docs/arc.md, "Kind to type and priority"). */
const FINISHED_TYPE = "completed";
/** "Finished" messages remembered per route and session key, the oldest dropped first. */
const KEEP_FINISHED = 500;
/** How long a settle's edit may take. */
const EDIT_TIMEOUT_MS = 15_000;
/**
 * A window's post or send that failed this recently is not tried again for its other items (all due at once): they
 * take the same result, and each retries on its own backoff; the first to get through delivers the window.
 */
const SHARED_FAILURE_MS = 1_000;

/** What the dispatcher hands over for one notification item on a route. */
export interface NoiseDelivery {
  route: OutboundRoute;
  profile: ProviderProfile;
  adapter: ProviderAdapter;
  payload: OutboundPayload;
  secrets: Record<string, string>;
  context: DeliveryContext;
}

/**
 * Less noise on the outbound side (issue 37, item 4; docs/outbound.md, "Less noise"): a route's digest
 * (`digest_seconds`, windows in digest.ts) and a session's successive "finished" notifications replacing each
 * other (`replace_finished`, default on) where the provider can edit its message. The dispatcher asks `takes` for
 * each notification item and, when true, delivers through `deliver`; settles (OutboundService.onSettled) edit the
 * digest messages that list the settled item.
 */
export class LessNoise {
  readonly windows: DigestWindows;
  /** `routeId \n session key` -> handle of the last "finished" message on that route. */
  private readonly finished = new Map<string, string>();

  constructor(
    private readonly outbound: OutboundService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly signal: () => AbortSignal,
  ) {
    this.windows = new DigestWindows(() => clock.now());
  }

  /** True when this item goes through a digest or replaces a "finished" message. */
  takes(route: OutboundRoute, profile: ProviderProfile, adapter: ProviderAdapter, payload: OutboundPayload): boolean {
    if (payload.test) return false;
    // A question a chat app asks with its own buttons keeps its own message (the answer loop edits it).
    if (payload.interaction !== undefined && profile.settings.answers === true) return false;
    // The relay keeps one envelope per item: the phone collapses its own notifications (packages/phone/src/sw.ts).
    if ((route.digest_seconds ?? 0) > 0) return adapter.sendInteraction === undefined;
    return (
      adapter.editable !== undefined &&
      route.replace_finished !== false &&
      payload.type === FINISHED_TYPE &&
      payload.key !== undefined
    );
  }

  async deliver(delivery: NoiseDelivery): Promise<NoiseOutcome> {
    const { route, payload } = delivery;
    if ((route.digest_seconds ?? 0) > 0) return this.digest(delivery, route.digest_seconds as number);
    return this.replaceFinished(delivery, `${route.id}\n${payload.key}`);
  }

  private async digest(delivery: NoiseDelivery, windowSeconds: number): Promise<NoiseOutcome> {
    const { route, adapter, payload } = delivery;
    const question = payload.interaction ? this.outbound.interaction(payload.interaction.id) : undefined;
    const state = question !== undefined && question.status !== "pending" ? question.status : "open";
    const entry = entryOf(payload, state);
    const editable = adapter.editable !== undefined;
    const first = this.windows.plan(route.id, windowSeconds, entry, editable);
    // One operation at a time per window: the plan is made again once the ones before have gone.
    return this.queued(first.window, async () => {
      const plan = this.windows.plan(route.id, windowSeconds, entry, editable);
      const { window } = plan;
      switch (plan.action) {
        case "done":
          return { ok: true, status: 200 };
        case "wait":
          return { deferUntilMs: plan.until };
        case "send": {
          const shared = this.sharedFailure(window);
          if (shared) return shared;
          const result = await adapter.send(digestPayload(window), delivery.profile.settings, delivery.secrets, {
            ...delivery.context,
            idempotencyKey: window.id,
          });
          if (result.ok) window.sent = true;
          return this.outcome(window, result);
        }
        case "post": {
          const shared = this.sharedFailure(window);
          if (shared) return shared;
          const posted = await adapter.editable?.post(
            textOf(window),
            delivery.profile.settings,
            delivery.secrets,
            delivery.context,
          );
          if (posted?.result.ok) this.windows.shown(window, posted.handle);
          return this.outcome(
            window,
            posted?.result ?? { ok: false, retryable: false, code: "provider_kind_unsupported" },
          );
        }
        case "edit":
          return this.edit(window, delivery);
      }
    });
  }

  private sharedFailure(window: DigestWindow): DeliveryResult | undefined {
    const failed = window.failed;
    return failed !== undefined && this.clock.now() - failed.at < SHARED_FAILURE_MS ? failed.result : undefined;
  }

  private outcome(window: DigestWindow, result: DeliveryResult): DeliveryResult {
    if (result.ok) delete window.failed;
    else window.failed = { at: this.clock.now(), result };
    return result;
  }

  private async edit(
    window: DigestWindow,
    delivery: Omit<NoiseDelivery, "route" | "payload">,
  ): Promise<DeliveryResult> {
    const { adapter, profile, secrets, context } = delivery;
    const snapshot = new Map(window.entries.map((entry) => [entry.notificationId, entry.state]));
    const result = (await adapter.editable?.edit(
      window.handle as string,
      textOf(window),
      profile.settings,
      secrets,
      context,
    )) ?? { ok: false, retryable: false, code: "provider_kind_unsupported" };
    // What the edit showed: entries that joined meanwhile go with the next edit.
    if (result.ok) window.shown = snapshot;
    return result;
  }

  private async replaceFinished(delivery: NoiseDelivery, key: string): Promise<NoiseOutcome> {
    const { adapter, profile, secrets, context, payload, route } = delivery;
    const editable = adapter.editable as NonNullable<ProviderAdapter["editable"]>;
    const text =
      route.includeMessage && payload.message !== undefined ? `${payload.title}\n\n${payload.message}` : payload.title;
    const handle = this.finished.get(key);
    if (handle !== undefined) {
      const edited = await editable.edit(handle, text, profile.settings, secrets, context);
      if (edited.ok || edited.retryable) return edited;
      // The message is gone (deleted in the chat): post a new one.
      this.finished.delete(key);
    }
    const posted = await editable.post(text, profile.settings, secrets, context);
    if (posted.result.ok && posted.handle !== undefined) {
      this.finished.delete(key);
      this.finished.set(key, posted.handle);
      if (this.finished.size > KEEP_FINISHED) this.finished.delete(this.finished.keys().next().value as string);
    }
    return posted.result;
  }

  /** An item settled: the digest messages that list it are edited to show how (best effort; the next edit retries). */
  settle(ids: { notificationId?: string; questionId?: string }, state: string): void {
    for (const window of this.windows.settle(ids, state)) {
      void this.queued(window, async () => {
        if (this.windows.upToDate(window) || window.handle === undefined) return;
        const route = this.outbound.findRoute(window.routeId);
        const profile = route ? this.outbound.profile(route.providerId) : undefined;
        const adapter = profile ? this.outbound.adapterFor(profile.kind) : undefined;
        if (!route || !profile?.enabled || !adapter?.editable) return;
        let secrets: Record<string, string>;
        try {
          secrets = this.outbound.openSecrets(profile.id);
        } catch {
          return;
        }
        const context = {
          idempotencyKey: window.id,
          signal: AbortSignal.any([AbortSignal.timeout(EDIT_TIMEOUT_MS), this.signal()]),
        };
        const result = await this.edit(window, { adapter, profile, secrets, context });
        if (!result.ok) this.logger.info(`digest ${window.id} on route ${route.name}: edit failed: ${result.code}`);
      });
    }
  }

  private queued<T>(window: DigestWindow, operation: () => Promise<T>): Promise<T> {
    const next = window.queue.then(operation, operation);
    window.queue = next.catch(() => undefined);
    return next;
  }
}

function textOf(window: DigestWindow): string {
  const { title, lines } = digestText(window);
  return `${title}\n\n${lines}`;
}
