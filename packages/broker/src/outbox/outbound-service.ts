import { randomBytes, randomUUID } from "node:crypto";
import type { DomainBus } from "../domain/bus.js";
import { type Clock, isoTime } from "../domain/clock.js";
import { DomainError, invalid } from "../domain/errors.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionDto } from "../interactions/types.js";
import { isTypeId } from "../notifications/type-ids.js";
import { type NotificationDto, PRIORITIES, type Priority } from "../notifications/types.js";
import { type SecretSealer, SecretsUnreadableError } from "../secrets/sealer.js";
import type { OutboundStore, StoredProfile } from "../store/outbound-store.js";
import { encodeMarker } from "../store/outbox-marker.js";
import type { OutboxStore } from "../store/outbox-store.js";
import { routeMatches } from "./matching.js";
import { noPayloadSources, outgoingPayload, type PayloadSources, testPayload } from "./payload.js";
import type {
  DeliveryResult,
  OutboundPayload,
  OutboundRoute,
  OutboxItem,
  ProviderAdapter,
  ProviderProfile,
} from "./types.js";

export const providerNotFound = (): DomainError => new DomainError("validation", "provider not found");

export interface ProfileInput {
  kind?: unknown;
  name?: unknown;
  settings?: unknown;
  /** Write-only: values replace the named secrets; `null` removes one. */
  secrets?: unknown;
  enabled?: unknown;
}

export interface RouteInput {
  name?: unknown;
  provider?: unknown;
  enabled?: unknown;
  minimumPriority?: unknown;
  typeId?: unknown;
  project?: unknown;
  agent?: unknown;
  includeMessage?: unknown;
}

/**
 * Provider profiles, routes and the enqueue rule. Matching runs on an in-memory snapshot, so creating a
 * notification costs no query: its matching routes go into its own row as a marker (the folded outbox, see
 * store/outbox-store.ts), which the dispatcher expands into items. No network I/O happens here except the Test
 * action, which the owner asks for.
 */
export class OutboundService {
  private profiles = new Map<string, StoredProfile>();
  private routes: OutboundRoute[] = [];
  /**
   * Markers by matched route set, the set as a bit mask over `routes` (or the indexes joined, past 31 routes), so
   * a create looks its marker up instead of building the string. Cleared on every reload.
   */
  private markers = new Map<number | string, string>();
  private readonly kickListeners: (() => void)[] = [];

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
    this.markers = new Map();
  }

  /**
   * The marker of the routes (of enabled providers) that match `notification`, or null when none does. For a new
   * notification (NotificationService's OutboundMarker, inside its transaction, before the INSERT) it is stored in
   * its own row, and no outbox row is written now.
   */
  markerFor(notification: NotificationDto): string | null {
    const routes = this.routes;
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
      const kind = input.kind ?? existing?.profile.kind;
      if (typeof kind !== "string" || !this.adapters.has(kind)) {
        throw invalid(`kind must be one of ${[...this.adapters.keys()].join(", ")}`);
      }
      const adapter = this.adapters.get(kind) as ProviderAdapter;
      const name = input.name ?? existing?.profile.name;
      if (typeof name !== "string" || name.trim().length < 1 || name.length > 100) {
        throw invalid("name must be 1-100 characters");
      }
      const clash = this.findProfile(name);
      if (clash && clash.id !== existing?.profile.id) throw invalid(`a provider named ${name} already exists`);
      const settings = adapter.parseSettings(input.settings ?? existing?.profile.settings);
      const enabled = input.enabled === undefined ? (existing?.profile.enabled ?? false) : input.enabled;
      if (typeof enabled !== "boolean") throw invalid("enabled must be true or false");

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
      const name = input.name ?? existing?.name;
      if (typeof name !== "string" || name.trim().length < 1 || name.length > 100) {
        throw invalid("name must be 1-100 characters");
      }
      const clash = this.findRoute(name);
      if (clash && clash.id !== existing?.id) throw invalid(`a route named ${name} already exists`);
      const providerRef = input.provider ?? existing?.providerId;
      const provider = typeof providerRef === "string" ? this.findProfile(providerRef) : undefined;
      if (!provider) throw invalid("provider must name an existing provider profile (id or name)");
      const minimumPriority = input.minimumPriority ?? existing?.minimumPriority ?? "low";
      if (typeof minimumPriority !== "string" || !(PRIORITIES as readonly string[]).includes(minimumPriority)) {
        throw invalid(`minimumPriority must be one of ${PRIORITIES.join(", ")}`);
      }
      const enabled = input.enabled === undefined ? (existing?.enabled ?? false) : input.enabled;
      const includeMessage =
        input.includeMessage === undefined ? (existing?.includeMessage ?? true) : input.includeMessage;
      if (typeof enabled !== "boolean") throw invalid("enabled must be true or false");
      if (typeof includeMessage !== "boolean") throw invalid("includeMessage must be true or false");
      const now = isoTime(this.clock.now());
      const route: OutboundRoute = {
        id: existing?.id ?? `rte_${randomBytes(12).toString("hex")}`,
        name,
        providerId: provider.id,
        enabled,
        minimumPriority: minimumPriority as Priority,
        includeMessage,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      const typeId = optionalGate(input, existing, "typeId", 64);
      if (typeId !== undefined) {
        if (!isTypeId(typeId.replaceAll("-", "_").toLowerCase())) throw invalid("typeId must be a type ID");
        route.typeId = typeId;
      }
      const project = optionalGate(input, existing, "project", 200);
      if (project !== undefined) route.project = project;
      const agent = optionalGate(input, existing, "agent", 100);
      if (agent !== undefined) route.agent = agent;
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
  interaction(id: string): InteractionDto | undefined {
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

function mergeSecrets(
  current: Record<string, string>,
  change: unknown,
  adapter: ProviderAdapter,
): Record<string, string> {
  if (change === undefined || change === null) return current;
  if (typeof change !== "object" || Array.isArray(change)) throw invalid("secrets must be an object of strings");
  const known = [...adapter.secrets.required, ...adapter.secrets.optional];
  const merged = { ...current };
  for (const [name, value] of Object.entries(change)) {
    if (!known.includes(name)) throw invalid(`unknown secret for ${adapter.kind}: ${name}`);
    if (value === null) delete merged[name];
    else if (typeof value === "string" && value.length > 0 && value.length <= 4096) merged[name] = value;
    else throw invalid(`secret ${name} must be a string of 1-4096 characters, or null to remove it`);
  }
  return merged;
}

function optionalGate(
  input: RouteInput,
  existing: OutboundRoute | undefined,
  field: "typeId" | "project" | "agent",
  max: number,
): string | undefined {
  const value = Object.hasOwn(input, field) ? input[field] : existing?.[field];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || value.trim().length === 0 || value.length > max) {
    throw invalid(`${field} must be 1-${max} characters`);
  }
  return value.trim();
}
