// The write path alone (issue 4): notification creates through the broker's services, in process, with no HTTP and
// no deliveries, on two brokers (0 and 3 matching routes) whose batches alternate so machine drift hits both alike.
// Each batch is 10 creates in one event-loop turn (one group commit), as under HTTP load.
// With the folded outbox (migration 5) a create only writes its routes' marker into its own row; the outbox items
// are written later, when the dispatcher expands the markers. That deferred work is timed at the end, the way the
// dispatcher does it (one chunk per unit and per turn), and reported apart: `expandMicrosecondsPerCreate`.
// Usage: node bench/outbound/write-path.mjs [--rounds 40] [--batch 10] (run by bench/outbound/run.mjs).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { startBroker } from "../../packages/broker/dist/broker.js";

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf("--rounds") + 1] || 40);
// Creates per event-loop turn (per group commit); under HTTP load at 10 connections a turn holds a few.
const batchSize = Number(args[args.indexOf("--batch") + 1] || 10);
const WARM_ROUNDS = 4;
const BATCHES_PER_ROUND = 250;

async function makeBroker(routes) {
  const dataDir = mkdtempSync(join(tmpdir(), `notify-bench-write-${routes}-`));
  const broker = await startBroker({ dataDir, port: 0, token: "b".repeat(43) });
  // No deliveries: only what creating costs.
  await broker.dispatcher.stop();
  const ui = async (url, payload) => {
    const reply = await broker.app.inject({
      method: "POST",
      url: `/ui/api${url}`,
      headers: { "x-notify-ui": "1", host: "127.0.0.1" },
      payload,
    });
    if (reply.statusCode >= 300) throw new Error(`${url}: ${reply.statusCode} ${reply.body}`);
  };
  if (routes > 0) {
    await ui("/outbound/providers", {
      kind: "webhook",
      name: "sink",
      settings: { url: "http://127.0.0.1:9/hook" },
      enabled: true,
    });
    for (let index = 0; index < routes; index++) {
      await ui("/outbound/routes", { name: `r${index}`, provider: "sink", enabled: true });
    }
  }
  return { routes, broker, dataDir, nanoseconds: 0n, creates: 0 };
}

const input = {
  agent: "bench",
  project: "notify-bench",
  type: "info",
  title: "Build finished",
  message: "All 42 tests passed in 3.1 s",
};
const targets = [await makeBroker(0), await makeBroker(3)];
for (let round = 0; round < rounds + WARM_ROUNDS; round++) {
  for (const target of targets) {
    const started = process.hrtime.bigint();
    for (let batch = 0; batch < BATCHES_PER_ROUND; batch++) {
      for (let index = 0; index < batchSize; index++) target.broker.notifications.create(input);
      await nextTurn();
    }
    if (round >= WARM_ROUNDS) {
      target.nanoseconds += process.hrtime.bigint() - started;
      target.creates += BATCHES_PER_ROUND * batchSize;
    }
  }
}
const [zero, three] = targets.map((target) => Number(target.nanoseconds) / 1000 / target.creates);
const count = (db, sql) => db.prepare(sql).get().count;
const threeDb = targets[1].broker.db;
const outboxRowsAfterCreates = count(threeDb, "SELECT count(*) AS count FROM outbox");
const markers = count(threeDb, "SELECT count(*) AS count FROM notifications WHERE outbound IS NOT NULL");
// The dispatcher's deferred share: every marker expanded into outbox rows, a chunk per turn (one commit each).
const expandStarted = process.hrtime.bigint();
for (;;) {
  const step = targets[1].broker.outbox.expand();
  await nextTurn();
  if (step.done) break;
}
const expandMicroseconds = Number(process.hrtime.bigint() - expandStarted) / 1000 / markers;
const outboxRows = count(threeDb, "SELECT count(*) AS count FROM outbox");
for (const target of targets) {
  await target.broker.close();
  rmSync(target.dataDir, { recursive: true, force: true });
}
process.stdout.write(
  `${JSON.stringify({
    creates: targets[0].creates,
    microsecondsPerCreate: { zeroRoutes: Math.round(zero * 10) / 10, threeRoutes: Math.round(three * 10) / 10 },
    addedMicroseconds: Math.round((three - zero) * 10) / 10,
    outboxRowsAfterCreates,
    markers,
    expandMicrosecondsPerCreate: Math.round(expandMicroseconds * 10) / 10,
    outboxRows,
  })}\n`,
);
