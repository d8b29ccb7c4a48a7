// Attention routing benchmark (issue 24): 10,000 delayed items scheduled on a route with delay_seconds, each due
// within the run, while the broker also takes 1,000 creates/s; how late each fires (p50/p99/max), and broker RSS
// and CPU side by side with the same load and no delayed route, in one run.
// Usage: npx tsc -b && npm run bench:routing [-- --items 10000 --rate 1000 --delay 15]

import http from "node:http";
import { DatabaseSync } from "node:sqlite";
import {
  percentile,
  procCpuSeconds,
  procMemory,
  progress,
  request,
  round,
  sleep,
  startBroker,
} from "../broker/lib.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const ITEMS = option("--items", 10_000);
const RATE = option("--rate", 1_000);
const DELAY = option("--delay", 15);
/** Items are scheduled at RATE/s, so the last is due ITEMS/RATE + DELAY s after the start; a margin after it. */
const RUN_MS = (ITEMS / RATE + DELAY + 3) * 1000;

/** A loopback webhook that counts what arrives, by notification id, with its arrival time. */
async function sink() {
  const arrivals = new Map();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      try {
        const id = JSON.parse(body).notification?.id;
        if (id && !arrivals.has(id)) arrivals.set(id, Date.now());
      } catch {}
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, arrivals, close: () => server.close() };
}

async function ui(broker, agent, method, path, body) {
  const payload = JSON.stringify(body);
  const status = await new Promise((resolve, reject) => {
    const req = http.request(
      `${broker.url}/ui/api${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${broker.token}`,
          "x-notify-ui": "1",
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
  if (status >= 300) throw new Error(`${method} ${path}: ${status}`);
}

/**
 * One broker under the load: every 10 ms, RATE/100 background creates (project "bg", no route matches them) and,
 * until ITEMS are scheduled, RATE/100 routed creates (project "routed": the route matches them). Samples RSS every
 * 250 ms and CPU over the whole run.
 */
async function runOne(label, route, sinkUrl) {
  const broker = await startBroker(`routing-${label}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  await ui(broker, agent, "POST", "/outbound/providers", {
    kind: "webhook",
    name: "sink",
    settings: { url: sinkUrl },
    enabled: true,
  });
  await ui(broker, agent, "POST", "/outbound/routes", {
    name: "routed",
    provider: "sink",
    enabled: true,
    project: "routed",
    ...route,
  });
  const created = new Map();
  const perTick = RATE / 100;
  let scheduled = 0;
  let background = 0;
  let failed = 0;
  const post = async (project) => {
    const response = await request(agent, `${broker.url}/v1/notifications`, {
      method: "POST",
      token: broker.token,
      body: { title: "bench", message: "routing bench", agent: "bench", project },
    });
    if (response.status !== 201) failed++;
    return response.body;
  };
  const rss = [];
  const cpuBefore = procCpuSeconds(broker.pid);
  const started = Date.now();
  const inFlight = new Set();
  let tick = 0;
  while (Date.now() - started < RUN_MS) {
    tick++;
    for (let index = 0; index < perTick; index++) {
      const bg = post("bg").then(() => background++);
      inFlight.add(bg);
      bg.finally(() => inFlight.delete(bg));
      if (scheduled < ITEMS) {
        scheduled++;
        const routed = post("routed").then((body) => {
          if (body?.id) created.set(body.id, Date.parse(body.createdAt));
        });
        inFlight.add(routed);
        routed.finally(() => inFlight.delete(routed));
      }
    }
    if (tick % 25 === 0) rss.push(procMemory(broker.pid).rssKb);
    if (tick % 500 === 0)
      progress(`${label}: ${Math.round((Date.now() - started) / 1000)} s, ${background} bg creates`);
    const next = started + tick * 10;
    await sleep(Math.max(0, next - Date.now()));
  }
  await Promise.all(inFlight);
  const elapsed = (Date.now() - started) / 1000;
  const cpu = procCpuSeconds(broker.pid) - cpuBefore;
  // How late each held row became an outbox item (its release), from the broker's own rows.
  const db = new DatabaseSync(broker.dbPath, { readOnly: true });
  const released = db
    .prepare(
      `SELECT r.updated_ms AS at, n.created_at AS created, r.state FROM routed_deliveries r
       JOIN notifications n ON n.seq = r.subject_seq WHERE r.subject = 'notification'`,
    )
    .all();
  db.close();
  agent.destroy();
  await broker.stop();
  return { label, broker, created, rss, cpu, elapsed, background, failed, released };
}

function lateness(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50), 0),
    p99: round(percentile(sorted, 99), 0),
    max: round(sorted.at(-1) ?? Number.NaN, 0),
  };
}

const delayedSink = await sink();
progress(`delayed route: ${ITEMS} items at ${RATE}/s, delay ${DELAY} s, plus ${RATE} background creates/s`);
const delayed = await runOne("delayed", { delay_seconds: DELAY }, delayedSink.url);
const plainSink = await sink();
progress("same load, the route without a delay");
const plain = await runOne("no-delay", {}, plainSink.url);

const releaseLate = delayed.released
  .filter((row) => row.state === "sent")
  .map((row) => row.at - (Date.parse(row.created) + DELAY * 1000));
const arrivalLate = [...delayed.created].flatMap(([id, createdMs]) => {
  const at = delayedSink.arrivals.get(id);
  return at === undefined ? [] : [at - (createdMs + DELAY * 1000)];
});
const plainArrival = [...plain.created].flatMap(([id, createdMs]) => {
  const at = plainSink.arrivals.get(id);
  return at === undefined ? [] : [at - createdMs];
});
const early = releaseLate.filter((ms) => ms < 0).length;
const result = {
  command: `npm run bench:routing -- --items ${ITEMS} --rate ${RATE} --delay ${DELAY}`,
  scheduled: delayed.created.size,
  released: releaseLate.length,
  releasedEarly: early,
  arrived: arrivalLate.length,
  releaseLatenessMs: lateness(releaseLate),
  arrivalLatenessMs: lateness(arrivalLate),
  noDelayArrivalAfterCreateMs: lateness(plainArrival),
  brokers: [delayed, plain].map((run) => ({
    label: run.label,
    seconds: round(run.elapsed, 1),
    backgroundCreatesPerSecond: round(run.background / run.elapsed, 0),
    failedCreates: run.failed,
    cpuPercent: round((run.cpu / run.elapsed) * 100, 1),
    rssMiB: {
      median: round(
        percentile(
          [...run.rss].sort((a, b) => a - b),
          50,
        ) / 1024,
        1,
      ),
      max: round(Math.max(...run.rss) / 1024, 1),
    },
  })),
};
console.log(JSON.stringify(result, null, 2));
delayedSink.close();
plainSink.close();
