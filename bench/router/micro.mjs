// Per-operation cost of the router's per-request hotspots seen in the CPU profile, each next to the cheaper way the
// same work could be done, so a proposed fix has a number before anyone writes it. Uses the built packages
// read-only (@notify/router's Ledger and migrations, the broker's SecretSealer); the alternatives are a few lines
// here and are not product code.
//
// Usage: node bench/router/micro.mjs [--iterations 20000]   (markdown on stdout, JSON in bench/results/)
import { createDecipheriv, createHash, createSecretKey, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { ensureDir, REPO_ROOT, RESULTS_DIR, round } from "./lib.mjs";

const { values: args } = parseArgs({ options: { iterations: { type: "string", default: "20000" } } });
const N = Number(args.iterations);

/** Microseconds per call of `fn`, after a warm-up of a tenth of the calls. */
function timeIt(fn, iterations = N) {
  for (let index = 0; index < Math.max(100, iterations / 10); index++) fn(index);
  const started = process.hrtime.bigint();
  for (let index = 0; index < iterations; index++) fn(index);
  return round(Number(process.hrtime.bigint() - started) / 1000 / iterations, 2);
}

const rows = [];
const add = (hotspot, how, us, note = "") => rows.push({ hotspot, how, usPerOp: us, note });

// The router database as the broker opens it (WAL, synchronous=NORMAL), in a temp dir.
const { migrateRouterDatabase, Ledger } = await import("@notify/router");
const dir = mkdtempSync(join(tmpdir(), "notify-bench-micro-"));
const db = new DatabaseSync(join(dir, "router.db"));
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = NORMAL");
db.exec("PRAGMA busy_timeout = 5000");
db.exec("PRAGMA foreign_keys = ON");
migrateRouterDatabase(db);
const ledger = new Ledger(db);
const now = new Date().toISOString();
const request = (index) => ({
  id: `req_${index}_${randomBytes(6).toString("hex")}`,
  started_at: now,
  finished_at: now,
  inbound_wire: "chat",
  requested_model: "mockchat/mock-fast",
  route_kind: "explicit",
  route_name: null,
  upstream_slug: "mockchat",
  upstream_model: "mock-fast",
  stream: false,
  status: 200,
  outcome: "ok",
  tokens: { input: 12, cached_input: null, output: 7, reasoning: null },
  usage_status: "reported",
  error_code: null,
  notes: [],
});
const attempt = (record) => [
  {
    request_id: record.id,
    ordinal: 1,
    upstream_slug: "mockchat",
    model: "mock-fast",
    upstream_wire: "chat",
    status: 200,
    error_code: null,
    duration_ms: 1,
    bytes_streamed: true,
    started_at: now,
  },
];
const ledgerN = Math.min(N, 5000);
add(
  "ledger.record",
  "one BEGIN IMMEDIATE ... COMMIT per request (today)",
  timeIt((index) => {
    const record = request(index);
    ledger.record(record, attempt(record));
  }, ledgerN),
);
const emptyTx = timeIt(() => {
  db.exec("BEGIN IMMEDIATE");
  db.exec("COMMIT");
}, ledgerN);
add("ledger.record", "of which: an empty BEGIN IMMEDIATE/COMMIT", emptyTx, "the per-transaction part batching removes");
// The same inserts, 100 requests per transaction (what a write queue flushed every few ms would do).
const insertRequest = db.prepare(`INSERT INTO requests (id, started_at, finished_at, started_ms, inbound_wire,
  requested_model, route_kind, route_name, upstream_slug, upstream_model, stream, status, outcome, input_tokens,
  cached_input_tokens, output_tokens, reasoning_tokens, usage_status, error_code, notes) VALUES (?, ?, ?, ?, ?, ?, ?,
  ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
const insertAttempt = db.prepare(`INSERT INTO attempts (request_id, ordinal, upstream_slug, model, upstream_wire,
  status, error_code, duration_ms, bytes_streamed, started_at, started_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
const batched = timeIt((index) => {
  if (index % 100 === 0) db.exec("BEGIN IMMEDIATE");
  const record = request(index);
  const ms = Date.parse(now);
  insertRequest.run(record.id, now, now, ms, "chat", "m", "explicit", null, "mockchat", "mock-fast", 0, 200, "ok");
  insertAttempt.run(record.id, 1, "mockchat", "mock-fast", "chat", 200, null, 1, 1, now, ms);
  if (index % 100 === 99) db.exec("COMMIT");
}, ledgerN);
if (db.isTransaction) db.exec("COMMIT");
add("ledger.record", "same two INSERTs, 100 requests per transaction", batched, "positional parameters");

// Upstream key: SELECT sealed_key, then AES-256-GCM open with a Buffer key (SecretSealer.open) on every request.
const { SecretSealer } = await import(join(REPO_ROOT, "packages", "broker", "dist", "secrets", "sealer.js"));
const sealer = new SecretSealer(dir);
const upstreamId = "ups_micro";
const sealed = sealer.seal(upstreamId, { key: "mock-upstream-key" });
db.exec(`INSERT INTO upstreams (id, slug, label, wire, base_url, sealed_key, models, enabled, created_at, updated_at)
  VALUES ('${upstreamId}', 'micro', 'micro', 'chat_wire', 'http://127.0.0.1:1/v1', '${sealed}', '[]', 1, '${now}', '${now}')`);
const selectSealed = db.prepare("SELECT sealed_key FROM upstreams WHERE id = ?");
add(
  "openKey",
  "SELECT sealed_key + SecretSealer.open (today)",
  timeIt(() => sealer.open(upstreamId, selectSealed.get(upstreamId).sealed_key)),
);
add(
  "openKey",
  "of which: SecretSealer.open alone",
  timeIt(() => sealer.open(upstreamId, sealed)),
);
const rawKey = (await import("node:fs")).readFileSync(join(dir, "secret.key"));
const keyObject = createSecretKey(rawKey);
const openWith = (key) => {
  const [, ivText, bodyText] = sealed.split(".");
  const body = Buffer.from(bodyText, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ivText, "base64url"));
  decipher.setAAD(Buffer.from(upstreamId, "utf8"));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return JSON.parse(Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString());
};
add(
  "openKey",
  "same decryption with a KeyObject made once (createSecretKey)",
  timeIt(() => openWith(keyObject)),
);
const cache = new Map([[`${upstreamId}\0${sealed}`, "mock-upstream-key"]]);
add(
  "openKey",
  "opened key kept per (upstream id, sealed value) until the record changes",
  timeIt(() => cache.get(`${upstreamId}\0${sealed}`)),
);

// Router key check: two SHA-256 digests per candidate header (up to three candidates), then timingSafeEqual.
const routerKey = `nrk_${randomBytes(32).toString("base64url")}`;
const matches = (supplied, expected) =>
  timingSafeEqual(createHash("sha256").update(supplied).digest(), createHash("sha256").update(expected).digest());
add(
  "router key check",
  "hash supplied and expected key per request (today, one candidate)",
  timeIt(() => matches(routerKey, routerKey)),
);
const expectedDigest = createHash("sha256").update(routerKey).digest();
add(
  "router key check",
  "expected key's digest computed once per key value",
  timeIt(() => timingSafeEqual(createHash("sha256").update(routerKey).digest(), expectedDigest)),
);

// Request ids.
add(
  "ids",
  "randomBytes(12).toString('hex') per id (today)",
  timeIt(() => randomBytes(12).toString("hex")),
);
let counter = 0;
const prefix = randomBytes(8).toString("hex");
add(
  "ids",
  "random per-process prefix + counter",
  timeIt(() => `${prefix}${(counter++).toString(16).padStart(8, "0")}`),
);

db.close();
const lines = [
  `Per-operation cost of the router's per-request hotspots (${N} iterations; ledger ${ledgerN}), Node ${process.version}:`,
  "",
  "| hotspot | how | us per op | note |",
  "|---|---|---:|---|",
  ...rows.map((row) => `| ${row.hotspot} | ${row.how} | ${row.usPerOp} | ${row.note} |`),
];
process.stdout.write(`${lines.join("\n")}\n`);
ensureDir(RESULTS_DIR);
const file = join(RESULTS_DIR, "router-micro-latest.json");
writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), iterations: N, rows }, null, 2)}\n`);
process.stderr.write(`raw: ${relative(REPO_ROOT, file)}\n`);
