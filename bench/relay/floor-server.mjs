// The floor: bare fastify doing what a relay must at least do per answer, to see how much of the relay's CPU per
// answer is the database itself. POST /v1/interaction-responses parses the same JSON, hashes the bearer token
// (SHA-256, as the relay), stores the body in an `answers` table of the relay's shape (same unique rule, same
// indexes) with group commit, and answers 201 with the same body once the commit is done. Nothing else: no checks of
// the body, no metrics, no access log, no rate limits.
//
// FLOOR_SQLITE=<file>: node:sqlite in WAL mode with synchronous=NORMAL, the answers of one event-loop turn in one
// transaction (one INSERT ... ON CONFLICT DO NOTHING each), as the relay's SQLite store.
// FLOOR_PG=<url>: pg, one multi-row INSERT per event-loop turn (the relay's statement, a named prepared statement,
// at most 4 batches in flight, 500 answers each), a pool of 20; run it as several processes on one database.
// FLOOR_EXTRAS=lookup,notify (optional): also what the relay's design adds on its answer path: `lookup` resolves the
// token's digest to a device (one grouped SELECT per turn on PostgreSQL), `notify` sends one NOTIFY per committed
// batch on PostgreSQL (asynchronous commit), which wakes held polls in the other processes.
// Prints its URL on stdout.
import { hash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import Fastify from "fastify";
import pg from "pg";

const extras = new Set((process.env.FLOOR_EXTRAS ?? "").split(",").filter(Boolean));
const BENCH_TOKENS = ["x"]; // the bench's fake phone token (run.mjs)
const MAX_IN_FLIGHT = 4;
const MAX_BATCH = 500;

const ANSWERS_PG = `
  CREATE TABLE IF NOT EXISTS answers (
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
  CREATE INDEX IF NOT EXISTS answers_feed ON answers (installation_id, txid, seq);
  CREATE INDEX IF NOT EXISTS answers_by_age ON answers (received_at);
  CREATE INDEX IF NOT EXISTS answers_by_ack ON answers (acked_at) WHERE acked_at IS NOT NULL;
  CREATE TABLE IF NOT EXISTS devices (id text PRIMARY KEY, token_hash text NOT NULL UNIQUE, revoked_at bigint);`;
const ANSWERS_SQLITE = `
  CREATE TABLE IF NOT EXISTS answers (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    installation_id TEXT NOT NULL,
    response_id TEXT NOT NULL,
    device_id TEXT NOT NULL,
    body TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    acked_at INTEGER,
    UNIQUE (installation_id, response_id)
  );
  CREATE INDEX IF NOT EXISTS answers_by_installation ON answers (installation_id, seq);
  CREATE INDEX IF NOT EXISTS answers_by_age ON answers (received_at);
  CREATE INDEX IF NOT EXISTS answers_by_ack ON answers (acked_at) WHERE acked_at IS NOT NULL;
  CREATE TABLE IF NOT EXISTS devices (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, revoked_at INTEGER);`;
// The relay's statement (packages/relay/src/store/postgres/queries.ts, insertAnswers).
const INSERT_ANSWERS_PG = `INSERT INTO answers (installation_id, response_id, device_id, body, received_at)
    SELECT i, r, d, b, t FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
      WITH ORDINALITY AS u(i, r, d, b, t, n) ORDER BY n
    ON CONFLICT (installation_id, response_id) DO NOTHING RETURNING installation_id, response_id`;
const DEVICES_PG = "SELECT id, token_hash FROM devices WHERE token_hash = ANY($1::text[]) AND revoked_at IS NULL";
const NOTIFY_PG = `SELECT set_config('synchronous_commit', 'off', true), pg_notify('relay_changes', payload)
    FROM unnest($1::text[]) AS payload`;

const key = (answer) => `${answer.installationId}\u0000${answer.responseId}`;
const byKey = (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Items submitted during one event-loop turn go in one batch; at most MAX_IN_FLIGHT batches at once. */
function batcher(runBatch) {
  let pending = [];
  let inFlight = 0;
  let scheduled = false;
  const schedule = () => {
    if (scheduled || inFlight >= MAX_IN_FLIGHT || pending.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (inFlight < MAX_IN_FLIGHT && pending.length > 0) {
        const batch = pending.slice(0, MAX_BATCH);
        pending = pending.slice(MAX_BATCH);
        inFlight += 1;
        runBatch(batch.map((entry) => entry.item))
          .then(
            (outcomes) => {
              for (const [index, entry] of batch.entries()) entry.resolve(outcomes[index]);
            },
            (error) => {
              for (const entry of batch) entry.reject(error);
            },
          )
          .finally(() => {
            inFlight -= 1;
            schedule();
          });
      }
    });
  };
  return (item) =>
    new Promise((resolve, reject) => {
      pending.push({ item, resolve, reject });
      schedule();
    });
}

async function postgresStore(url) {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const client = await pool.connect();
  try {
    // Two processes start at once: one creates the tables.
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(47823)");
    await client.query(ANSWERS_PG);
    await client.query(
      "INSERT INTO devices (id, token_hash) SELECT 'dev_' || t, t FROM unnest($1::text[]) AS t ON CONFLICT DO NOTHING",
      [BENCH_TOKENS.map((token) => hash("sha256", token, "hex"))],
    );
    await client.query("COMMIT");
  } finally {
    client.release();
  }
  const lookup = batcher(async (hashes) => {
    const { rows } = await pool.query({ name: "devices", text: DEVICES_PG, values: [[...new Set(hashes)]] });
    const found = new Map(rows.map((row) => [row.token_hash, row.id]));
    return hashes.map((digest) => found.get(digest));
  });
  const insert = batcher(async (answers) => {
    const rows = [...answers].sort(byKey);
    const { rows: inserted } = await pool.query({
      name: "insertAnswers",
      text: INSERT_ANSWERS_PG,
      values: [
        rows.map((row) => row.installationId),
        rows.map((row) => row.responseId),
        rows.map((row) => row.deviceId),
        rows.map((row) => row.body),
        rows.map((row) => row.receivedAt),
      ],
    });
    const created = new Set(
      inserted.map((row) => key({ installationId: row.installation_id, responseId: row.response_id })),
    );
    if (extras.has("notify") && created.size > 0) {
      const installations = [...new Set(answers.map((answer) => `floor|a|${answer.installationId}`))];
      pool.query({ name: "notify", text: NOTIFY_PG, values: [installations] }).catch(() => undefined);
    }
    return answers.map((answer) => created.has(key(answer)));
  });
  return { lookup: extras.has("lookup") ? lookup : undefined, insert, close: () => pool.end() };
}

function sqliteStore(path) {
  const db = new DatabaseSync(path, { timeout: 5000 });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  db.exec(ANSWERS_SQLITE);
  const addDevice = db.prepare("INSERT OR IGNORE INTO devices (id, token_hash) VALUES (?, ?)");
  for (const token of BENCH_TOKENS) addDevice.run(`dev_${token}`, hash("sha256", token, "hex"));
  const insertOne = db.prepare(`INSERT INTO answers (installation_id, response_id, device_id, body, received_at)
    VALUES (?, ?, ?, ?, ?) ON CONFLICT (installation_id, response_id) DO NOTHING`);
  const device = db.prepare("SELECT id FROM devices WHERE token_hash = ? AND revoked_at IS NULL");
  const insert = batcher(async (answers) => {
    db.exec("BEGIN IMMEDIATE");
    try {
      const outcomes = answers.map(
        (row) => insertOne.run(row.installationId, row.responseId, row.deviceId, row.body, row.receivedAt).changes > 0,
      );
      db.exec("COMMIT");
      return outcomes;
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw error;
    }
  });
  const lookup = async (digest) => device.get(digest)?.id;
  return { lookup: extras.has("lookup") ? lookup : undefined, insert, close: async () => db.close() };
}

const store = process.env.FLOOR_PG ? await postgresStore(process.env.FLOOR_PG) : sqliteStore(process.env.FLOOR_SQLITE);
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
app.post("/v1/interaction-responses", async (request, reply) => {
  const digest = hash("sha256", (request.headers.authorization ?? "").slice(7), "hex");
  const deviceId = store.lookup ? await store.lookup(digest) : `dev_${digest.slice(0, 8)}`;
  if (deviceId === undefined) return reply.code(401).send({ error: { code: "unauthorized" } });
  const body = request.body;
  const created = await store.insert({
    installationId: body.installation_id,
    responseId: body.response_id,
    deviceId,
    body: JSON.stringify(body),
    receivedAt: Date.now(),
  });
  return reply.code(created ? 201 : 409).send({ status: "accepted", response_id: body.response_id });
});
const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`listening on ${url}\n`);
process.on("SIGTERM", () =>
  app
    .close()
    .then(() => store.close())
    .then(() => process.exit(0)),
);
