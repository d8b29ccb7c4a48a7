import { randomBytes } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { ItemContext } from "@notify/contracts/item-context";

/** A posted context no question claimed within this long is dropped (its hook gave up or crashed). */
export const STAGED_CONTEXT_TTL_MS = 60 * 60 * 1000;

/**
 * The contexts of questions (docs/api.md, "Item context"): staged by `POST /v1/contexts`, then bound to the question
 * whose ARC event names them. A question has at most one; binding a new one replaces the old.
 */
export interface ContextStore {
  /** Stores a checked context unbound and returns its id; drops staged ones older than the TTL. */
  stage(context: ItemContext, nowMs: number): string;
  /**
   * Binds a staged context to a question, replacing the one it had: false when the id is unknown or already bound
   * (run inside the question's transaction; the caller throws, and the replaced one comes back with the rollback).
   */
  bind(id: string, interactionId: string): boolean;
  forInteraction(interactionId: string): ItemContext | undefined;
  /** The stored JSON of a context by its id (staged or bound), to compare what two events show. */
  bodyOf(id: string): string | undefined;
  /** The stored JSON of a question's context. */
  bodyForInteraction(interactionId: string): string | undefined;
}

export class SqliteContextStore implements ContextStore {
  private readonly insert: StatementSync;
  private readonly prune: StatementSync;
  private readonly unbindOld: StatementSync;
  private readonly bindStatement: StatementSync;
  private readonly select: StatementSync;
  private readonly selectById: StatementSync;

  constructor(db: DatabaseSync) {
    this.insert = db.prepare(
      "INSERT INTO item_contexts (id, interaction_id, body, bytes, created_ms) VALUES (?, NULL, ?, ?, ?)",
    );
    this.prune = db.prepare("DELETE FROM item_contexts WHERE interaction_id IS NULL AND created_ms < ?");
    this.unbindOld = db.prepare("DELETE FROM item_contexts WHERE interaction_id = ? AND id != ?");
    this.bindStatement = db.prepare(
      "UPDATE item_contexts SET interaction_id = ? WHERE id = ? AND interaction_id IS NULL",
    );
    this.select = db.prepare("SELECT body FROM item_contexts WHERE interaction_id = ?");
    this.selectById = db.prepare("SELECT body FROM item_contexts WHERE id = ?");
  }

  stage(context: ItemContext, nowMs: number): string {
    this.prune.run(nowMs - STAGED_CONTEXT_TTL_MS);
    const id = `ctx_${randomBytes(16).toString("hex")}`;
    this.insert.run(id, JSON.stringify(context), context.bytes, nowMs);
    return id;
  }

  bind(id: string, interactionId: string): boolean {
    this.unbindOld.run(interactionId, id);
    return this.bindStatement.run(interactionId, id).changes === 1;
  }

  forInteraction(interactionId: string): ItemContext | undefined {
    const body = this.bodyForInteraction(interactionId);
    return body === undefined ? undefined : (JSON.parse(body) as ItemContext);
  }

  bodyOf(id: string): string | undefined {
    return (this.selectById.get(id) as { body: string } | undefined)?.body;
  }

  bodyForInteraction(interactionId: string): string | undefined {
    return (this.select.get(interactionId) as { body: string } | undefined)?.body;
  }
}
