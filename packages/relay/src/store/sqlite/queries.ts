/** Every SQL statement of the SQLite store, named (the store file only binds and maps them). */
export const SQL = {
  insertOwner: "INSERT INTO owners (id, created_at) VALUES (?, ?)",
  insertInstallation:
    "INSERT INTO installations (id, owner_id, name, token_hash, created_at) VALUES (:id, :ownerId, :name, :tokenHash, :createdAt)",
  installationByTokenHash: "SELECT id, owner_id, name, created_at FROM installations WHERE token_hash = ?",
  installationById: "SELECT id, owner_id, name, created_at FROM installations WHERE id = ?",
  listInstallations: `SELECT i.id, i.owner_id, i.name, i.created_at,
      (SELECT count(*) FROM devices d WHERE d.revoked_at IS NULL
        AND (d.owner_id = i.owner_id OR d.direct_installation_id = i.id)) AS devices
    FROM installations i ORDER BY i.created_at, i.id`,
  // Deleting an installation (DELETE /v1/installation): `:ownerToo` is 1 when no other installation shares the
  // owner, so the owner's devices go with it; directly linked devices always do.
  otherInstallationsOfOwner: "SELECT count(*) AS n FROM installations WHERE owner_id = ? AND id != ?",
  deleteLeavingRecipients: `DELETE FROM envelope_recipients WHERE device_id IN (SELECT id FROM devices
    WHERE direct_installation_id = :id OR (:ownerToo = 1 AND owner_id = :ownerId))`,
  deleteLeavingDevices: `DELETE FROM devices
    WHERE direct_installation_id = :id OR (:ownerToo = 1 AND owner_id = :ownerId) RETURNING id`,
  deleteInstallationAnswers: "DELETE FROM answers WHERE installation_id = ?",
  deleteInstallationEnvelopes: "DELETE FROM envelopes WHERE installation_id = ?",
  deleteInstallationPairings: "DELETE FROM pairings WHERE installation_id = ?",
  deleteInstallation: "DELETE FROM installations WHERE id = ?",
  deleteOwner: "DELETE FROM owners WHERE id = ?",

  insertPairing: `INSERT INTO pairings (code_hash, installation_id, owner_id, direct, purpose, created_at, expires_at)
    VALUES (:codeHash, :installationId, :ownerId, :direct, :purpose, :createdAt, :expiresAt)`,
  takePairing: `DELETE FROM pairings WHERE code_hash = ? AND expires_at > ? AND purpose = ?
    RETURNING installation_id, owner_id, direct, purpose, expires_at`,
  installationsOf:
    "SELECT id, owner_id, name, created_at FROM installations WHERE owner_id = ? ORDER BY created_at, id",
  openJoinCodes: `SELECT count(*) AS n, min(expires_at) AS first FROM pairings
    WHERE owner_id = ? AND purpose = 'join' AND expires_at > ?`,

  insertDevice: `INSERT INTO devices (id, owner_id, direct_installation_id, name, public_key, token_hash,
      push_subscription, created_at)
    VALUES (:id, :ownerId, :directInstallationId, :name, :publicKey, :tokenHash, :pushSubscription, :createdAt)`,
  deviceByTokenHash: "SELECT * FROM devices WHERE token_hash = ? AND revoked_at IS NULL",
  deviceById: "SELECT * FROM devices WHERE id = ?",
  devicesFor: `SELECT * FROM devices WHERE revoked_at IS NULL AND (owner_id = ? OR direct_installation_id = ?)
    ORDER BY created_at, id`,
  listDevices: "SELECT * FROM devices ORDER BY created_at, id",
  revokeDevice: "UPDATE devices SET revoked_at = ?, push_subscription = NULL WHERE id = ? AND revoked_at IS NULL",
  setPushSubscription: "UPDATE devices SET push_subscription = ? WHERE id = ? AND revoked_at IS NULL",
  dropPushSubscription: "UPDATE devices SET push_subscription = NULL WHERE id = ? AND push_subscription = ?",

  insertAnswer: `INSERT INTO answers (installation_id, response_id, device_id, body, received_at)
    VALUES (:installationId, :responseId, :deviceId, :body, :receivedAt)
    ON CONFLICT (installation_id, response_id) DO NOTHING`,
  answerBody: "SELECT body FROM answers WHERE installation_id = ? AND response_id = ?",
  answersAfter: `SELECT seq, body, received_at AS at FROM answers
    WHERE installation_id = ? AND seq > ? AND received_at >= ? ORDER BY seq LIMIT ?`,
  ackAnswers: "UPDATE answers SET acked_at = ? WHERE installation_id = ? AND seq <= ? AND acked_at IS NULL",

  insertEnvelope: `INSERT INTO envelopes (id, installation_id, body, created_at, idempotency_key) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (installation_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
  envelopeByIdempotencyKey: "SELECT id, body FROM envelopes WHERE installation_id = ? AND idempotency_key = ?",
  insertRecipient: "INSERT OR IGNORE INTO envelope_recipients (device_id, envelope_seq) VALUES (?, ?)",
  envelopesAfter: `SELECT e.seq, e.id, e.body, e.created_at AS at FROM envelope_recipients r
    JOIN envelopes e ON e.seq = r.envelope_seq
    WHERE r.device_id = ? AND r.envelope_seq > ? AND e.created_at >= ? ORDER BY r.envelope_seq LIMIT ?`,
  ackEnvelopes:
    "UPDATE envelope_recipients SET acked_at = ? WHERE device_id = ? AND envelope_seq <= ? AND acked_at IS NULL",
  // Run before ackEnvelopes, on the rows it is about to acknowledge (`WHERE true`: SQLite's INSERT ... SELECT needs
  // it before ON CONFLICT).
  fetchedReceipts: `INSERT INTO receipts (installation_id, envelope_seq, device_id, state, at)
    SELECT e.installation_id, r.envelope_seq, r.device_id, 'fetched', :now FROM envelope_recipients r
      JOIN envelopes e ON e.seq = r.envelope_seq
    WHERE r.device_id = :deviceId AND r.envelope_seq <= :upTo AND r.acked_at IS NULL AND true
    ON CONFLICT DO NOTHING RETURNING installation_id`,
  sealedTo: `SELECT e.seq, e.installation_id FROM envelopes e
    JOIN envelope_recipients r ON r.envelope_seq = e.seq AND r.device_id = ? WHERE e.id = ?`,
  insertReceipt: `INSERT INTO receipts (installation_id, envelope_seq, device_id, state, at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT DO NOTHING`,
  receiptAt: "SELECT at FROM receipts WHERE envelope_seq = ? AND device_id = ? AND state = ?",
  receiptsAfter: `SELECT c.seq, e.id, e.idempotency_key, c.device_id, c.state, c.at FROM receipts c
    JOIN envelopes e ON e.seq = c.envelope_seq
    WHERE c.installation_id = ? AND c.seq > ? AND c.at >= ? ORDER BY c.seq LIMIT ?`,

  pruneAnswers: `DELETE FROM answers WHERE seq IN (
      SELECT seq FROM answers WHERE received_at < :ageCutoff
      UNION SELECT seq FROM answers WHERE acked_at < :ackCutoff
      LIMIT :batch)`,
  pruneEnvelopes: `DELETE FROM envelopes WHERE seq IN (
      SELECT e.seq FROM envelopes e WHERE e.created_at < :ageCutoff OR NOT EXISTS (
        SELECT 1 FROM envelope_recipients r WHERE r.envelope_seq = e.seq
          AND (r.acked_at IS NULL OR r.acked_at >= :ackCutoff))
      LIMIT :batch)`,
  prunePairings:
    "DELETE FROM pairings WHERE code_hash IN (SELECT code_hash FROM pairings WHERE expires_at <= ? LIMIT ?)",
} as const;
