/**
 * Every SQL statement of the PostgreSQL store. Feed positions are selected under names of their own: ORDER BY
 * resolves a bare name to an output column first, and ordering by the text form would sort "1000" before "999". Feed reads stop below `pg_snapshot_xmin(pg_current_snapshot())`:
 * every transaction older than that has finished, so no row can later appear behind a position already served.
 */
const SERVABLE = "txid < pg_snapshot_xmin(pg_current_snapshot())";

export const SQL = {
  insertOwner: "INSERT INTO owners (id, created_at) VALUES ($1, $2)",
  insertInstallation:
    "INSERT INTO installations (id, owner_id, name, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
  installationByTokenHash: "SELECT id, owner_id, name, created_at FROM installations WHERE token_hash = $1",
  installationById: "SELECT id, owner_id, name, created_at FROM installations WHERE id = $1",
  listInstallations: `SELECT i.id, i.owner_id, i.name, i.created_at,
      (SELECT count(*) FROM devices d WHERE d.revoked_at IS NULL
        AND (d.owner_id = i.owner_id OR d.direct_installation_id = i.id)) AS devices
    FROM installations i ORDER BY i.created_at, i.id`,
  // Deleting an installation (DELETE /v1/installation): $3 is true when no other installation shares the owner, so
  // the owner's devices go with it; directly linked devices always do. The installation row is locked first, so two
  // deletes of it run one after the other.
  lockInstallation: "SELECT id, owner_id, name, created_at FROM installations WHERE id = $1 FOR UPDATE",
  otherInstallationsOfOwner: "SELECT count(*)::int AS n FROM installations WHERE owner_id = $1 AND id != $2",
  deleteLeavingRecipients: `DELETE FROM envelope_recipients WHERE device_id IN (SELECT id FROM devices
    WHERE direct_installation_id = $1 OR ($3::boolean AND owner_id = $2))`,
  deleteLeavingDevices: `DELETE FROM devices
    WHERE direct_installation_id = $1 OR ($3::boolean AND owner_id = $2) RETURNING id`,
  deleteInstallationAnswers: "DELETE FROM answers WHERE installation_id = $1",
  deleteInstallationEnvelopes: "DELETE FROM envelopes WHERE installation_id = $1",
  deleteInstallationPairings: "DELETE FROM pairings WHERE installation_id = $1",
  deleteInstallation: "DELETE FROM installations WHERE id = $1",
  deleteOwner: "DELETE FROM owners WHERE id = $1",

  insertPairing: `INSERT INTO pairings (code_hash, installation_id, owner_id, direct, purpose, created_at, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  takePairing: `DELETE FROM pairings WHERE code_hash = $1 AND expires_at > $2 AND purpose = $3
    RETURNING installation_id, owner_id, direct, purpose, expires_at`,
  installationsOf:
    "SELECT id, owner_id, name, created_at FROM installations WHERE owner_id = $1 ORDER BY created_at, id",
  openJoinCodes: `SELECT count(*)::int AS n, min(expires_at) AS first FROM pairings
    WHERE owner_id = $1 AND purpose = 'join' AND expires_at > $2`,

  insertDevice: `INSERT INTO devices (id, owner_id, direct_installation_id, name, public_key, token_hash,
      push_subscription, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  deviceByTokenHash: "SELECT * FROM devices WHERE token_hash = $1 AND revoked_at IS NULL",
  // Grouped bearer lookups (the requests of one event-loop turn share one statement): token_hash is UNIQUE.
  devicesByTokenHashes: "SELECT * FROM devices WHERE token_hash = ANY($1::text[]) AND revoked_at IS NULL",
  installationsByTokenHashes:
    "SELECT id, owner_id, name, created_at, token_hash FROM installations WHERE token_hash = ANY($1::text[])",
  deviceById: "SELECT * FROM devices WHERE id = $1",
  devicesFor: `SELECT * FROM devices WHERE revoked_at IS NULL AND (owner_id = $1 OR direct_installation_id = $2)
    ORDER BY created_at, id`,
  listDevices: "SELECT * FROM devices ORDER BY created_at, id",
  revokeDevice: "UPDATE devices SET revoked_at = $1, push_subscription = NULL WHERE id = $2 AND revoked_at IS NULL",
  setPushSubscription: "UPDATE devices SET push_subscription = $1 WHERE id = $2 AND revoked_at IS NULL",
  dropPushSubscription: "UPDATE devices SET push_subscription = NULL WHERE id = $1 AND push_subscription = $2",

  insertAnswer: `INSERT INTO answers (installation_id, response_id, device_id, body, received_at)
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (installation_id, response_id) DO NOTHING RETURNING seq`,
  answerBody: "SELECT body FROM answers WHERE installation_id = $1 AND response_id = $2",
  // Group commit: one statement (its own transaction) for a batch. Rows go in the order given (WITH ORDINALITY), and
  // every process sorts its batch by key the same way, so two batches wait on each other's keys in one order only.
  insertAnswers: `INSERT INTO answers (installation_id, response_id, device_id, body, received_at)
    SELECT i, r, d, b, t FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
      WITH ORDINALITY AS u(i, r, d, b, t, n) ORDER BY n
    ON CONFLICT (installation_id, response_id) DO NOTHING RETURNING installation_id, response_id`,
  answerBodies: `SELECT a.installation_id, a.response_id, a.body FROM answers a
    JOIN unnest($1::text[], $2::text[]) AS k(i, r) ON a.installation_id = k.i AND a.response_id = k.r`,
  answersAfter: `SELECT txid::text AS position_txid, seq::text AS position_seq, body, received_at AS at FROM answers
    WHERE installation_id = $1 AND (txid, seq) > ($2::xid8, $3::bigint) AND received_at >= $4 AND ${SERVABLE}
    ORDER BY txid, seq LIMIT $5`,
  ackAnswers: `UPDATE answers SET acked_at = $1
    WHERE installation_id = $2 AND (txid, seq) <= ($3::xid8, $4::bigint) AND acked_at IS NULL`,

  insertEnvelope: `INSERT INTO envelopes (id, installation_id, body, created_at, idempotency_key)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (installation_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING seq`,
  envelopeByIdempotencyKey: "SELECT id, body FROM envelopes WHERE installation_id = $1 AND idempotency_key = $2",
  insertRecipients: `INSERT INTO envelope_recipients (device_id, envelope_seq)
    SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING`,
  // A batch of envelopes and their recipients in one statement (one transaction): $6/$7 pair envelope ids with
  // device ids. An envelope whose idempotency key is taken is skipped, and so are its recipients (they join what was
  // inserted); the statement returns the ids it stored. Rows go in the order given, sorted by key as answers
  // are, so two processes' batches wait on each other's keys in one order only.
  insertEnvelopes: `WITH e AS (
      INSERT INTO envelopes (id, installation_id, body, created_at, idempotency_key)
      SELECT i, s, b, t, k FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[])
        WITH ORDINALITY AS u(i, s, b, t, k, n) ORDER BY n
      ON CONFLICT (installation_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING seq, id),
    recipients AS (
      INSERT INTO envelope_recipients (device_id, envelope_seq)
      SELECT r.device_id, e.seq FROM unnest($6::text[], $7::text[]) AS r(envelope_id, device_id)
        JOIN e ON e.id = r.envelope_id
      ON CONFLICT DO NOTHING)
    SELECT id FROM e`,
  envelopesAfter: `SELECT r.txid::text AS position_txid, r.envelope_seq::text AS position_seq, e.id, e.body, e.created_at AS at
    FROM envelope_recipients r JOIN envelopes e ON e.seq = r.envelope_seq
    WHERE r.device_id = $1 AND (r.txid, r.envelope_seq) > ($2::xid8, $3::bigint) AND e.created_at >= $4
      AND r.${SERVABLE}
    ORDER BY r.txid, r.envelope_seq LIMIT $5`,
  // Acknowledging records a `fetched` receipt for each envelope it acknowledges first, in the same statement.
  ackEnvelopes: `WITH acked AS (
      UPDATE envelope_recipients SET acked_at = $1
      WHERE device_id = $2 AND (txid, envelope_seq) <= ($3::xid8, $4::bigint) AND acked_at IS NULL
      RETURNING envelope_seq)
    INSERT INTO receipts (installation_id, envelope_seq, device_id, state, at)
      SELECT e.installation_id, e.seq, $2::text, 'fetched', $1::bigint FROM acked JOIN envelopes e ON e.seq = acked.envelope_seq
    ON CONFLICT DO NOTHING RETURNING installation_id`,
  sealedTo: `SELECT e.seq, e.installation_id FROM envelopes e
    JOIN envelope_recipients r ON r.envelope_seq = e.seq AND r.device_id = $1 WHERE e.id = $2`,
  // `fetched` first (the device has the envelope), then the reported state; returns the states it stored.
  insertReceipts: `INSERT INTO receipts (installation_id, envelope_seq, device_id, state, at)
    SELECT $1::text, $2::bigint, $3::text, unnest($4::text[]), $5::bigint ON CONFLICT DO NOTHING RETURNING state`,
  receiptAt: "SELECT at FROM receipts WHERE envelope_seq = $1 AND device_id = $2 AND state = $3",
  receiptsAfter: `SELECT c.txid::text AS position_txid, c.seq::text AS position_seq, e.id, e.idempotency_key,
      c.device_id, c.state, c.at
    FROM receipts c JOIN envelopes e ON e.seq = c.envelope_seq
    WHERE c.installation_id = $1 AND (c.txid, c.seq) > ($2::xid8, $3::bigint) AND c.at >= $4 AND c.${SERVABLE}
    ORDER BY c.txid, c.seq LIMIT $5`,

  pruneAnswers: `DELETE FROM answers WHERE seq IN (
      SELECT seq FROM answers WHERE received_at < $1 OR acked_at < $2 LIMIT $3)`,
  pruneEnvelopes: `DELETE FROM envelopes WHERE seq IN (
      SELECT e.seq FROM envelopes e WHERE e.created_at < $1 OR NOT EXISTS (
        SELECT 1 FROM envelope_recipients r WHERE r.envelope_seq = e.seq
          AND (r.acked_at IS NULL OR r.acked_at >= $2))
      LIMIT $3)`,
  prunePairings:
    "DELETE FROM pairings WHERE code_hash IN (SELECT code_hash FROM pairings WHERE expires_at <= $1 LIMIT $2)",

  // One statement, so one round trip: its implicit transaction commits after the statement with the setting still in
  // force (set_config's `true`: until the transaction ends), so the commit does not wait for a WAL flush.
  notify: `SELECT set_config('synchronous_commit', 'off', true), pg_notify('relay_changes', payload)
    FROM unnest($1::text[]) AS payload`,
} as const;
