import type { DatabaseSync } from "node:sqlite";
import {
  parseRouterInput,
  RouterRouteInput,
  RouterRoutingSettingsInput,
  RouterUpstreamInput,
} from "@notify/contracts/ui";
import type { EffortOverride } from "../effort/mapping.js";
import { transaction } from "../transaction.js";
import { SavedAccounts } from "./accounts.js";
import { EffortOverrideStore, type EffortOverrides, type EffortScope } from "./effort-config.js";
import {
  type ConfigSnapshot,
  destinationProblem,
  normalizedBaseUrl,
  type Route,
  type RouterSettings,
  type Upstream,
} from "./records.js";
import { type KeySealer, newRecordId, RouterConfigStore } from "./store.js";

/** A configuration change the router refuses; the broker maps it to 400 `{error}` on /ui/api/router. */
export class RouterConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RouterConfigError";
  }
}

const fail = (message: string): never => {
  throw new RouterConfigError(message);
};

type Input = Record<string, unknown>;

/** The contract schema's parse, its first problem as the 400 `{error}` (the messages are the contract's). */
function parsed<T>(schema: Parameters<typeof parseRouterInput<T>>[0], value: unknown): T {
  const result = parseRouterInput(schema, value);
  return result.ok ? result.value : fail(result.message);
}

/**
 * The upstream a change leaves: each field sent, else the stored one, else its default (a label defaults to the
 * slug). `key`, `credential_ref` and `enabled` stay as sent: they are changes, not stored fields to re-check.
 */
function upstreamLeft(input: Input, existing: Upstream | undefined): Input {
  const slug = input.slug ?? existing?.slug;
  return {
    ...input,
    slug,
    wire: input.wire ?? existing?.wire,
    base_url: input.base_url ?? existing?.base_url,
    label: input.label ?? existing?.label ?? slug,
    models: input.models ?? existing?.models ?? [],
    auth: input.auth ?? existing?.auth ?? "api_key",
    model_wires: input.model_wires ?? existing?.model_wires ?? {},
  };
}

/**
 * Upstreams, routes and settings with every rule of docs/router.md, "Records and rules". A change is parsed with the
 * contract's schema (packages/contracts/src/ui/router.ts: slug pattern, declared models, model_wires, alias one target,
 * combo 1-8), then the checks that need the store run in order: slug and name clashes, the destination rule, saved
 * accounts, targets naming upstreams, and the deletion rules (docs/router.md): an upstream or route still named by a
 * route or a setting cannot be deleted. Keys are sealed and never returned.
 */
export class RouterConfig {
  private readonly store: RouterConfigStore;
  private readonly effort: EffortOverrideStore;
  private snapshotCache: ConfigSnapshot | undefined;
  /** Saved provider accounts, whose keys upstreams reference as `api_account:<id>`. */
  readonly accounts: SavedAccounts;

  constructor(
    db: DatabaseSync,
    private readonly sealer: KeySealer,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.store = new RouterConfigStore(db);
    this.effort = new EffortOverrideStore(db);
    this.accounts = new SavedAccounts(db, sealer, now);
  }

  snapshot(): ConfigSnapshot {
    this.snapshotCache ??= {
      upstreams: this.store.upstreams(),
      routes: this.store.routes(),
      settings: this.store.settings(),
      effort: this.effort.all(),
    };
    return this.snapshotCache;
  }

  /**
   * Stores (or with `null` removes) one effort override set: a family id, or a `provider/model`. Refused unless
   * bounded (values the model accepts, or null = omit) and monotonic (docs/router.md, Effort mapping).
   */
  saveEffortOverride(scope: EffortScope, name: string, input: unknown): EffortOverrides {
    return transaction(this.store.db, () => {
      if (input !== null) {
        const problem = this.effort.problem(scope, name, input, this.effort.all());
        if (problem) fail(problem);
      }
      this.effort.save(scope, name, input as EffortOverride | null, this.now());
      this.changed();
      return this.effort.all();
    });
  }

  /** Opened keys by upstream id (null: the upstream has none), for as long as the configuration is unchanged. */
  private readonly openedKeys = new Map<string, string | null>();
  private readonly listeners = new Set<() => void>();
  private notifying = false;

  /**
   * Calls `listener` after upstreams, routes, settings or effort overrides changed (the broker rewrites connected
   * agents, docs/connectors.md, "Writing rules"). Called once per turn of the event loop however many changes it held,
   * after the change's transaction committed. Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.snapshotCache = undefined;
    this.openedKeys.clear();
    if (this.notifying || this.listeners.size === 0) return;
    this.notifying = true;
    queueMicrotask(() => {
      this.notifying = false;
      for (const listener of this.listeners) listener();
    });
  }

  findUpstream(idOrSlug: string): Upstream | undefined {
    return this.snapshot().upstreams.find((upstream) => upstream.id === idOrSlug || upstream.slug === idOrSlug);
  }

  findRoute(idOrName: string): Route | undefined {
    return this.snapshot().routes.find((route) => route.id === idOrName || route.name === idOrName);
  }

  /**
   * The upstream's key, for building an upstream request. It is opened the first time a request needs it and kept
   * in memory (never written anywhere) until the configuration changes: a store read and an AES-GCM open per attempt
   * stood out in the router's CPU profile (bench/README.md, Router, `openKey`). A key that cannot be opened is not
   * kept, so every attempt tries again and fails with `provider_key_unreadable`.
   */
  openKey(upstream: Upstream): string | undefined {
    const known = this.openedKeys.get(upstream.id);
    if (known !== undefined) return known ?? undefined;
    const sealed = this.store.sealedKey(upstream.id);
    const key = sealed === null ? null : (this.sealer.open(upstream.id, sealed).key ?? null);
    this.openedKeys.set(upstream.id, key);
    return key ?? undefined;
  }

  saveUpstream(input: Input, existingRef?: string): Upstream {
    return transaction(this.store.db, () => {
      const existing = existingRef === undefined ? undefined : this.findUpstream(existingRef);
      if (existingRef !== undefined && !existing) fail("upstream not found");
      const change = parsed(RouterUpstreamInput, upstreamLeft(input, existing));
      const clash = this.findUpstream(change.slug);
      if (clash && clash.id !== existing?.id) fail(`an upstream with slug ${change.slug} already exists`);
      const problem = destinationProblem(change.base_url);
      if (problem) fail(problem);
      const credentialRef = this.credentialRefOf(change, existing);
      const id = existing?.id ?? newRecordId("ups");
      let sealed = existing ? this.store.sealedKey(id) : null;
      if (change.key !== undefined) {
        sealed = change.key === null || change.key === "" ? null : this.sealer.seal(id, { key: change.key });
      }
      // One credential source at a time: a saved account's key replaces a typed one.
      if (credentialRef?.startsWith("api_account:")) sealed = null;
      // A key reaches only the host it was saved for: moving base_url to another origin needs the key again.
      if (
        existing !== undefined &&
        change.key === undefined &&
        sealed !== null &&
        new URL(existing.base_url).origin !== new URL(change.base_url).origin
      ) {
        fail("base_url moves to another host: send the key again (or key: null to remove it)");
      }
      const now = this.now();
      const upstream: Upstream = {
        id,
        slug: change.slug,
        label: change.label,
        wire: change.wire,
        base_url: normalizedBaseUrl(change.base_url),
        has_key: sealed !== null,
        models: [...new Set(change.models)],
        enabled: change.enabled ?? existing?.enabled ?? false,
        auth: change.auth,
        model_wires: change.model_wires,
        credential_ref: credentialRef,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      if (existing && existing.slug !== upstream.slug) this.refuseIfNamed(existing.slug, "upstream");
      this.store.saveUpstream(upstream, sealed, existing === undefined);
      this.changed();
      return upstream;
    });
  }

  /**
   * The credential_ref a change leaves: `null`, `api_account:<id>` (a saved account that exists and can send model
   * requests: an admin-only key is refused) or `profile:<directory>`. A typed key, or its removal, replaces an
   * `api_account:` reference (docs/router.md, "Saved accounts"); sending both in one change is refused.
   */
  private credentialRefOf(change: RouterUpstreamInput, existing: Upstream | undefined): string | null {
    const ref = change.credential_ref;
    if (ref === undefined) {
      const kept = existing?.credential_ref ?? null;
      return change.key !== undefined && kept?.startsWith("api_account:") ? null : kept;
    }
    if (ref === null) return null;
    if (ref.startsWith("api_account:")) {
      if (typeof change.key === "string" && change.key !== "")
        fail("send a key or credential_ref api_account:<id>, not both");
      const account = this.accounts.find(ref.slice("api_account:".length));
      if (!account) fail(`no saved account ${ref.slice("api_account:".length)}`);
      if (account?.admin_only) fail("an admin-only account key cannot send model requests");
    }
    return ref;
  }

  deleteUpstream(ref: string): void {
    transaction(this.store.db, () => {
      const upstream = this.findUpstream(ref) ?? fail("upstream not found");
      this.refuseIfNamed(upstream.slug, "upstream");
      this.store.deleteUpstream(upstream.id);
      this.changed();
    });
  }

  /** Deletion rule: nothing still named by a route target or a setting may go. */
  private refuseIfNamed(name: string, what: "upstream" | "route"): void {
    const { routes, settings } = this.snapshot();
    const matches = (target: string | null): boolean =>
      target !== null &&
      (what === "upstream" ? target.startsWith(`${name}/`) : target === name || target === `combo/${name}`);
    const users = routes.filter((route) => route.targets.some(matches)).map((route) => `route ${route.name}`);
    if (matches(settings.default_route)) users.push("default_route");
    if (matches(settings.native_fallback_route)) users.push("native_fallback_route");
    if (users.length > 0) fail(`${what} ${name} is still used by ${users.join(", ")}`);
  }

  saveRoute(input: Input, existingRef?: string): Route {
    return transaction(this.store.db, () => {
      const existing = existingRef === undefined ? undefined : this.findRoute(existingRef);
      if (existingRef !== undefined && !existing) fail("route not found");
      const change = parsed(RouterRouteInput, {
        ...input,
        name: input.name ?? existing?.name,
        kind: input.kind ?? existing?.kind,
        targets: input.targets ?? existing?.targets,
        enabled: input.enabled === undefined ? (existing?.enabled ?? true) : input.enabled,
      });
      const clash = this.findRoute(change.name);
      if (clash && clash.id !== existing?.id) fail(`a route named ${change.name} already exists`);
      for (const target of change.targets) {
        const slug = target.slice(0, target.indexOf("/"));
        if (!this.findUpstream(slug)) fail(`target ${target}: no upstream with slug ${slug}`);
      }
      const now = this.now();
      const route: Route = {
        id: existing?.id ?? newRecordId("rrt"),
        name: change.name,
        kind: change.kind,
        targets: change.targets,
        enabled: change.enabled,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      if (existing && existing.name !== route.name) this.refuseIfNamed(existing.name, "route");
      this.store.saveRoute(route, existing === undefined);
      this.changed();
      return route;
    });
  }

  deleteRoute(ref: string): void {
    transaction(this.store.db, () => {
      const route = this.findRoute(ref) ?? fail("route not found");
      this.refuseIfNamed(route.name, "route");
      this.store.deleteRoute(route.id);
      this.changed();
    });
  }

  saveSettings(input: Input): RouterSettings {
    return transaction(this.store.db, () => {
      const change = parsed(RouterRoutingSettingsInput, input);
      const next: RouterSettings = { ...this.store.settings() };
      if (change.default_route !== undefined) next.default_route = change.default_route;
      if (change.native_fallback_route !== undefined) next.native_fallback_route = change.native_fallback_route;
      if (change.switch_strategy !== undefined) next.switch_strategy = change.switch_strategy;
      this.store.saveSettings(next);
      this.changed();
      return next;
    });
  }
}
