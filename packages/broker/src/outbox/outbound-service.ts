import { randomBytes, randomUUID } from "node:crypto";
import { hasRoutingOptions } from "../attention/attention-router.js";
import type { DomainBus } from "../domain/bus.js";
import { type Clock, isoTime } from "../domain/clock.js";
import { DomainError, invalid } from "../domain/errors.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { NotificationDto } from "../notifications/types.js";
import { type SecretSealer, SecretsUnreadableError } from "../secrets/sealer.js";
import type { OutboundStore, StoredProfile } from "../store/outbound-store.js";
import { encodeMarker } from "../store/outbox-marker.js";
import type { OutboxStore } from "../store/outbox-store.js";
import { routeMatches } from "./matching.js";
import {
  mergeSecrets,
  type ProfileInput,
  profileFieldsFromInput,
  providerNotFound,
  type RouteInput,
  routeFromInput,
} from "./outbound-config.js";
import { noPayloadSources, outgoingPayload, type PayloadSources, testPayload } from "./payload.js";
import type {
  DeliveryResult,
  OutboundPayload,
  OutboundRoute,
  OutboxItem,
  OutgoingInteraction,
  ProviderAdapter,
  ProviderProfile,
} from "./types.js";

/** What settled: a notification (by id) or a question (by id). */
export interface SettledIds {
  notificationId?: string;
  questionId?: string;
}

/** The configuration inputs, checked in outbound-config.ts (the HTTP routes name them from here). */
export type { ProfileInput, RouteInput } from "./outbound-config.js";

/**
 * Provider profiles, routes and the enqueue rule. Matching runs on an in-memory snapshot, so creating a
 * notification costs no query: its matching routes go into its own row as a marker (the folded outbox, see
 * store/outbox-store.ts), which the dispatcher expands into items. No network I/O happens here except the Test
 * action, which the owner asks for.
 */
export class OutboundService {
  private profiles = new Map<string, StoredProfile>();
  private routes: OutboundRoute[] = [];
  /** The routes without routing options: the only ones a marker names (the rest go through attention.ts). */
  private plainRoutes: OutboundRoute[] = [];
  private routed: OutboundRoute[] = [];
  /**
   * Markers by matched route set, the set as a bit mask over `routes` (or the indexes joined, past 31 routes), so
   * a create looks its marker up instead of building the string. Cleared on every reload.
   */
  private markers = new Map<number | string, string>();
  private readonly kickListeners: (() => void)[] = [];
  private readonly settleListeners: ((ids: SettledIds, state: string) => void)[] = [];

  constructor(
    private readonly store: OutboundStore,
    private readonly outbox: OutboxStore,
    private readonly sealer: SecretSealer,
    private readonly adapters: ReadonlyMap<string, ProviderAdapter>,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly sources: PayloadSources = noPayloadSources,
  ) {
    this.reload();
  }

  /**
   * Subscribes the outbox to the notifications' recorded events (broker.ts calls this once): a new notification
   * whose row carries a marker may be expanded once it commits; a dedup refresh writes its items in its unit.
   */
  subscribe(bus: DomainBus): void {
    bus.onRecorded("notification.created", (_notification, { row, marked }) => {
      if (marked) this.marked(row);
    });
    bus.onRecorded("notification.changed", (notification, change) => {
      if (change.cause === "refresh") this.enqueueFor(notification, change.row);
    });
    // Settles, once committed: a digest message lists its items' outcomes (outbox/less-noise.ts).
    bus.on("notification.changed", (notification) => {
      if (notification.status !== undefined && notification.status !== "active") {
        this.settled({ notificationId: notification.id }, notification.status);
      }
    });
    bus.on("interaction.changed", (interaction) => {
      if (interaction.status !== "pending") this.settled({ questionId: interaction.id }, interaction.status);
    });
  }

  /** Called after commit when a notification or a question settles (the dispatcher's digests subscribe). */
  onSettled(listener: (ids: SettledIds, state: string) => void): void {
    this.settleListeners.push(listener);
  }

  private settled(ids: SettledIds, state: string): void {
    for (const listener of this.settleListeners) listener(ids, state);
  }

  /** The item's payload as it leaves: with the question it asks, if any (looked up at send time). */
  payloadFor(item: OutboxItem): OutboundPayload {
    return outgoingPayload(item, this.sources);
  }

  /** Called after commit whenever new items are due (the dispatcher subscribes). */
  onEnqueued(listener: () => void): void {
    this.kickListeners.push(listener);
  }

  private reload(): void {
    this.profiles = new Map(this.store.profiles().map((stored) => [stored.profile.id, stored]));
    this.routes = this.store.routes();
    this.plainRoutes = this.routes.filter((route) => !hasRoutingOptions(route));
    this.routed = this.routes.filter(hasRoutingOptions);
    this.markers = new Map();
  }

  /**
   * The marker of the routes (of enabled providers, without routing options) that match `notification`, or null
   * when none does. For a new notification (NotificationService's OutboundMarker, inside its transaction, before
   * the INSERT) it is stored in its own row, and no outbox row is written now.
   */
  markerFor(notification: NotificationDto): string | null {
    const routes = this.plainRoutes;
    let key: number | string = 0;
    for (let index = 0; index < routes.length; index++) {
      const route = routes[index] as OutboundRoute;
      if (!routeMatches(route, this.profiles.get(route.providerId)?.profile, notification)) continue;
      key = routes.length <= 31 ? (key as number) | (1 << index) : `${key},${index}`;
    }
    if (key === 0) return null;
    let marker = this.markers.get(key);
    if (marker === undefined) {
      const matching =
        typeof key === "number"
          ? routes.filter((_route, index) => (key & (1 << index)) !== 0)
          : key
              .split(",")
              .slice(1)
              .map((index) => routes[Number(index)] as OutboundRoute);
      marker = encodeMarker(matching);
      this.markers.set(key, marker);
    }
    return marker;
  }

  /** The row carrying a marker is written: once it commits, its marker may be expanded and the dispatcher runs. */
  private marked(row: number): void {
    this.unit.afterCommit(() => {
      this.outbox.noteCommitted(row);
      this.kick();
    });
  }

  /**
   * A dedup refresh of an existing notification, inside its unit of work: one outbox item per matching route of an
   * enabled provider, written now (the row already had its marker, if any, when it was created).
   */
  enqueueFor(notification: NotificationDto, row: number): boolean {
    const marker = this.markerFor(notification);
    if (marker === null) return false;
    // One multi-row INSERT for all of a notification's routes: one statement per refresh, not one per route.
    this.outbox.enqueue(row, marker, this.clock.now());
    this.unit.afterCommit(() => this.kick());
    return true;
  }

  kick(): void {
    for (const listener of this.kickListeners) listener();
  }

  /** Every provider kind, in the registry's order (the one list of kinds; see providers/registry.ts). */
  adapterList(): ProviderAdapter[] {
    return [...this.adapters.values()];
  }

  adapterFor(kind: string): ProviderAdapter | undefined {
    return this.adapters.get(kind);
  }

  profile(id: string): ProviderProfile | undefined {
    return this.profiles.get(id)?.profile;
  }

  /** Opens a profile's secrets at the adapter boundary; throws SecretsUnreadableError. */
  openSecrets(id: string): Record<string, string> {
    const stored = this.profiles.get(id);
    if (!stored) return {};
    const adapter = this.adapters.get(stored.profile.kind);
    if (stored.sealedSecrets === null) {
      if ((adapter?.secrets.required.length ?? 0) > 0) throw new SecretsUnreadableError();
      return {};
    }
    const secrets = this.sealer.open(id, stored.sealedSecrets);
    for (const name of adapter?.secrets.required ?? []) {
      if (typeof secrets[name] !== "string" || secrets[name] === "") throw new SecretsUnreadableError();
    }
    return secrets;
  }

  listProfiles(): ProviderProfile[] {
    return [...this.profiles.values()].map((stored) => stored.profile);
  }

  /** The routes with routing options (attention.ts decides for them; no marker names them). */
  routedRoutes(): readonly OutboundRoute[] {
    return this.routed;
  }

  listRoutes(): OutboundRoute[] {
    return [...this.routes];
  }

  findProfile(idOrName: string): ProviderProfile | undefined {
    for (const { profile } of this.profiles.values()) {
      if (profile.id === idOrName || profile.name === idOrName) return profile;
    }
    return undefined;
  }

  findRoute(idOrName: string): OutboundRoute | undefined {
    return this.routes.find((route) => route.id === idOrName || route.name === idOrName);
  }

  /** Creates a profile, or updates the one with the same name. New profiles start disabled unless told. */
  saveProfile(input: ProfileInput, existingId?: string): ProviderProfile {
    return this.unit.run(() => {
      const existing = existingId === undefined ? undefined : this.profiles.get(existingId);
      if (existingId !== undefined && !existing) throw providerNotFound();
      const { kind, adapter, name, settings, enabled } = profileFieldsFromInput(
        input,
        existing?.profile,
        this.adapters,
        this,
      );
      const id = existing?.profile.id ?? `prv_${randomBytes(12).toString("hex")}`;
      let secrets: Record<string, string> = {};
      if (existing?.sealedSecrets) {
        try {
          secrets = this.sealer.open(id, existing.sealedSecrets);
        } catch {
          secrets = {};
        }
      }
      secrets = mergeSecrets(secrets, input.secrets, adapter);
      const missing = adapter.secrets.required.filter((secret) => !secrets[secret]);
      if (missing.length > 0) throw invalid(`secrets missing for ${kind}: ${missing.join(", ")}`);

      const now = isoTime(this.clock.now());
      const profile: ProviderProfile = {
        id,
        kind,
        name,
        settings,
        secretNames: Object.keys(secrets).sort(),
        enabled,
        createdAt: existing?.profile.createdAt ?? now,
        updatedAt: now,
      };
      const sealed = Object.keys(secrets).length > 0 ? this.sealer.seal(id, secrets) : null;
      this.store.saveProfile(profile, sealed, existing === undefined);
      this.reload();
      return profile;
    });
  }

  deleteProfile(id: string): void {
    this.unit.run(() => {
      if (!this.profiles.has(id)) throw providerNotFound();
      this.store.deleteProfile(id);
      this.reload();
    });
  }

  /** Creates a route, or updates an existing one. New routes start disabled unless told. */
  saveRoute(input: RouteInput, existingId?: string): OutboundRoute {
    return this.unit.run(() => {
      const existing = existingId === undefined ? undefined : this.routes.find((route) => route.id === existingId);
      if (existingId !== undefined && !existing) throw new DomainError("validation", "route not found");
      const route = routeFromInput(input, existing, this, isoTime(this.clock.now()));
      this.store.saveRoute(route, existing === undefined);
      this.reload();
      return route;
    });
  }

  deleteRoute(id: string): void {
    this.unit.run(() => {
      if (!this.routes.some((route) => route.id === id)) throw new DomainError("validation", "route not found");
      this.store.deleteRoute(id);
      this.reload();
    });
  }

  /** The interaction an item delivers, as it is now (nonce included: only a sealing adapter gets it). */
  interaction(id: string): OutgoingInteraction | undefined {
    return this.sources.interaction(id);
  }

  /** Provider Test action: the fixed payload through the same adapter, now, with a fresh idempotency key. */
  async test(id: string, timeoutMs = 15_000): Promise<DeliveryResult> {
    const profile = this.profiles.get(id)?.profile;
    if (!profile) throw providerNotFound();
    const adapter = this.adapters.get(profile.kind) as ProviderAdapter;
    let secrets: Record<string, string>;
    try {
      secrets = this.openSecrets(id);
    } catch {
      return { ok: false, retryable: false, code: "provider_secrets_unreadable" };
    }
    return adapter.send(testPayload(isoTime(this.clock.now())), profile.settings, secrets, {
      idempotencyKey: `test_${randomUUID()}`,
      signal: AbortSignal.timeout(timeoutMs),
    });
  }
}
