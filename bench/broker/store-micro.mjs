// Diagnostic micro-benchmark (not part of `npm run bench:broker`): the broker's own NotificationService.create
// in a tight loop, no HTTP, on a fresh database, to separate the SQLite commit cost from the HTTP stack, plus
// what-if variants of the storage set-up (nothing in the broker is changed; the variants are built here).
// Usage: node bench/broker/store-micro.mjs [dir ...]   (default os.tmpdir(); e.g. /tmp /dev/shm to compare disk/RAM)
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT, round, summarize } from "./lib.mjs";

const dist = (path) => pathToFileURL(join(REPO_ROOT, "packages", "broker", "dist", path)).href;
const { openDatabase, openDatabaseFile } = await import(dist("store/database.js"));
const { MIGRATIONS } = await import(dist("store/migrations.js"));
const { NotificationStore } = await import(dist("store/notification-store.js"));
const { NotificationService } = await import(dist("notifications/service.js"));
const { TypeRegistry } = await import(dist("notifications/type-ids.js"));
const { DomainBus } = await import(dist("domain/bus.js"));
const { systemClock } = await import(dist("domain/clock.js"));

const COUNT = Number(process.env.MICRO_COUNT ?? 20000);
const input = {
  title: "bench: build finished",
  message: "The benchmark agent finished a step and wants attention.",
  type: "info",
  agent: "bench",
};
const WAL_FRAME_BYTES = 4096 + 24;

/** The broker's schema with `AUTOINCREMENT` removed (rowids are then reused only after the newest row is deleted). */
function openWithoutAutoincrement(path) {
  const db = openDatabaseFile(path);
  const rewriting = new Proxy(db, {
    get(target, key) {
      if (key === "exec") return (sql) => target.exec(sql.replaceAll("AUTOINCREMENT", ""));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  db.exec("BEGIN IMMEDIATE");
  for (const step of MIGRATIONS) step(rewriting);
  db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
  db.exec("COMMIT");
  return db;
}

const VARIANTS = [
  { name: "broker as is (WAL, synchronous=NORMAL, autocheckpoint 1000)" },
  { name: "wal_autocheckpoint = 0 (no checkpoint on the request path)", noCheckpoint: true },
  { name: "no AUTOINCREMENT, autocheckpoint 0", noCheckpoint: true, noAutoincrement: true },
  { name: "10 creates per transaction (group commit)", batch: 10 },
  { name: "10 creates per transaction, autocheckpoint 0", batch: 10, noCheckpoint: true },
];

function run(parent, variant) {
  const dir = mkdtempSync(join(parent, "notify-micro-"));
  const path = join(dir, "notify.db");
  const db = variant.noAutoincrement ? openWithoutAutoincrement(path) : openDatabase(path);
  if (variant.noCheckpoint) db.exec("PRAGMA wal_autocheckpoint = 0");
  const service = new NotificationService(
    new NotificationStore(db),
    systemClock,
    new DomainBus(),
    new TypeRegistry([]),
  );
  const batch = variant.batch ?? 1;
  const walBefore = statSync(`${path}-wal`).size;
  const commitLatencies = [];
  const start = performance.now();
  for (let i = 0; i < COUNT; i += batch) {
    const t = performance.now();
    if (batch === 1) service.create({ ...input });
    else {
      // Nested transactions join the outer one (store/database.ts), so this is one commit for `batch` creates.
      db.exec("BEGIN IMMEDIATE");
      for (let j = 0; j < batch; j++) service.create({ ...input });
      db.exec("COMMIT");
    }
    commitLatencies.push(performance.now() - t);
  }
  const seconds = (performance.now() - start) / 1000;
  const walFrames = (statSync(`${path}-wal`).size - walBefore) / WAL_FRAME_BYTES;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const stats = summarize(commitLatencies);
  return {
    dir: parent,
    variant: variant.name,
    createsPerSecond: Math.round(COUNT / seconds),
    commitP50ms: round(stats.p50, 3),
    commitP99ms: round(stats.p99, 3),
    commitMaxMs: round(stats.max, 2),
    walFramesPerCommit: variant.noCheckpoint ? round(walFrames / (COUNT / batch), 1) : "-",
  };
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) dirs.push(tmpdir());
const rows = [];
for (const dir of dirs) for (const variant of VARIANTS) rows.push(run(dir, variant));
console.log(`${COUNT} NotificationService.create calls per row`);
console.table(rows);
