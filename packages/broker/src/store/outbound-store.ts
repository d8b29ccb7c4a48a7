import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { RouteNoiseField, RouteRoutingField } from "@notify/contracts/routing-summary";
import type { Priority } from "../notifications/types.js";
import type { OutboundRoute, ProviderProfile } from "../outbox/types.js";

const PROFILE_COLUMNS = "id, kind, name, settings, sealed_secrets, enabled, created_at, updated_at";
const ROUTE_COLUMNS =
  "id, name, provider_id, enabled, minimum_priority, type_id, project, agent, include_message, routing, created_at, " +
  "updated_at";

const INSERT_PROFILE = `INSERT INTO provider_profiles (${PROFILE_COLUMNS})
  VALUES (:id, :kind, :name, :settings, :sealed_secrets, :enabled, :created_at, :updated_at)`;
const UPDATE_PROFILE = `UPDATE provider_profiles SET kind = :kind, name = :name, settings = :settings,
  sealed_secrets = :sealed_secrets, enabled = :enabled, updated_at = :updated_at WHERE id = :id`;
const DELETE_PROFILE = "DELETE FROM provider_profiles WHERE id = ?";
const SELECT_PROFILES = `SELECT ${PROFILE_COLUMNS} FROM provider_profiles ORDER BY name`;
const INSERT_ROUTE = `INSERT INTO outbound_routes (${ROUTE_COLUMNS}) VALUES (:id, :name, :provider_id, :enabled,
  :minimum_priority, :type_id, :project, :agent, :include_message, :routing, :created_at, :updated_at)`;
const UPDATE_ROUTE = `UPDATE outbound_routes SET name = :name, provider_id = :provider_id, enabled = :enabled,
  minimum_priority = :minimum_priority, type_id = :type_id, project = :project, agent = :agent,
  include_message = :include_message, routing = :routing, updated_at = :updated_at WHERE id = :id`;
const DELETE_ROUTE = "DELETE FROM outbound_routes WHERE id = ?";
const SELECT_ROUTES = `SELECT ${ROUTE_COLUMNS} FROM outbound_routes ORDER BY name`;

interface ProfileRow {
  id: string;
  kind: string;
  name: string;
  settings: string;
  sealed_secrets: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

interface RouteRow {
  id: string;
  name: string;
  provider_id: string;
  enabled: number;
  minimum_priority: string;
  type_id: string | null;
  project: string | null;
  agent: string | null;
  include_message: number;
  /** The routing options as JSON (migration 8), null when every one is at its default. */
  routing: string | null;
  created_at: string;
  updated_at: string;
}

/** A stored profile with its sealed secrets and the names of the secrets it holds (kept beside, in settings). */
export interface StoredProfile {
  profile: ProviderProfile;
  sealedSecrets: string | null;
}

const SECRET_NAMES_KEY = "__secretNames";

function toProfile(row: ProfileRow): StoredProfile {
  const settings = JSON.parse(row.settings) as Record<string, unknown>;
  const secretNames = Array.isArray(settings[SECRET_NAMES_KEY]) ? (settings[SECRET_NAMES_KEY] as string[]) : [];
  delete settings[SECRET_NAMES_KEY];
  return {
    profile: {
      id: row.id,
      kind: row.kind,
      name: row.name,
      settings,
      secretNames,
      enabled: row.enabled === 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    },
    sealedSecrets: row.sealed_secrets,
  };
}

function toRoute(row: RouteRow): OutboundRoute {
  const route: OutboundRoute = {
    id: row.id,
    name: row.name,
    providerId: row.provider_id,
    enabled: row.enabled === 1,
    minimumPriority: row.minimum_priority as Priority,
    includeMessage: row.include_message === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.type_id !== null) route.typeId = row.type_id;
  if (row.project !== null) route.project = row.project;
  if (row.agent !== null) route.agent = row.agent;
  if (row.routing !== null) {
    const routing = JSON.parse(row.routing) as Pick<OutboundRoute, RouteRoutingField | RouteNoiseField>;
    if (routing.delay_seconds !== undefined) route.delay_seconds = routing.delay_seconds;
    if (routing.when !== undefined) route.when = routing.when;
    if (routing.quiet_hours !== undefined) route.quiet_hours = routing.quiet_hours;
    if (routing.digest_seconds !== undefined) route.digest_seconds = routing.digest_seconds;
    if (routing.replace_finished !== undefined) route.replace_finished = routing.replace_finished;
  }
  return route;
}

/** The routing options of a route as stored (migration 8): JSON of those set, null when none is. */
function routingJson(route: OutboundRoute): string | null {
  const routing: Pick<OutboundRoute, RouteRoutingField | RouteNoiseField> = {};
  if (route.delay_seconds !== undefined) routing.delay_seconds = route.delay_seconds;
  if (route.when !== undefined) routing.when = route.when;
  if (route.quiet_hours !== undefined) routing.quiet_hours = route.quiet_hours;
  // Less noise (docs/outbound.md): the same column, so no migration; attention routing reads only its own three.
  if (route.digest_seconds !== undefined) routing.digest_seconds = route.digest_seconds;
  if (route.replace_finished !== undefined) routing.replace_finished = route.replace_finished;
  return Object.keys(routing).length > 0 ? JSON.stringify(routing) : null;
}

/** Provider profiles and outbound routes (OutboundService); writes join the caller's unit of work. */
export interface OutboundStore {
  profiles(): StoredProfile[];
  routes(): OutboundRoute[];
  saveProfile(profile: ProviderProfile, sealedSecrets: string | null, isNew: boolean): void;
  deleteProfile(id: string): void;
  saveRoute(route: OutboundRoute, isNew: boolean): void;
  deleteRoute(id: string): void;
}

/** SQL for provider profiles and outbound routes. */
export class SqliteOutboundStore implements OutboundStore {
  private readonly statements: Record<string, StatementSync>;

  constructor(db: DatabaseSync) {
    this.statements = {
      insertProfile: db.prepare(INSERT_PROFILE),
      updateProfile: db.prepare(UPDATE_PROFILE),
      deleteProfile: db.prepare(DELETE_PROFILE),
      selectProfiles: db.prepare(SELECT_PROFILES),
      insertRoute: db.prepare(INSERT_ROUTE),
      updateRoute: db.prepare(UPDATE_ROUTE),
      deleteRoute: db.prepare(DELETE_ROUTE),
      selectRoutes: db.prepare(SELECT_ROUTES),
    };
  }

  private run(name: string, params: Record<string, SQLInputValue> | string): void {
    const statement = this.statements[name] as StatementSync;
    if (typeof params === "string") statement.run(params);
    else statement.run(params);
  }

  profiles(): StoredProfile[] {
    return ((this.statements.selectProfiles as StatementSync).all() as unknown as ProfileRow[]).map(toProfile);
  }

  routes(): OutboundRoute[] {
    return ((this.statements.selectRoutes as StatementSync).all() as unknown as RouteRow[]).map(toRoute);
  }

  saveProfile(profile: ProviderProfile, sealedSecrets: string | null, isNew: boolean): void {
    this.run(isNew ? "insertProfile" : "updateProfile", {
      id: profile.id,
      kind: profile.kind,
      name: profile.name,
      settings: JSON.stringify({ ...profile.settings, [SECRET_NAMES_KEY]: profile.secretNames }),
      sealed_secrets: sealedSecrets,
      enabled: profile.enabled ? 1 : 0,
      ...(isNew ? { created_at: profile.createdAt } : {}),
      updated_at: profile.updatedAt,
    });
  }

  deleteProfile(id: string): void {
    this.run("deleteProfile", id);
  }

  saveRoute(route: OutboundRoute, isNew: boolean): void {
    this.run(isNew ? "insertRoute" : "updateRoute", {
      id: route.id,
      name: route.name,
      provider_id: route.providerId,
      enabled: route.enabled ? 1 : 0,
      minimum_priority: route.minimumPriority,
      type_id: route.typeId ?? null,
      project: route.project ?? null,
      agent: route.agent ?? null,
      include_message: route.includeMessage ? 1 : 0,
      routing: routingJson(route),
      ...(isNew ? { created_at: route.createdAt } : {}),
      updated_at: route.updatedAt,
    });
  }

  deleteRoute(id: string): void {
    this.run("deleteRoute", id);
  }
}
