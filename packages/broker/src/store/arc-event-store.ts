import type { DatabaseSync, StatementSync } from "node:sqlite";

const INSERT = `INSERT INTO arc_events (sender_id, event_id, event_type, fingerprint, notification_id, interaction_id, created_at)
  VALUES (:sender_id, :event_id, :event_type, :fingerprint, :notification_id, :interaction_id, :created_at)`;
const SELECT = `SELECT sender_id, event_id, event_type, fingerprint, notification_id, interaction_id, created_at
  FROM arc_events WHERE sender_id = ? AND event_id = ?`;

export interface ArcEventRecord {
  sender_id: string;
  event_id: string;
  event_type: string;
  fingerprint: string;
  notification_id: string | null;
  interaction_id: string | null;
  created_at: string;
}

/**
 * Accepted ARC events by (sender.id, event_id): the identity that makes a retry a replay
 * (docs/arc.md, "Event identity and replay").
 */
export interface ArcEventStore {
  find(senderId: string, eventId: string): ArcEventRecord | undefined;
  insert(record: ArcEventRecord): void;
}

/** SQL for accepted ARC events. */
export class SqliteArcEventStore implements ArcEventStore {
  private readonly insertStatement: StatementSync;
  private readonly selectStatement: StatementSync;

  constructor(db: DatabaseSync) {
    this.insertStatement = db.prepare(INSERT);
    this.selectStatement = db.prepare(SELECT);
  }

  find(senderId: string, eventId: string): ArcEventRecord | undefined {
    return this.selectStatement.get(senderId, eventId) as ArcEventRecord | undefined;
  }

  insert(record: ArcEventRecord): void {
    this.insertStatement.run({ ...record });
  }
}
