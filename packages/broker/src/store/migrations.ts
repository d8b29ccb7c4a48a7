import type { DatabaseSync } from "node:sqlite";

/**
 * `seq` is a plain INTEGER PRIMARY KEY (the rowid): rows are never deleted, so it grows with creation order, and
 * AUTOINCREMENT would cost one more page write per insert for a guarantee not needed here.
 *
 * Numbered migrations; `PRAGMA user_version` holds how many have run. Append only: a shipped migration is never
 * edited. Every list filter of the API (docs/api.md) has an index ending in `seq`, the creation order used for "newest
 * first".
 */
export const MIGRATIONS: ((db: DatabaseSync) => void)[] = [
  // 1: notifications and interactions.
  (db) => {
    db.exec(`
      CREATE TABLE notifications (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        key TEXT,
        agent TEXT NOT NULL,
        agent_instance TEXT,
        project TEXT,
        type TEXT NOT NULL,
        priority TEXT NOT NULL,
        title TEXT NOT NULL,
        message TEXT NOT NULL,
        cwd TEXT,
        pid INTEGER,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        resolved_at TEXT,
        metadata TEXT
      ) STRICT;
      CREATE UNIQUE INDEX notifications_active_key ON notifications(key) WHERE status = 'active' AND key IS NOT NULL;
      CREATE INDEX notifications_by_status ON notifications(status, seq);
      CREATE INDEX notifications_by_type ON notifications(type, seq);
      CREATE INDEX notifications_by_project ON notifications(project, seq);
      CREATE INDEX notifications_by_agent ON notifications(agent, seq);

      CREATE TABLE interactions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        key TEXT,
        agent TEXT NOT NULL,
        agent_instance TEXT,
        project TEXT,
        session_id TEXT,
        turn_id TEXT,
        native_request_id TEXT,
        kind TEXT NOT NULL,
        prompt TEXT NOT NULL,
        choices TEXT NOT NULL,
        text_max_length INTEGER NOT NULL,
        status TEXT NOT NULL,
        request_digest TEXT NOT NULL,
        nonce TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        expires_ms INTEGER NOT NULL,
        answered_at TEXT,
        response TEXT
      ) STRICT;
      CREATE UNIQUE INDEX interactions_pending_key ON interactions(key) WHERE status = 'pending' AND key IS NOT NULL;
      CREATE INDEX interactions_pending_expiry ON interactions(expires_ms) WHERE status = 'pending';
      CREATE INDEX interactions_by_status ON interactions(status, seq);
      CREATE INDEX interactions_by_agent ON interactions(agent, seq);
      CREATE INDEX interactions_by_project ON interactions(project, seq);
      CREATE INDEX interactions_by_session ON interactions(session_id, seq);
    `);
  },
  // 2: ARC event identities (docs/arc.md, "Event identity and replay": the same sender and event pair is a retry) and
  // the notification an interaction belongs to (an answered ARC question resolves its notification).
  (db) => {
    db.exec(`
      CREATE TABLE arc_events (
        sender_id TEXT NOT NULL,
        event_id TEXT NOT NULL,
        event_type TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        notification_id TEXT,
        interaction_id TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (sender_id, event_id)
      ) STRICT, WITHOUT ROWID;
      ALTER TABLE interactions ADD COLUMN notification_id TEXT;
      CREATE INDEX interactions_by_key ON interactions(key, seq) WHERE key IS NOT NULL;
      CREATE INDEX interactions_by_notification ON interactions(notification_id) WHERE notification_id IS NOT NULL;
      CREATE INDEX notifications_by_key ON notifications(key, seq) WHERE key IS NOT NULL;
    `);
  },
  // 3: outbound delivery (docs/outbound.md, "Delivery rules"): provider profiles with sealed secrets, routes, and the
  // durable outbox written in the same transaction as the notification it delivers.
  (db) => {
    db.exec(`
      CREATE TABLE provider_profiles (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        name TEXT NOT NULL UNIQUE,
        settings TEXT NOT NULL,
        sealed_secrets TEXT,
        enabled INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE outbound_routes (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        provider_id TEXT NOT NULL REFERENCES provider_profiles(id) ON DELETE CASCADE,
        enabled INTEGER NOT NULL DEFAULT 0,
        minimum_priority TEXT NOT NULL DEFAULT 'low',
        type_id TEXT,
        project TEXT,
        agent TEXT,
        include_message INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        notification_id TEXT NOT NULL,
        route_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        include_message INTEGER NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms INTEGER NOT NULL,
        last_status INTEGER,
        last_code TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        delivered_at TEXT
      ) STRICT, WITHOUT ROWID;
      -- Only partial indexes: a new item touches the table and outbox_due, nothing else, so enqueueing three
      -- routes stays cheap next to the notification insert (the payload is read from the notification at send
      -- time, not copied per route).
      CREATE INDEX outbox_due ON outbox(next_attempt_ms) WHERE status IN ('Pending', 'Retry');
      CREATE INDEX outbox_dead ON outbox(created_at) WHERE status = 'DeadLetter';
    `);
  },
  // 4: the outbox as an append-only rowid table (bench/README.md, Outbound). A new item is one append to the
  // table's last page and touches no index: Pending items are found by a rowid cursor, only Retry items (due
  // later) and dead letters are indexed. Items reference their notification by row (seq), times are epoch
  // milliseconds: a row is about half the size it was. Item ids (and idempotency keys) are
  // `obx_` + this database's random 16-hex namespace + the rowid in base 36, unique across machines.
  (db) => {
    db.exec(`
      CREATE TABLE outbox_meta (namespace TEXT NOT NULL) STRICT;
      INSERT INTO outbox_meta (namespace) VALUES (lower(hex(randomblob(8))));
      CREATE TABLE outbox_v4 (
        seq INTEGER PRIMARY KEY,
        notification_seq INTEGER NOT NULL,
        route_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        include_message INTEGER NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms INTEGER NOT NULL,
        last_status INTEGER,
        last_code TEXT,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        delivered_ms INTEGER
      ) STRICT;
      INSERT INTO outbox_v4 (notification_seq, route_id, provider_id, include_message, status, attempts,
          next_attempt_ms, last_status, last_code, created_ms, updated_ms, delivered_ms)
        SELECT n.seq, o.route_id, o.provider_id, o.include_message, o.status, o.attempts, o.next_attempt_ms,
          o.last_status, o.last_code, CAST(unixepoch(o.created_at, 'subsec') * 1000 AS INTEGER),
          CAST(unixepoch(o.updated_at, 'subsec') * 1000 AS INTEGER),
          CAST(unixepoch(o.delivered_at, 'subsec') * 1000 AS INTEGER)
        FROM outbox o JOIN notifications n ON n.id = o.notification_id ORDER BY o.created_at, o.id;
      DROP TABLE outbox;
      ALTER TABLE outbox_v4 RENAME TO outbox;
      CREATE INDEX outbox_retry ON outbox(next_attempt_ms) WHERE status = 'Retry';
      CREATE INDEX outbox_dead ON outbox(status) WHERE status = 'DeadLetter';
    `);
  },
  // 5: the folded outbox (bench/README.md, Outbound). A new notification carries the routes it is to be delivered
  // to in its own row (`outbound`, NULL when no route matched), written by the notification's INSERT, so a create
  // dirties no outbox page. The dispatcher (and every outbox read) later expands these markers into the same
  // per-route outbox rows as before, in notification order; `expanded_through` is the notification row through
  // which markers have been expanded, advanced in the transaction that writes the items. It starts at the last
  // notification: every older notification already has its items (written with it, migration 4), and its
  // `outbound` is NULL anyway.
  (db) => {
    db.exec(`
      ALTER TABLE notifications ADD COLUMN outbound TEXT;
      ALTER TABLE outbox_meta ADD COLUMN expanded_through INTEGER NOT NULL DEFAULT 0;
      UPDATE outbox_meta SET expanded_through = (SELECT coalesce(max(seq), 0) FROM notifications);
    `);
  },
  // 6: the outbox carries any deliverable (docs/relay.md, "Outbox items for questions"): an item is a notification or
  // an interaction (a question for a relay route), named by `subject` and the subject's row. Existing rows are
  // notifications. Only interaction items are indexed (publish is idempotent per interaction and provider), so
  // enqueueing a notification still touches no index.
  (db) => {
    db.exec(`
      ALTER TABLE outbox RENAME COLUMN notification_seq TO subject_seq;
      ALTER TABLE outbox ADD COLUMN subject TEXT NOT NULL DEFAULT 'notification';
      CREATE INDEX outbox_by_interaction ON outbox(subject_seq) WHERE subject = 'interaction';
    `);
  },
  // 7: the relay answer poll's durable cursor, one per relay provider (docs/relay.md, "The answer poll": the broker
  // keeps its cursor in durable local state). `stopped` holds the HTTP status that stopped the poll (401/403) and
  // `stopped_for` the profile version it applied to: saving the profile again (a new token) starts the poll again.
  (db) => {
    db.exec(`
      CREATE TABLE relay_cursors (
        provider_id TEXT PRIMARY KEY,
        cursor TEXT,
        stopped INTEGER,
        stopped_for TEXT,
        updated_ms INTEGER NOT NULL
      ) STRICT;
    `);
  },
  // 8: answers from chat apps (issue 25, store/chat-store.ts). `chat_handles`: the short opaque handle a button
  // carries (Telegram callback_data, Slack action value), naming a question and a choice, never its nonce;
  // `chat_messages`: each question message posted, to edit it to the outcome (`closed` once edited);
  // `chat_offsets`: the Telegram getUpdates offset per provider, stored after the update's answer is settled.
  (db) => {
    db.exec(`
      CREATE TABLE chat_handles (
        handle TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        interaction_id TEXT NOT NULL,
        choice_id TEXT,
        created_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX chat_handles_by_interaction ON chat_handles(interaction_id);
      CREATE TABLE chat_messages (
        account TEXT NOT NULL,
        conversation TEXT NOT NULL,
        message TEXT NOT NULL,
        interaction_id TEXT NOT NULL,
        body TEXT NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0,
        created_ms INTEGER NOT NULL,
        PRIMARY KEY (account, conversation, message)
      ) STRICT;
      CREATE INDEX chat_messages_open ON chat_messages(interaction_id) WHERE closed = 0;
      CREATE TABLE chat_offsets (
        provider_id TEXT PRIMARY KEY,
        next_offset INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      ) STRICT;
    `);
  },
  // 9: attention routing (issue 24, docs/routing.md). A route's routing options (delay_seconds, when, quiet_hours)
  // as JSON, NULL when all are at their defaults. `routed_deliveries` holds what a route with options decided for
  // an item: `held` until `due_ms` (NULL: only a presence change can release it), then `sent` (with the outbox row
  // it became) or `void` (settled first, or the route went). Only held rows with a due time are indexed by it; the
  // subject index serves the settle (void in the settling transaction) and the item's timeline.
  (db) => {
    db.exec(`
      ALTER TABLE outbound_routes ADD COLUMN routing TEXT;
      CREATE TABLE routed_deliveries (
        seq INTEGER PRIMARY KEY,
        subject TEXT NOT NULL,
        subject_seq INTEGER NOT NULL,
        route_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        include_message INTEGER NOT NULL,
        priority TEXT NOT NULL,
        state TEXT NOT NULL,
        due_ms INTEGER,
        reason TEXT NOT NULL,
        presence TEXT,
        outbox_seq INTEGER,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX routed_due ON routed_deliveries(due_ms) WHERE state = 'held' AND due_ms IS NOT NULL;
      CREATE INDEX routed_held ON routed_deliveries(seq) WHERE state = 'held';
      CREATE INDEX routed_by_subject ON routed_deliveries(subject, subject_seq);
    `);
  },
  // 10: how an answer reached the broker, for display (`ui`: the web page's /ui/api). The stored `source` of a web
  // page answer is `desktop` by contract; this tells it apart from a toast's answer on the page.
  (db) => {
    db.exec("ALTER TABLE interactions ADD COLUMN answered_via TEXT;");
  },
  // 11: the delivery timeline (issue 24 item 5, docs/routing.md): what a routed row was held for when it was
  // held (the policy's wait reason, its due time, the presence then), kept when the row is later sent or voided
  // (its `reason`, `due_ms` and `presence` then say what released it). NULL for a row that went at once.
  (db) => {
    db.exec(`
      ALTER TABLE routed_deliveries ADD COLUMN held_reason TEXT;
      ALTER TABLE routed_deliveries ADD COLUMN held_due_ms INTEGER;
      ALTER TABLE routed_deliveries ADD COLUMN held_presence TEXT;
    `);
  },
  // 12: the desktop notifications of an item, for its delivery timeline (issue 24 item 5): each time the desktop
  // service accepted a toast (`shown`) and each time it said a toast closed (`closed`, with the service's reason),
  // by the item's public id (a notification's, or a question's when it has no notification half).
  (db) => {
    db.exec(`
      CREATE TABLE toast_events (
        seq INTEGER PRIMARY KEY,
        subject_id TEXT NOT NULL,
        event TEXT NOT NULL,
        reason TEXT,
        at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX toast_events_by_subject ON toast_events(subject_id);
    `);
  },
  // 13: what a question carries besides its prompt (docs/api.md, "Item context"): posted first (staged, no
  // interaction yet), then bound to the question its ARC event creates, in that event's transaction.
  (db) => {
    db.exec(`
      CREATE TABLE item_contexts (
        id TEXT PRIMARY KEY,
        interaction_id TEXT UNIQUE,
        body TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        created_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX item_contexts_staged ON item_contexts(created_ms) WHERE interaction_id IS NULL;
    `);
  },
  // 14: the agent sessions the broker has heard of (issue 37, item 1; docs/api.md, "Sessions"): one row per agent and
  // session id, its state as the last event left it (`working`, `asking`, `finished`, `ended`), kept 7 days after its
  // last event.
  (db) => {
    db.exec(`
      CREATE TABLE agent_sessions (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        session_id TEXT NOT NULL,
        project TEXT,
        cwd TEXT,
        signal TEXT NOT NULL,
        last_message TEXT,
        started_ms INTEGER NOT NULL,
        last_active_ms INTEGER NOT NULL,
        UNIQUE (agent, session_id)
      ) STRICT;
      CREATE INDEX agent_sessions_by_activity ON agent_sessions(last_active_ms);
    `);
  },
  // 15: receipts (issue 37, item 3; docs/relay.md, "Receipts"): each hop an envelope took on a phone (`fetched`,
  // `shown`, `opened`), by the outbox item that sent it and the device, once each; and when a chat app's question
  // message was edited to the outcome, for the item's timeline.
  (db) => {
    db.exec(`
      CREATE TABLE relay_receipts (
        outbox_seq INTEGER NOT NULL,
        device_id TEXT NOT NULL,
        state TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        PRIMARY KEY (outbox_seq, device_id, state)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX relay_receipts_by_age ON relay_receipts(at_ms);
      ALTER TABLE chat_messages ADD COLUMN closed_ms INTEGER;
    `);
  },
];

export function migrate(db: DatabaseSync): void {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  for (let version = row.user_version; version < MIGRATIONS.length; version++) {
    const step = MIGRATIONS[version];
    if (!step) break;
    db.exec("BEGIN IMMEDIATE");
    try {
      step(db);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}
