import type { PoolClient } from "pg";

/**
 * Migrations as a numbered list, recorded in relay_schema. `txid` (xid8, PostgreSQL 13+) is the writing
 * transaction's id: feeds are ordered by (txid, seq) and served only below the oldest running transaction, so a row
 * whose sequence value was taken early but which commits late is never skipped (docs/relay.md, Cursors).
 */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE owners (id text PRIMARY KEY, created_at bigint NOT NULL);
  CREATE TABLE installations (
    id text PRIMARY KEY,
    owner_id text NOT NULL REFERENCES owners(id),
    name text,
    token_hash text NOT NULL UNIQUE,
    created_at bigint NOT NULL
  );
  CREATE TABLE devices (
    id text PRIMARY KEY,
    owner_id text REFERENCES owners(id),
    direct_installation_id text REFERENCES installations(id),
    name text NOT NULL,
    public_key text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    push_subscription text,
    created_at bigint NOT NULL,
    revoked_at bigint
  );
  CREATE INDEX devices_by_owner ON devices (owner_id);
  CREATE TABLE pairings (
    code_hash text PRIMARY KEY,
    installation_id text NOT NULL REFERENCES installations(id),
    owner_id text NOT NULL,
    direct boolean NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );
  CREATE TABLE answers (
    seq bigserial PRIMARY KEY,
    txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    installation_id text NOT NULL,
    response_id text NOT NULL,
    device_id text NOT NULL,
    body text NOT NULL,
    received_at bigint NOT NULL,
    acked_at bigint,
    UNIQUE (installation_id, response_id)
  );
  CREATE INDEX answers_feed ON answers (installation_id, txid, seq);
  CREATE INDEX answers_by_age ON answers (received_at);
  CREATE INDEX answers_by_ack ON answers (acked_at) WHERE acked_at IS NOT NULL;
  CREATE TABLE envelopes (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    installation_id text NOT NULL,
    body text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX envelopes_by_age ON envelopes (created_at);
  CREATE TABLE envelope_recipients (
    device_id text NOT NULL,
    envelope_seq bigint NOT NULL REFERENCES envelopes(seq) ON DELETE CASCADE,
    txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    acked_at bigint,
    PRIMARY KEY (device_id, envelope_seq)
  );
  CREATE INDEX envelope_recipients_feed ON envelope_recipients (device_id, txid, envelope_seq);
  CREATE INDEX envelope_recipients_by_envelope ON envelope_recipients (envelope_seq);
  `,
  // 2: directly paired phones by index (see the SQLite schema's migration 2).
  `
  CREATE INDEX devices_by_direct_installation ON devices (direct_installation_id)
    WHERE direct_installation_id IS NOT NULL;
  `,
  // 3: an envelope POST's Idempotency-Key, unique per installation, kept (and pruned) with its envelope.
  `
  ALTER TABLE envelopes ADD COLUMN idempotency_key text;
  CREATE UNIQUE INDEX envelopes_by_idempotency_key ON envelopes (installation_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
  `,
  // 4: a one-time code's purpose (see the SQLite schema's migration 4).
  "ALTER TABLE pairings ADD COLUMN purpose text NOT NULL DEFAULT 'device';",
  // 5: receipts (see the SQLite schema's migration 5), ordered for the feed like the other feeds.
  `
  CREATE TABLE receipts (
    seq bigserial PRIMARY KEY,
    txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    installation_id text NOT NULL,
    envelope_seq bigint NOT NULL REFERENCES envelopes(seq) ON DELETE CASCADE,
    device_id text NOT NULL,
    state text NOT NULL,
    at bigint NOT NULL,
    UNIQUE (envelope_seq, device_id, state)
  );
  CREATE INDEX receipts_feed ON receipts (installation_id, txid, seq);
  `,
];

/** An arbitrary constant: the advisory lock that lets one of several starting relay processes migrate. */
const MIGRATION_LOCK = 47822;

export async function migrate(client: PoolClient): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS relay_schema (version integer PRIMARY KEY, applied_at bigint NOT NULL)",
    );
    const { rows } = await client.query<{ version: number | null }>("SELECT max(version) AS version FROM relay_schema");
    const current = rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(`the database has relay schema ${current}, newer than this notify-relay (${MIGRATIONS.length})`);
    }
    for (let version = current; version < MIGRATIONS.length; version += 1) {
      await client.query(MIGRATIONS[version] as string);
      await client.query("INSERT INTO relay_schema (version, applied_at) VALUES ($1, $2)", [version + 1, Date.now()]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
