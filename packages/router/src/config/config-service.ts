import type { DatabaseSync } from "node:sqlite";
import type { EffortOverride } from "../effort/mapping.js";
import { transaction } from "../transaction.js";
import { SavedAccounts } from "./accounts.js";
import { EffortOverrideStore, type EffortOverrides, type EffortScope } from "./effort-config.js";
import {
  type ConfigSnapshot,
  destinationProblem,
  MAX_DECLARED_MODELS,
  normalizedBaseUrl,
  RECORD_WIRES,
  type RecordWire,
  type Route,
  type RouterSettings,
  SLUG_PATTERN,
  SWITCH_STRATEGIES,
  UPSTREAM_AUTHS,
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

const bool = (value: unknown, field: string, fallback: boolean): boolean => {
  if (value === undefined) return fallback;
  return typeof value === "boolean" ? value : fail(`${field} must be true or false`);
};

/**
 * Upstreams, routes and settings with every rule of spec 3: slug pattern, up to 500 declared models, model_wires,
 * sealed key (never returned), alias exactly one target, combo 1-8, the destination rule, and the deletion rules
 * (docs/router.md): an upstream or route still named by a route or a setting cannot be deleted.
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
   * agents, spec 3 Agent connectors 4). Called once per turn of the event loop however many changes it held, after
   * the change's transaction committed. Returns the unsubscribe function.
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
   * in memory (never written anywhere) until the configuration changes: an AES-GCM open per attempt cost about 5% of
   * the router's CPU per request (bench/README.md, Router). A key that cannot be opened is not kept, so every
   * attempt tries again and fails with `provider_key_unreadable`.
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
      const known = [
        "slug",
        "label",
        "wire",
        "base_url",
        "key",
        "models",
        "enabled",
        "auth",
        "model_wires",
        "credential_ref",
      ];
      for (const field of Object.keys(input)) if (!known.includes(field)) fail(`unknown upstream field: ${field}`);
      const slug = input.slug ?? existing?.slug;
      if (typeof slug !== "string" || !SLUG_PATTERN.test(slug)) fail("slug must match [a-z0-9][a-z0-9-]{0,31}");
      const clash = this.findUpstream(slug as string);
      if (clash && clash.id !== existing?.id) fail(`an upstream with slug ${slug as string} already exists`);
      const wire = input.wire ?? existing?.wire;
      if (typeof wire !== "string" || !(RECORD_WIRES as readonly string[]).includes(wire)) {
        fail(`wire must be one of ${RECORD_WIRES.join(", ")}`);
      }
      const baseUrl = input.base_url ?? existing?.base_url;
      if (typeof baseUrl !== "string") fail("base_url is required");
      const problem = destinationProblem(baseUrl as string);
      if (problem) fail(problem);
      const label = input.label ?? existing?.label ?? slug;
      if (typeof label !== "string" || label.length < 1 || label.length > 100) fail("label must be 1-100 characters");
      const models = input.models ?? existing?.models ?? [];
      if (
        !Array.isArray(models) ||
        models.some((model) => typeof model !== "string" || model.length < 1 || model.length > 200)
      ) {
        fail("models must be an array of model IDs");
      }
      // Counted as stored, without repeats.
      if (new Set(models as string[]).size > MAX_DECLARED_MODELS)
        fail(`at most ${MAX_DECLARED_MODELS} declared models`);
      const auth = input.auth ?? existing?.auth ?? "api_key";
      if (typeof auth !== "string" || !(UPSTREAM_AUTHS as readonly string[]).includes(auth)) {
        fail(`auth must be one of ${UPSTREAM_AUTHS.join(", ")}`);
      }
      const modelWires = input.model_wires ?? existing?.model_wires ?? {};
      if (modelWires === null || typeof modelWires !== "object" || Array.isArray(modelWires)) {
        fail("model_wires must be an object of model ID to wire");
      }
      for (const [model, modelWire] of Object.entries(modelWires as object)) {
        if (!(RECORD_WIRES as readonly string[]).includes(modelWire as string))
          fail(`model_wires.${model} is not a wire`);
      }
      const credentialRef = this.credentialRefOf(input, existing);
      const id = existing?.id ?? newRecordId("ups");
      let sealed = existing ? this.store.sealedKey(id) : null;
      if (input.key !== undefined) {
        if (input.key === null || input.key === "") sealed = null;
        else if (typeof input.key === "string" && input.key.length <= 8192)
          sealed = this.sealer.seal(id, { key: input.key });
        else fail("key must be a string (or null to remove it)");
      }
      // One credential source at a time: a saved account's key replaces a typed one.
      if (credentialRef?.startsWith("api_account:")) sealed = null;
      // A key reaches only the host it was saved for: moving base_url to another origin needs the key again.
      if (
        existing !== undefined &&
        input.key === undefined &&
        sealed !== null &&
        new URL(existing.base_url).origin !== new URL(baseUrl as string).origin
      ) {
        fail("base_url moves to another host: send the key again (or key: null to remove it)");
      }
      const now = this.now();
      const upstream: Upstream = {
        id,
        slug: slug as string,
        label: label as string,
        wire: wire as RecordWire,
        base_url: normalizedBaseUrl(baseUrl as string),
        has_key: sealed !== null,
        models: [...new Set(models as string[])],
        enabled: bool(input.enabled, "enabled", existing?.enabled ?? false),
        auth: auth as Upstream["auth"],
        model_wires: modelWires as Record<string, RecordWire>,
        credential_ref: credentialRef as string | null,
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
   * `api_account:` reference (spec 3, Subscription upstreams 5); sending both in one change is refused.
   */
  private credentialRefOf(input: Input, existing: Upstream | undefined): string | null {
    if (input.credential_ref === undefined) {
      const kept = existing?.credential_ref ?? null;
      return input.key !== undefined && kept?.startsWith("api_account:") ? null : kept;
    }
    const ref = input.credential_ref;
    if (ref === null) return null;
    if (typeof ref !== "string" || ref.length > 1024 || !/^(api_account|profile):.+$/.test(ref)) {
      return fail("credential_ref must be null, api_account:<id> or profile:<directory>");
    }
    if (ref.startsWith("profile:") && !/^profile:(\/|~\/)/.test(ref)) {
      fail("profile:<directory> must name an absolute or ~/ directory");
    }
    if (ref.startsWith("api_account:")) {
      if (typeof input.key === "string" && input.key !== "")
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
      for (const field of Object.keys(input)) {
        if (!["name", "kind", "targets", "enabled"].includes(field)) fail(`unknown route field: ${field}`);
      }
      const name = input.name ?? existing?.name;
      if (typeof name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || name.includes("/")) {
        fail("name must be 1-64 letters, digits, dots, dashes or underscores");
      }
      const clash = this.findRoute(name as string);
      if (clash && clash.id !== existing?.id) fail(`a route named ${name as string} already exists`);
      const kind = input.kind ?? existing?.kind;
      if (kind !== "alias" && kind !== "combo") fail("kind must be alias or combo");
      const targets = input.targets ?? existing?.targets;
      if (
        !Array.isArray(targets) ||
        targets.some((target) => typeof target !== "string" || !/^[^/]+\/.+$/.test(target))
      ) {
        fail("targets must be an array of provider/model strings");
      }
      const list = targets as string[];
      if (kind === "alias" && list.length !== 1) fail("an alias has exactly one target");
      if (kind === "combo" && (list.length < 1 || list.length > 8)) fail("a combo has 1-8 targets");
      for (const target of list) {
        const slug = target.slice(0, target.indexOf("/"));
        if (!this.findUpstream(slug)) fail(`target ${target}: no upstream with slug ${slug}`);
      }
      const now = this.now();
      const route: Route = {
        id: existing?.id ?? newRecordId("rrt"),
        name: name as string,
        kind: kind as Route["kind"],
        targets: list,
        enabled: bool(input.enabled, "enabled", existing?.enabled ?? true),
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
      for (const field of Object.keys(input)) {
        if (!["default_route", "switch_strategy", "native_fallback_route"].includes(field)) {
          fail(`unknown settings field: ${field}`);
        }
      }
      const current = this.store.settings();
      const next: RouterSettings = { ...current };
      for (const field of ["default_route", "native_fallback_route"] as const) {
        if (input[field] === undefined) continue;
        const value = input[field];
        if (value !== null && (typeof value !== "string" || value.length < 1 || value.length > 300)) {
          fail(`${field} must be a provider/model, an alias or combo name, or null`);
        }
        next[field] = value as string | null;
      }
      if (input.switch_strategy !== undefined) {
        if (!(SWITCH_STRATEGIES as readonly unknown[]).includes(input.switch_strategy)) {
          fail(`switch_strategy must be one of ${SWITCH_STRATEGIES.join(", ")}`);
        }
        next.switch_strategy = input.switch_strategy as RouterSettings["switch_strategy"];
      }
      this.store.saveSettings(next);
      this.changed();
      return next;
    });
  }
}
