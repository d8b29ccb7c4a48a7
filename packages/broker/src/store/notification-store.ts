import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { NotificationDto, NotificationFilter, NotificationStatus, Priority } from "../notifications/types.js";
import { StatementCache, whereClause } from "./statement-cache.js";

const COLUMNS =
  "id, key, agent, agent_instance, project, type, priority, title, message, cwd, pid, status, created_at, updated_at, resolved_at, metadata";

// `outbound`: the folded outbox's marker (migration 5), written only here and read only by the outbox store.
const INSERT = `INSERT INTO notifications (${COLUMNS}, outbound)
  VALUES (:id, :key, :agent, :agent_instance, :project, :type, :priority, :title, :message, :cwd, :pid, :status,
          :created_at, :updated_at, :resolved_at, :metadata, :outbound)`;
const UPDATE_CONTENT = `UPDATE notifications SET agent = :agent, agent_instance = :agent_instance, project = :project,
  type = :type, priority = :priority, title = :title, message = :message, cwd = :cwd, pid = :pid,
  metadata = :metadata, updated_at = :updated_at WHERE id = :id`;
const UPDATE_STATUS =
  "UPDATE notifications SET status = :status, updated_at = :updated_at, resolved_at = :resolved_at WHERE id = :id";
const SELECT_BY_ID = `SELECT ${COLUMNS} FROM notifications WHERE id = ?`;
const SELECT_ACTIVE_BY_KEY = `SELECT seq, ${COLUMNS} FROM notifications WHERE key = ? AND status = 'active'`;
const SELECT_LATEST_BY_KEY = `SELECT ${COLUMNS} FROM notifications WHERE key = ? ORDER BY seq DESC LIMIT 1`;
const COUNT_ACTIVE = "SELECT count(*) AS count FROM notifications WHERE status = 'active'";

interface Row {
  id: string;
  key: string | null;
  agent: string;
  agent_instance: string | null;
  project: string | null;
  type: string;
  priority: string;
  title: string;
  message: string;
  cwd: string | null;
  pid: number | null;
  status: string;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  metadata: string | null;
}

function toDto(row: Row): NotificationDto {
  const dto: NotificationDto = {
    id: row.id,
    agent: row.agent,
    type: row.type,
    priority: row.priority as Priority,
    title: row.title,
    message: row.message,
    status: row.status as NotificationStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.key !== null) dto.key = row.key;
  if (row.agent_instance !== null) dto.agentInstance = row.agent_instance;
  if (row.project !== null) dto.project = row.project;
  if (row.cwd !== null) dto.cwd = row.cwd;
  if (row.pid !== null) dto.pid = row.pid;
  if (row.resolved_at !== null) dto.resolvedAt = row.resolved_at;
  if (row.metadata !== null) dto.metadata = JSON.parse(row.metadata) as Record<string, unknown>;
  return dto;
}

function toParams(dto: NotificationDto): Record<string, SQLInputValue> {
  return {
    id: dto.id,
    key: dto.key ?? null,
    agent: dto.agent,
    agent_instance: dto.agentInstance ?? null,
    project: dto.project ?? null,
    type: dto.type,
    priority: dto.priority,
    title: dto.title,
    message: dto.message,
    cwd: dto.cwd ?? null,
    pid: dto.pid ?? null,
    status: dto.status,
    created_at: dto.createdAt,
    updated_at: dto.updatedAt,
    resolved_at: dto.resolvedAt ?? null,
    metadata: dto.metadata === undefined ? null : JSON.stringify(dto.metadata),
  };
}

/** Notifications as the domain reads and writes them (NotificationService); writes join the caller's unit of work. */
export interface NotificationStore {
  /**
   * Inserts a new notification; returns its row (seq). `outbound` is the outbox's marker of the routes it goes to
   * (null: none), stored in the same row so that the create writes no outbox row.
   */
  insert(dto: NotificationDto, outbound?: string | null): number;
  updateContent(dto: NotificationDto): void;
  updateStatus(id: string, status: NotificationStatus, updatedAt: string, resolvedAt: string | null): void;
  byId(id: string): NotificationDto | undefined;
  activeByKey(key: string): NotificationDto | undefined;
  /** The active notification holding `key`, with its row (the outbox references the row). */
  activeRowByKey(key: string): { notification: NotificationDto; seq: number } | undefined;
  latestByKey(key: string): NotificationDto | undefined;
  countActive(): number;
  list(filter: NotificationFilter): NotificationDto[];
}

/** SQL for notifications; no domain rules here. */
export class SqliteNotificationStore implements NotificationStore {
  private readonly insertStatement: StatementSync;
  private readonly updateContentStatement: StatementSync;
  private readonly updateStatusStatement: StatementSync;
  private readonly byIdStatement: StatementSync;
  private readonly activeByKeyStatement: StatementSync;
  private readonly countActiveStatement: StatementSync;
  private readonly latestByKeyStatement: StatementSync;
  private readonly listStatements: StatementCache;

  constructor(db: DatabaseSync) {
    this.listStatements = new StatementCache(db);
    this.insertStatement = db.prepare(INSERT);
    this.updateContentStatement = db.prepare(UPDATE_CONTENT);
    this.updateStatusStatement = db.prepare(UPDATE_STATUS);
    this.byIdStatement = db.prepare(SELECT_BY_ID);
    this.activeByKeyStatement = db.prepare(SELECT_ACTIVE_BY_KEY);
    this.countActiveStatement = db.prepare(COUNT_ACTIVE);
    this.latestByKeyStatement = db.prepare(SELECT_LATEST_BY_KEY);
  }

  /**
   * Inserts a new notification; returns its row (seq). `outbound` is the outbox's marker of the routes it goes to
   * (null: none), stored in the same row so that the create writes no outbox row (store/outbox-store.ts).
   */
  insert(dto: NotificationDto, outbound: string | null = null): number {
    const params = toParams(dto);
    params.outbound = outbound;
    return Number(this.insertStatement.run(params).lastInsertRowid);
  }

  /** Replaces the content fields and `updatedAt` of an existing row (dedup refresh). */
  updateContent(dto: NotificationDto): void {
    const params = toParams(dto);
    delete params.key;
    delete params.status;
    delete params.created_at;
    delete params.resolved_at;
    this.updateContentStatement.run(params);
  }

  updateStatus(id: string, status: NotificationStatus, updatedAt: string, resolvedAt: string | null): void {
    this.updateStatusStatement.run({ id, status, updated_at: updatedAt, resolved_at: resolvedAt });
  }

  byId(id: string): NotificationDto | undefined {
    const row = this.byIdStatement.get(id) as Row | undefined;
    return row ? toDto(row) : undefined;
  }

  activeByKey(key: string): NotificationDto | undefined {
    return this.activeRowByKey(key)?.notification;
  }

  /** The active notification with this key and its row (seq), which a dedup refresh's outbox items reference. */
  activeRowByKey(key: string): { notification: NotificationDto; seq: number } | undefined {
    const row = this.activeByKeyStatement.get(key) as (Row & { seq: number }) | undefined;
    return row ? { notification: toDto(row), seq: row.seq } : undefined;
  }

  latestByKey(key: string): NotificationDto | undefined {
    const row = this.latestByKeyStatement.get(key) as Row | undefined;
    return row ? toDto(row) : undefined;
  }

  countActive(): number {
    return (this.countActiveStatement.get() as { count: number }).count;
  }

  /** Newest first (creation order). One prepared statement per combination of filters in use. */
  list(filter: NotificationFilter): NotificationDto[] {
    const { where, params } = whereClause([filter.unresolved === true && "status = 'active'"], {
      status: filter.status,
      type: filter.type,
      project: filter.project,
      agent: filter.agent,
    });
    const sql = `SELECT ${COLUMNS} FROM notifications ${where} ORDER BY seq DESC LIMIT ?`;
    return (this.listStatements.get(sql).all(...params, filter.limit) as unknown as Row[]).map(toDto);
  }
}
