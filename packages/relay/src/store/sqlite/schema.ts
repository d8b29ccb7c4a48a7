import type { DatabaseSync } from "node:sqlite";

/**
 * Migrations as a numbered list; `PRAGMA user_version` records how many ran. Times are integer milliseconds.
 * AUTOINCREMENT keeps `seq` from ever being reused after pruning, so an old cursor never lands on a new row.
 */
const MIGRATIONS: ((db: DatabaseSync) => void)[] = [
  (db) =>
    db.exec(`
      CREATE TABLE owners (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
      CREATE TABLE installations (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES owners(id),
        name TEXT,
        token_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE devices (
        id TEXT PRIMARY KEY,
        owner_id TEXT REFERENCES owners(id),
        direct_installation_id TEXT REFERENCES installations(id),
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        push_subscription TEXT,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE INDEX devices_by_owner ON devices (owner_id);
      CREATE TABLE pairings (
        code_hash TEXT PRIMARY KEY,
        installation_id TEXT NOT NULL REFERENCES installations(id),
        owner_id TEXT NOT NULL,
        direct INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE TABLE answers (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        installation_id TEXT NOT NULL,
        response_id TEXT NOT NULL,
        device_id TEXT NOT NULL,
        body TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        acked_at INTEGER,
        UNIQUE (installation_id, response_id)
      );
      CREATE INDEX answers_by_installation ON answers (installation_id, seq);
      CREATE INDEX answers_by_age ON answers (received_at);
      CREATE INDEX answers_by_ack ON answers (acked_at) WHERE acked_at IS NOT NULL;
      CREATE TABLE envelopes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        installation_id TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX envelopes_by_age ON envelopes (created_at);
      CREATE TABLE envelope_recipients (
        device_id TEXT NOT NULL,
        envelope_seq INTEGER NOT NULL REFERENCES envelopes(seq) ON DELETE CASCADE,
        acked_at INTEGER,
        PRIMARY KEY (device_id, envelope_seq)
      ) WITHOUT ROWID;
      CREATE INDEX envelope_recipients_by_envelope ON envelope_recipients (envelope_seq);
    `),
  // 2: a phone paired directly to one installation is found by an index, not a scan of every device (the recipients
  // of each envelope and GET /v1/devices ask for "the owner's devices or this installation's direct ones").
  (db) =>
    db.exec(`
      CREATE INDEX devices_by_direct_installation ON devices (direct_installation_id)
        WHERE direct_installation_id IS NOT NULL;
    `),
  // 3: an envelope POST's Idempotency-Key, unique per installation, kept (and pruned) with its envelope.
  (db) =>
    db.exec(`
      ALTER TABLE envelopes ADD COLUMN idempotency_key TEXT;
      CREATE UNIQUE INDEX envelopes_by_idempotency_key ON envelopes (installation_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    `),
  // 4: a one-time code is for a phone (`device`) or for another broker joining the owner (`join`, issue 37 item 2).
  (db) => db.exec("ALTER TABLE pairings ADD COLUMN purpose TEXT NOT NULL DEFAULT 'device';"),
  // 5: receipts (issue 37 item 3, docs/relay.md "Receipts"): each hop an envelope took on a device, once per state,
  // in its installation's feed; they go with their envelope.
  (db) =>
    db.exec(`
      CREATE TABLE receipts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        installation_id TEXT NOT NULL,
        envelope_seq INTEGER NOT NULL REFERENCES envelopes(seq) ON DELETE CASCADE,
        device_id TEXT NOT NULL,
        state TEXT NOT NULL,
        at INTEGER NOT NULL,
        UNIQUE (envelope_seq, device_id, state)
      );
      CREATE INDEX receipts_feed ON receipts (installation_id, seq);
    `),
];

export function migrate(db: DatabaseSync): void {
  const current = Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
  if (current > MIGRATIONS.length) {
    throw new Error(`relay.db has schema version ${current}, newer than this notify-relay (${MIGRATIONS.length})`);
  }
  for (let version = current; version < MIGRATIONS.length; version += 1) {
    db.exec("BEGIN IMMEDIATE");
    try {
      MIGRATIONS[version]?.(db);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}
