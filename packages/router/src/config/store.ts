import { randomBytes } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "../transaction.js";
import type { RecordWire, Route, RouterSettings, Upstream, UpstreamAuth } from "./records.js";

/** Seals and opens upstream keys; the broker supplies its AES-256-GCM sealer (the key file in the data dir). */
export interface KeySealer {
  seal(recordId: string, secrets: Record<string, string>): string;
  open(recordId: string, sealed: string): Record<string, string>;
}

/** Router tables live in their own database file, so the router depends on nothing of notifications. */
const MIGRATIONS: string[] = [
  `CREATE TABLE upstreams (
     id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, label TEXT NOT NULL, wire TEXT NOT NULL, base_url TEXT NOT NULL,
     sealed_key TEXT, models TEXT NOT NULL, enabled INTEGER NOT NULL, created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL) STRICT;
   CREATE TABLE routes (
     id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, targets TEXT NOT NULL,
     enabled INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT;
   CREATE TABLE settings (
     id INTEGER PRIMARY KEY CHECK (id = 1), default_route TEXT, switch_strategy TEXT NOT NULL DEFAULT 'off',
     native_fallback_route TEXT) STRICT;
   INSERT INTO settings (id) VALUES (1);
   CREATE TABLE requests (
     seq INTEGER PRIMARY KEY, id TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT,
     started_ms INTEGER NOT NULL, inbound_wire TEXT NOT NULL, requested_model TEXT, route_kind TEXT, route_name TEXT,
     upstream_slug TEXT, upstream_model TEXT, stream INTEGER NOT NULL, status INTEGER, outcome TEXT,
     input_tokens INTEGER, cached_input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
     usage_status TEXT, error_code TEXT, notes TEXT) STRICT;
   CREATE INDEX requests_by_start ON requests(started_ms);
   CREATE TABLE attempts (
     request_id TEXT NOT NULL, ordinal INTEGER NOT NULL, upstream_slug TEXT NOT NULL, model TEXT NOT NULL,
     upstream_wire TEXT NOT NULL, status INTEGER, error_code TEXT, duration_ms INTEGER, bytes_streamed INTEGER NOT NULL,
     started_at TEXT NOT NULL, started_ms INTEGER NOT NULL, PRIMARY KEY (request_id, ordinal)) STRICT;
`,
  // The auth and model_wires columns are added to an older store in place (docs/router.md, "Upstream").
  `ALTER TABLE upstreams ADD COLUMN auth TEXT NOT NULL DEFAULT 'api_key';
   ALTER TABLE upstreams ADD COLUMN model_wires TEXT NOT NULL DEFAULT '{}';
   ALTER TABLE upstreams ADD COLUMN credential_ref TEXT;`,
  // Effort override sets (docs/router.md, "Effort mapping"): per family id and per provider/model.
  `CREATE TABLE effort_overrides (
     scope TEXT NOT NULL, name TEXT NOT NULL, override TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (scope, name)) STRICT;`,
  // Saved provider accounts (docs/router.md, "Saved accounts"): a sealed key per account, opened per
  // attempt by an upstream whose credential_ref is api_account:<id>.
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY, provider TEXT NOT NULL, label TEXT NOT NULL, sealed_key TEXT NOT NULL,
     admin_only INTEGER NOT NULL, created_at TEXT NOT NULL) STRICT;`,
];

export function migrateRouterDatabase(db: DatabaseSync): void {
  const { user_version: version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
  for (let index = version; index < MIGRATIONS.length; index++) {
    transaction(db, () => {
      db.exec(MIGRATIONS[index] as string);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    });
  }
}

interface UpstreamRow {
  id: string;
  slug: string;
  label: string;
  wire: string;
  base_url: string;
  sealed_key: string | null;
  models: string;
  enabled: number;
  auth: string;
  model_wires: string;
  credential_ref: string | null;
  created_at: string;
  updated_at: string;
}

interface RouteRow {
  id: string;
  name: string;
  kind: string;
  targets: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

function toUpstream(row: UpstreamRow): Upstream {
  return {
    id: row.id,
    slug: row.slug,
    label: row.label,
    wire: row.wire as RecordWire,
    base_url: row.base_url,
    has_key: row.sealed_key !== null,
    models: JSON.parse(row.models) as string[],
    enabled: row.enabled === 1,
    auth: row.auth as UpstreamAuth,
    model_wires: JSON.parse(row.model_wires) as Record<string, RecordWire>,
    credential_ref: row.credential_ref,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toRoute(row: RouteRow): Route {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as Route["kind"],
    targets: JSON.parse(row.targets) as string[],
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const newRecordId = (prefix: string): string => `${prefix}_${randomBytes(12).toString("hex")}`;

/** SQL for upstreams, routes and the settings row. */
export class RouterConfigStore {
  private readonly statements: Record<string, StatementSync>;

  constructor(readonly db: DatabaseSync) {
    migrateRouterDatabase(db);
    this.statements = {
      upstreams: db.prepare("SELECT * FROM upstreams ORDER BY created_at, slug"),
      routes: db.prepare("SELECT * FROM routes ORDER BY created_at, name"),
      settings: db.prepare("SELECT default_route, switch_strategy, native_fallback_route FROM settings WHERE id = 1"),
      sealedKey: db.prepare("SELECT sealed_key FROM upstreams WHERE id = ?"),
      insertUpstream: db.prepare(`INSERT INTO upstreams (id, slug, label, wire, base_url, sealed_key, models, enabled,
        auth, model_wires, credential_ref, created_at, updated_at) VALUES (:id, :slug, :label, :wire, :base_url,
        :sealed_key, :models, :enabled, :auth, :model_wires, :credential_ref, :created_at, :updated_at)`),
      updateUpstream: db.prepare(`UPDATE upstreams SET slug = :slug, label = :label, wire = :wire, base_url = :base_url,
        sealed_key = :sealed_key, models = :models, enabled = :enabled, auth = :auth, model_wires = :model_wires,
        credential_ref = :credential_ref, updated_at = :updated_at WHERE id = :id`),
      deleteUpstream: db.prepare("DELETE FROM upstreams WHERE id = ?"),
      insertRoute: db.prepare(`INSERT INTO routes (id, name, kind, targets, enabled, created_at, updated_at)
        VALUES (:id, :name, :kind, :targets, :enabled, :created_at, :updated_at)`),
      updateRoute: db.prepare(`UPDATE routes SET name = :name, kind = :kind, targets = :targets, enabled = :enabled,
        updated_at = :updated_at WHERE id = :id`),
      deleteRoute: db.prepare("DELETE FROM routes WHERE id = ?"),
      updateSettings: db.prepare(`UPDATE settings SET default_route = :default_route,
        switch_strategy = :switch_strategy, native_fallback_route = :native_fallback_route WHERE id = 1`),
    };
  }

  private statement(name: string): StatementSync {
    return this.statements[name] as StatementSync;
  }

  upstreams(): Upstream[] {
    return (this.statement("upstreams").all() as unknown as UpstreamRow[]).map(toUpstream);
  }

  routes(): Route[] {
    return (this.statement("routes").all() as unknown as RouteRow[]).map(toRoute);
  }

  settings(): RouterSettings {
    return this.statement("settings").get() as unknown as RouterSettings;
  }

  sealedKey(id: string): string | null {
    const row = this.statement("sealedKey").get(id) as { sealed_key: string | null } | undefined;
    return row?.sealed_key ?? null;
  }

  saveUpstream(upstream: Upstream, sealedKey: string | null, isNew: boolean): void {
    this.statement(isNew ? "insertUpstream" : "updateUpstream").run({
      id: upstream.id,
      slug: upstream.slug,
      label: upstream.label,
      wire: upstream.wire,
      base_url: upstream.base_url,
      sealed_key: sealedKey,
      models: JSON.stringify(upstream.models),
      enabled: upstream.enabled ? 1 : 0,
      auth: upstream.auth,
      model_wires: JSON.stringify(upstream.model_wires),
      credential_ref: upstream.credential_ref,
      ...(isNew ? { created_at: upstream.created_at } : {}),
      updated_at: upstream.updated_at,
    });
  }

  deleteUpstream(id: string): void {
    this.statement("deleteUpstream").run(id);
  }

  saveRoute(route: Route, isNew: boolean): void {
    this.statement(isNew ? "insertRoute" : "updateRoute").run({
      id: route.id,
      name: route.name,
      kind: route.kind,
      targets: JSON.stringify(route.targets),
      enabled: route.enabled ? 1 : 0,
      ...(isNew ? { created_at: route.created_at } : {}),
      updated_at: route.updated_at,
    });
  }

  deleteRoute(id: string): void {
    this.statement("deleteRoute").run(id);
  }

  saveSettings(settings: RouterSettings): void {
    this.statement("updateSettings").run({ ...settings });
  }
}
