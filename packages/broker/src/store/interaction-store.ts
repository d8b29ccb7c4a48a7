import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type {
  Choice,
  InteractionDto,
  InteractionFilter,
  InteractionKind,
  InteractionResponse,
  InteractionStatus,
  UiFacts,
} from "../interactions/types.js";
import { StatementCache, whereClause } from "./statement-cache.js";

const COLUMNS =
  "id, key, agent, agent_instance, project, session_id, turn_id, native_request_id, kind, prompt, choices, " +
  "text_max_length, status, request_digest, nonce, created_at, updated_at, expires_at, expires_ms, answered_at, response";

const INSERT = `INSERT INTO interactions (${COLUMNS}, notification_id) VALUES (:id, :key, :agent, :agent_instance, :project, :session_id,
  :turn_id, :native_request_id, :kind, :prompt, :choices, :text_max_length, :status, :request_digest, :nonce,
  :created_at, :updated_at, :expires_at, :expires_ms, :answered_at, :response, :notification_id)`;
const SELECT_BY_ID = `SELECT ${COLUMNS} FROM interactions WHERE id = ?`;
const SELECT_PENDING_BY_KEY = `SELECT ${COLUMNS} FROM interactions WHERE key = ? AND status = 'pending'`;
/** Only a pending row changes state; the WHERE makes a lost race a no-op instead of an overwrite. */
const EXTEND = `UPDATE interactions SET expires_ms = :expires_ms, expires_at = :expires_at, updated_at = :updated_at
  WHERE id = :id AND status = 'pending'`;
const SETTLE = `UPDATE interactions SET status = :status, updated_at = :updated_at, answered_at = :answered_at,
  response = :response, answered_via = :answered_via WHERE id = :id AND status = 'pending'`;
// INDEXED BY: the sweep runs on every read and must touch only overdue rows, not every pending one.
const EXPIRE_OVERDUE = `UPDATE interactions INDEXED BY interactions_pending_expiry SET status = 'expired', updated_at = :now_iso
  WHERE status = 'pending' AND expires_ms <= :now_ms RETURNING ${COLUMNS}`;
const SELECT_LATEST_BY_KEY = `SELECT ${COLUMNS} FROM interactions WHERE key = ? ORDER BY seq DESC LIMIT 1`;
const SELECT_NOTIFICATION_ID = "SELECT notification_id FROM interactions WHERE id = ?";
// Whether the question carries a context (docs/api.md, "Item context"): the page asks for it only then. A form's
// question (an MCP elicitation's field or decision) also names its form and field, so the page groups a form's
// questions into one card without reading each context. Only a form context's JSON is parsed: the stored body is
// the checked context as JSON.stringify wrote it, `kind` first (contracts/form-context.ts, checkFormContext), so a
// 256 KiB diff is never parsed for this.
const FORM_BODY = `substr(item_contexts.body, 1, 15) = '{"kind":"form",'`;
const SELECT_UI_FACTS = `SELECT interactions.notification_id, interactions.answered_via,
  item_contexts.interaction_id IS NOT NULL AS has_context,
  CASE WHEN ${FORM_BODY} THEN json_extract(item_contexts.body, '$.form') END AS form_id,
  CASE WHEN ${FORM_BODY} THEN json_extract(item_contexts.body, '$.field') END AS form_field
  FROM interactions LEFT JOIN item_contexts ON item_contexts.interaction_id = interactions.id
  WHERE interactions.id = ?`;
/** The newest question of a notification (interactions_by_notification). */
const SELECT_QUESTION_OF_NOTIFICATION = `SELECT id, kind, choices, expires_at FROM interactions
  WHERE notification_id = ? ORDER BY seq DESC LIMIT 1`;
const NEXT_EXPIRY =
  "SELECT min(expires_ms) AS next FROM interactions INDEXED BY interactions_pending_expiry WHERE status = 'pending'";

interface Row {
  id: string;
  key: string | null;
  agent: string;
  agent_instance: string | null;
  project: string | null;
  session_id: string | null;
  turn_id: string | null;
  native_request_id: string | null;
  kind: string;
  prompt: string;
  choices: string;
  text_max_length: number;
  status: string;
  request_digest: string;
  nonce: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  expires_ms: number;
  answered_at: string | null;
  response: string | null;
}

function toDto(row: Row): InteractionDto {
  const dto: InteractionDto = {
    id: row.id,
    agent: row.agent,
    kind: row.kind as InteractionKind,
    prompt: row.prompt,
    choices: JSON.parse(row.choices) as Choice[],
    text_max_length: row.text_max_length,
    status: row.status as InteractionStatus,
    request_digest: row.request_digest,
    nonce: row.nonce,
    created_at: row.created_at,
    updated_at: row.updated_at,
    expires_at: row.expires_at,
  };
  if (row.key !== null) dto.key = row.key;
  if (row.agent_instance !== null) dto.agent_instance = row.agent_instance;
  if (row.project !== null) dto.project = row.project;
  if (row.session_id !== null) dto.session_id = row.session_id;
  if (row.turn_id !== null) dto.turn_id = row.turn_id;
  if (row.native_request_id !== null) dto.native_request_id = row.native_request_id;
  if (row.answered_at !== null) dto.answered_at = row.answered_at;
  if (row.response !== null) dto.response = JSON.parse(row.response) as InteractionResponse;
  return dto;
}

/** The newest question asked for a notification, as an outbound payload names it (never its nonce). */
export interface NotificationQuestion {
  id: string;
  kind: InteractionKind;
  choices: Choice[];
  expires_at: string;
}

/** Interactions as the domain reads and writes them (InteractionService); writes join the caller's unit of work. */
export interface InteractionStore {
  insert(dto: InteractionDto, expiresMs: number, notificationId?: string | null): void;
  byId(id: string): InteractionDto | undefined;
  pendingByKey(key: string): InteractionDto | undefined;
  /** Moves the deadline of a pending interaction. */
  extend(id: string, expiresMs: number, expiresAt: string, updatedAt: string): void;
  /** Moves a pending interaction to a terminal state. Returns false when it was no longer pending. */
  settle(
    id: string,
    status: Exclude<InteractionStatus, "pending">,
    updatedAt: string,
    response?: InteractionResponse,
    via?: UiFacts["answered_via"],
  ): boolean;
  /** Sweeps every overdue pending interaction to `expired` and returns them. */
  expireOverdue(nowMs: number, nowIso: string): InteractionDto[];
  latestByKey(key: string): InteractionDto | undefined;
  questionOfNotification(notificationId: string): NotificationQuestion | undefined;
  notificationIdOf(id: string): string | undefined;
  /**
   * The question's notification, how its answer arrived, whether it has a context and which form it belongs to (the
   * web page's display; docs/api.md, /ui/api).
   */
  uiFacts(id: string): UiFacts;
  nextExpiry(): number | undefined;
  list(filter: InteractionFilter): InteractionDto[];
}

/** SQL for interactions; no domain rules here. */
export class SqliteInteractionStore implements InteractionStore {
  private readonly insertStatement: StatementSync;
  private readonly byIdStatement: StatementSync;
  private readonly pendingByKeyStatement: StatementSync;
  private readonly settleStatement: StatementSync;
  private readonly extendStatement: StatementSync;
  private readonly expireStatement: StatementSync;
  private readonly nextExpiryStatement: StatementSync;
  private readonly latestByKeyStatement: StatementSync;
  private readonly notificationIdStatement: StatementSync;
  private readonly uiFactsStatement: StatementSync;
  private readonly questionOfNotificationStatement: StatementSync;
  private readonly listStatements: StatementCache;

  constructor(db: DatabaseSync) {
    this.listStatements = new StatementCache(db);
    this.insertStatement = db.prepare(INSERT);
    this.byIdStatement = db.prepare(SELECT_BY_ID);
    this.pendingByKeyStatement = db.prepare(SELECT_PENDING_BY_KEY);
    this.settleStatement = db.prepare(SETTLE);
    this.extendStatement = db.prepare(EXTEND);
    this.expireStatement = db.prepare(EXPIRE_OVERDUE);
    this.nextExpiryStatement = db.prepare(NEXT_EXPIRY);
    this.latestByKeyStatement = db.prepare(SELECT_LATEST_BY_KEY);
    this.notificationIdStatement = db.prepare(SELECT_NOTIFICATION_ID);
    this.uiFactsStatement = db.prepare(SELECT_UI_FACTS);
    this.questionOfNotificationStatement = db.prepare(SELECT_QUESTION_OF_NOTIFICATION);
  }

  insert(dto: InteractionDto, expiresMs: number, notificationId: string | null = null): void {
    const params: Record<string, SQLInputValue> = {
      id: dto.id,
      key: dto.key ?? null,
      agent: dto.agent,
      agent_instance: dto.agent_instance ?? null,
      project: dto.project ?? null,
      session_id: dto.session_id ?? null,
      turn_id: dto.turn_id ?? null,
      native_request_id: dto.native_request_id ?? null,
      kind: dto.kind,
      prompt: dto.prompt,
      choices: JSON.stringify(dto.choices),
      text_max_length: dto.text_max_length,
      status: dto.status,
      request_digest: dto.request_digest,
      nonce: dto.nonce,
      created_at: dto.created_at,
      updated_at: dto.updated_at,
      expires_at: dto.expires_at,
      expires_ms: expiresMs,
      answered_at: dto.answered_at ?? null,
      response: dto.response === undefined ? null : JSON.stringify(dto.response),
      notification_id: notificationId,
    };
    this.insertStatement.run(params);
  }

  byId(id: string): InteractionDto | undefined {
    const row = this.byIdStatement.get(id) as Row | undefined;
    return row ? toDto(row) : undefined;
  }

  pendingByKey(key: string): InteractionDto | undefined {
    const row = this.pendingByKeyStatement.get(key) as Row | undefined;
    return row ? toDto(row) : undefined;
  }

  /** Moves the deadline of a pending interaction. */
  extend(id: string, expiresMs: number, expiresAt: string, updatedAt: string): void {
    this.extendStatement.run({ id, expires_ms: expiresMs, expires_at: expiresAt, updated_at: updatedAt });
  }

  /** Moves a pending interaction to a terminal state. Returns false when it was no longer pending. */
  settle(
    id: string,
    status: Exclude<InteractionStatus, "pending">,
    updatedAt: string,
    response?: InteractionResponse,
    via?: UiFacts["answered_via"],
  ): boolean {
    const result = this.settleStatement.run({
      id,
      status,
      updated_at: updatedAt,
      answered_at: response ? response.created_at : null,
      response: response ? JSON.stringify(response) : null,
      answered_via: via ?? null,
    });
    return Number(result.changes) === 1;
  }

  /** Sweeps every overdue pending interaction to `expired` and returns them. */
  expireOverdue(nowMs: number, nowIso: string): InteractionDto[] {
    return (this.expireStatement.all({ now_ms: nowMs, now_iso: nowIso }) as unknown as Row[]).map(toDto);
  }

  latestByKey(key: string): InteractionDto | undefined {
    const row = this.latestByKeyStatement.get(key) as Row | undefined;
    return row ? toDto(row) : undefined;
  }

  /** The newest question asked for a notification: its id, kind, choices and expiry (never its nonce). */
  questionOfNotification(notificationId: string): NotificationQuestion | undefined {
    const row = this.questionOfNotificationStatement.get(notificationId) as
      | { id: string; kind: string; choices: string; expires_at: string }
      | undefined;
    if (row === undefined) return undefined;
    return {
      id: row.id,
      kind: row.kind as InteractionKind,
      choices: JSON.parse(row.choices) as Choice[],
      expires_at: row.expires_at,
    };
  }

  notificationIdOf(id: string): string | undefined {
    const row = this.notificationIdStatement.get(id) as { notification_id: string | null } | undefined;
    return row?.notification_id ?? undefined;
  }

  /**
   * The question's notification, how its answer arrived, whether it has a context and which form it belongs to (the
   * web page's display; docs/api.md, /ui/api).
   */
  uiFacts(id: string): UiFacts {
    const row = this.uiFactsStatement.get(id) as
      | {
          notification_id: string | null;
          answered_via: string | null;
          has_context: number;
          form_id: string | null;
          form_field: string | null;
        }
      | undefined;
    const facts: UiFacts = {};
    if (row?.has_context === 1) facts.has_context = true;
    if (typeof row?.form_id === "string") {
      facts.form =
        typeof row.form_field === "string" ? { id: row.form_id, field: row.form_field } : { id: row.form_id };
    }
    if (row?.notification_id) facts.notification_id = row.notification_id;
    if (row?.answered_via === "ui" || row?.answered_via === "toast") facts.answered_via = row.answered_via;
    return facts;
  }

  nextExpiry(): number | undefined {
    const row = this.nextExpiryStatement.get() as { next: number | null };
    return row.next ?? undefined;
  }

  list(filter: InteractionFilter): InteractionDto[] {
    const { where, params } = whereClause(
      [filter.pending === true && "status = 'pending'", filter.pending === false && "status <> 'pending'"],
      { status: filter.status, agent: filter.agent, project: filter.project, session_id: filter.session },
    );
    const sql = `SELECT ${COLUMNS} FROM interactions ${where} ORDER BY seq DESC LIMIT ?`;
    return (this.listStatements.get(sql).all(...params, filter.limit) as unknown as Row[]).map(toDto);
  }
}
