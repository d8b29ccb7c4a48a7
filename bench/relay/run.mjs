// Relay benchmarks: stored answers/s and latency vs a bare fastify baseline (SQLite, PostgreSQL with one and two
// relay processes), answer-to-held-poll latency with wait=N, RSS with 10,000 held polls; and the floor
// (floor-server.mjs: bare fastify that stores each answer with group commit, on SQLite and on two PostgreSQL
// processes), to see how much of the relay's CPU per answer the database itself takes.
// Usage: npm run bench:relay [-- --duration=10 --connections=10,100 --rounds=200 --holds=10000
//        --skip=throughput,latency,holds,pg,pg-single,pg-relay,floor --floor-pg=";lookup;notify;lookup,notify"
//        --rate=1500 --relay-node-args="--cpu-prof --cpu-prof-dir=DIR"
//        --relay-cli=<another build>/packages/relay/dist/cli/main.js]
// Summary (markdown) on stdout, progress on stderr, raw JSON in bench/results/.
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import os from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import {
  answerBody,
  BENCH_DIR,
  call,
  enrollAndPair,
  percentile,
  progress,
  RELAY_CLI,
  REPO_ROOT,
  round,
  rssMb,
  spawnServer,
  startPostgres,
  startRelay,
} from "./lib.mjs";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "10,100" },
    rounds: { type: "string", default: "200" },
    holds: { type: "string", default: "10000" },
    skip: { type: "string", default: "" },
    // Node flags for every relay process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/relay-prof" (profiles at exit).
    "relay-node-args": { type: "string", default: "" },
    // Another build of the relay (e.g. a checkout of an older commit built in a temp dir), for before/after runs.
    "relay-cli": { type: "string", default: RELAY_CLI },
    // The PostgreSQL floors, separated by ";": each a FLOOR_EXTRAS list (floor-server.mjs), "" = the bare floor.
    "floor-pg": { type: "string", default: ";lookup,notify" },
    // Answers/s to post, summed over the targets (autocannon's overallRate); default: as fast as they answer. CPU per
    // answer falls as a server's answers/s rise (bigger batches per commit), so on a machine whose load moves a
    // fixed rate that every server keeps up with compares them at the same batch sizes.
    rate: { type: "string", default: "" },
  },
});
const relayNodeArgs = args["relay-node-args"].split(" ").filter(Boolean);
const duration = Number(args.duration);
const warmup = Number(args.warmup);
const connectionCounts = args.connections.split(",").map(Number);
const skip = new Set(args.skip.split(",").filter(Boolean));
const results = { machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, runs: [] };

/** One autocannon run posting unique answers; returns throughput, latency and the ids that got 201. */
function load(targets, connections, seconds) {
  const accepted = [];
  const prefix = randomUUID().slice(0, 8);
  let counter = 0;
  const runs = targets.map(
    ({ url, installation, phone }) =>
      new Promise((resolve, reject) => {
        autocannon(
          {
            url: `${url}/v1/interaction-responses`,
            connections: Math.max(1, Math.round(connections / targets.length)),
            duration: seconds,
            ...(args.rate ? { overallRate: Math.max(1, Math.round(Number(args.rate) / targets.length)) } : {}),
            method: "POST",
            headers: { authorization: `Bearer ${phone.token}`, "content-type": "application/json" },
            requests: [
              {
                setupRequest: (req, context) => {
                  context.id = `${prefix}-${counter++}`;
                  return { ...req, body: JSON.stringify(answerBody(installation, phone, context.id)) };
                },
                onResponse: (status, _body, context) => {
                  if (status === 201) accepted.push(context.id);
                },
              },
            ],
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        );
      }),
  );
  return Promise.all(runs).then((list) => ({
    rps: list.reduce((sum, result) => sum + result.requests.average, 0),
    p50: Math.max(...list.map((result) => result.latency.p50)),
    p99: Math.max(...list.map((result) => result.latency.p99)),
    non2xx: list.reduce((sum, result) => sum + result.non2xx + result.errors, 0),
    accepted,
  }));
}

async function committedIds(backend, location, installationId) {
  if (backend === "sqlite") {
    const db = new DatabaseSync(location, { readOnly: true });
    const rows = db.prepare("SELECT response_id FROM answers WHERE installation_id = ?").all(installationId);
    db.close();
    return new Set(rows.map((row) => row.response_id));
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  const { rows } = await client.query("SELECT response_id FROM answers WHERE installation_id = $1", [installationId]);
  await client.end();
  return new Set(rows.map((row) => row.response_id));
}

/** User + system CPU of a process in ms (clock ticks of 10 ms), 0 once it has gone. */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The bench's own cluster: its postmaster and the postmaster's children (other clusters may run meanwhile). */
let postmasterPid;
function postgresPids() {
  if (postmasterPid === undefined) return [];
  const parentOf = (pid) => {
    try {
      return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
    } catch {
      return undefined;
    }
  };
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => Number(pid) === postmasterPid || parentOf(pid) === postmasterPid);
}

/** The machine's busy and total CPU in ms, from /proc/stat (all cores). */
function machineCpuMs() {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0) * 10;
  const idle = (ticks[3] + ticks[4]) * 10;
  return { busy: total - idle, total };
}

/**
 * CPU used during a run, split by who used it: the load generator (this process: autocannon), the relays,
 * PostgreSQL's processes, and everything else on the machine. Read before and after, so it is what the run cost.
 */
function cpuSnapshot(relays) {
  const pg = postgresPids();
  const usage = process.cpuUsage();
  return {
    loadgen: (usage.user + usage.system) / 1000,
    relays: relays.reduce((sum, relay) => sum + processCpuMs(relay.child.pid), 0),
    postgres: pg.reduce((sum, pid) => sum + processCpuMs(pid), 0),
    machine: machineCpuMs(),
  };
}

function cpuSplit(before, after, requests) {
  const wall = after.machine.total - before.machine.total;
  const per = (ms) => round((ms / Math.max(1, requests)) * 1000, 0);
  const loadgen = after.loadgen - before.loadgen;
  const relays = after.relays - before.relays;
  const postgres = after.postgres - before.postgres;
  const busy = after.machine.busy - before.machine.busy;
  const other = Math.max(0, busy - loadgen - relays - postgres);
  return {
    usPerRequest: { loadgen: per(loadgen), relays: per(relays), postgres: per(postgres), other: per(other) },
    busyPct: round((busy / Math.max(1, wall)) * 100, 0),
  };
}

/** The floor servers' identity: any installation id, the token they know (floor-server.mjs). */
const floorIdentity = async () => ({
  installation: { installation_id: `ins_${randomUUID().slice(0, 8)}` },
  phone: { device_id: "dev_x", token: "x" },
});

/** `identify` gives a fresh installation and phone (enrolled on a relay, or made up for a floor server). */
async function throughput(name, relays, backend, location, identify) {
  for (const connections of connectionCounts) {
    // A fresh installation per run, so the committed-rows check covers exactly this run.
    const { installation, phone } = await identify();
    const targets = relays.map((relay) => ({ url: relay.url, installation, phone }));
    if (warmup > 0) await load(targets, connections, warmup);
    const before = cpuSnapshot(relays);
    const run = await load(targets, connections, duration);
    const cpu = cpuSplit(before, cpuSnapshot(relays), run.rps * duration);
    const committed = backend ? await committedIds(backend, location, installation.installation_id) : undefined;
    const lost = committed ? run.accepted.filter((id) => !committed.has(id)).length : 0;
    const entry = {
      name,
      connections,
      rps: round(run.rps, 0),
      p50: run.p50,
      p99: run.p99,
      accepted: run.accepted.length,
      non2xx: run.non2xx,
      lost,
      cpu,
    };
    results.runs.push(entry);
    progress(`${name} c=${connections}: ${entry.rps}/s p50 ${entry.p50} ms p99 ${entry.p99} ms, lost ${lost}`);
  }
}

async function waitForHeld(url, count) {
  for (;;) {
    const health = (await call(url, "GET", "/healthz")).json;
    if (health.held_polls >= count) return;
    await new Promise((resolve) => setTimeout(resolve, health.held_polls > 0 ? 5 : 1));
  }
}

/** Time from sending an answer to the broker's held poll (wait=30) returning it; the POST round trip beside it. */
async function heldPollLatency(name, postUrl, pollUrl, enrollmentToken) {
  const { installation, phone } = await enrollAndPair(postUrl, enrollmentToken);
  let cursor = (await call(pollUrl, "GET", "/v1/interaction-responses", installation.token)).json.next_cursor;
  const wake = [];
  const post = [];
  for (let index = 0; index < Number(args.rounds); index += 1) {
    const held = call(
      pollUrl,
      "GET",
      `/v1/interaction-responses?since=${encodeURIComponent(cursor)}&wait=30`,
      installation.token,
    );
    await waitForHeld(pollUrl, 1);
    const started = performance.now();
    const posted = call(
      postUrl,
      "POST",
      "/v1/interaction-responses",
      phone.token,
      answerBody(installation, phone, `l${index}`),
    ).then(() => post.push(performance.now() - started));
    const page = await held;
    wake.push(performance.now() - started);
    await posted;
    cursor = page.json.next_cursor;
  }
  wake.sort((a, b) => a - b);
  post.sort((a, b) => a - b);
  const entry = {
    name,
    rounds: wake.length,
    wakeP50: round(percentile(wake, 50), 2),
    wakeP99: round(percentile(wake, 99), 2),
    postP50: round(percentile(post, 50), 2),
    postP99: round(percentile(post, 99), 2),
  };
  results.runs.push(entry);
  progress(`${name}: answer to held poll p50 ${entry.wakeP50} ms p99 ${entry.wakeP99} ms`);
}

/**
 * N held polls on one process: its RSS before and while holding, and how long one answer takes to reach all.
 * `release` posts the answer (the relay) or releases every held request (the bare fastify baseline).
 */
async function heldPollMemory(name, server, path, headers, release) {
  const holds = Number(args.holds);
  const idle = rssMb(server.child.pid);
  const agent = new Agent({ maxSockets: Number.POSITIVE_INFINITY, keepAlive: false });
  const { hostname, port } = new URL(server.url);
  let delivered = 0;
  let failed = 0;
  let allDone;
  const done = new Promise((resolve) => {
    allDone = resolve;
  });
  const settle = () => {
    if (delivered + failed === holds) allDone();
  };
  for (let index = 0; index < holds; index += 1) {
    const req = request({ hostname, port, path, agent, headers }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => {
        if (res.statusCode === 200 && JSON.parse(text).responses.length === 1) delivered += 1;
        else failed += 1;
        settle();
      });
    });
    req.on("error", () => {
      failed += 1;
      settle();
    });
    req.end();
  }
  await waitForHeld(server.url, holds);
  const held = rssMb(server.child.pid);
  const started = performance.now();
  await release();
  await done;
  const fanoutMs = performance.now() - started;
  agent.destroy();
  const entry = {
    name,
    holds,
    idleMb: round(idle),
    heldMb: round(held),
    perPollKb: round(((held - idle) * 1024) / holds),
    fanoutMs: round(fanoutMs, 0),
    delivered,
    failed,
  };
  results.runs.push(entry);
  progress(
    `${name}: RSS ${entry.idleMb} MB idle, ${entry.heldMb} MB holding ${holds}; all answered in ${entry.fanoutMs} ms`,
  );
}

async function relayHeldPolls(relay, enrollmentToken) {
  const { installation, phone } = await enrollAndPair(relay.url, enrollmentToken);
  const cursor = (await call(relay.url, "GET", "/v1/interaction-responses", installation.token)).json.next_cursor;
  await heldPollMemory(
    "held polls, SQLite relay",
    relay,
    `/v1/interaction-responses?since=${encodeURIComponent(cursor)}&wait=30`,
    { authorization: `Bearer ${installation.token}` },
    () => call(relay.url, "POST", "/v1/interaction-responses", phone.token, answerBody(installation, phone, "fanout")),
  );
}

const cleanups = [];
try {
  const baseline = await spawnServer([join(BENCH_DIR, "baseline-server.mjs")]);
  cleanups.push(baseline.stop);
  const throughputRuns = !skip.has("throughput");
  const fakeInstallation = { installation_id: "ins_x" };
  const fakePhone = { device_id: "dev_x", token: "x" };
  for (const connections of throughputRuns ? connectionCounts : []) {
    if (warmup > 0)
      await load([{ url: baseline.url, installation: fakeInstallation, phone: fakePhone }], connections, warmup);
    const before = cpuSnapshot([baseline]);
    const run = await load(
      [{ url: baseline.url, installation: fakeInstallation, phone: fakePhone }],
      connections,
      duration,
    );
    const cpu = cpuSplit(before, cpuSnapshot([baseline]), run.rps * duration);
    results.runs.push({
      name: "bare fastify",
      connections,
      rps: round(run.rps, 0),
      p50: run.p50,
      p99: run.p99,
      accepted: run.accepted.length,
      non2xx: run.non2xx,
      lost: 0,
      cpu,
    });
    progress(`bare fastify c=${connections}: ${round(run.rps, 0)}/s p50 ${run.p50} ms p99 ${run.p99} ms`);
  }
  await baseline.stop();
  if (!skip.has("holds")) {
    const fresh = await spawnServer([join(BENCH_DIR, "baseline-server.mjs")]);
    cleanups.push(fresh.stop);
    await heldPollMemory("held requests, bare fastify", fresh, "/v1/interaction-responses", {}, () =>
      call(fresh.url, "POST", "/release"),
    );
    await fresh.stop();
  }

  const sqliteDir = mkdtempSync(join(os.tmpdir(), "relay-bench-"));
  cleanups.push(async () => rmSync(sqliteDir, { recursive: true, force: true }));
  const sqliteRelay = await startRelay({ dataDir: sqliteDir, nodeArgs: relayNodeArgs, cli: args["relay-cli"] });
  cleanups.push(sqliteRelay.stop);
  const token = readFileSync(join(sqliteDir, "enrollment-token"), "utf8").trim();
  if (throughputRuns && !skip.has("floor")) {
    const floorDir = mkdtempSync(join(os.tmpdir(), "relay-bench-floor-"));
    cleanups.push(async () => rmSync(floorDir, { recursive: true, force: true }));
    const file = join(floorDir, "floor.db");
    const floor = await spawnServer([join(BENCH_DIR, "floor-server.mjs")], { FLOOR_SQLITE: file });
    cleanups.push(floor.stop);
    await throughput("floor, SQLite", [floor], "sqlite", file, floorIdentity);
    await floor.stop();
  }
  if (throughputRuns) {
    await throughput("relay, SQLite", [sqliteRelay], "sqlite", join(sqliteDir, "relay.db"), () =>
      enrollAndPair(sqliteRelay.url, token),
    );
  }
  if (!skip.has("latency")) await heldPollLatency("held poll, SQLite", sqliteRelay.url, sqliteRelay.url, token);
  await sqliteRelay.stop();
  if (!skip.has("holds")) {
    const fresh = await startRelay({ dataDir: sqliteDir, nodeArgs: relayNodeArgs, cli: args["relay-cli"] });
    cleanups.push(fresh.stop);
    await relayHeldPolls(fresh, token);
    await fresh.stop();
  }

  if (!skip.has("pg")) {
    const server = await startPostgres();
    cleanups.push(server.stop);
    postmasterPid = server.postmasterPid;
    results.machine.postgres = server.version;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    // The floor on two processes, bare and with the token lookup and NOTIFY the relay's design adds.
    const floors = throughputRuns && !skip.has("floor") ? args["floor-pg"].split(";") : [];
    for (const [index, extras] of floors.entries()) {
      const name = `floor_bench_${index}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const databaseUrl = server.url.replace(/\/postgres$/, `/${name}`);
      const processes = [];
      for (let count = 0; count < 2; count += 1) {
        const floor = await spawnServer([join(BENCH_DIR, "floor-server.mjs")], {
          FLOOR_PG: databaseUrl,
          FLOOR_EXTRAS: extras,
        });
        processes.push(floor);
        cleanups.push(floor.stop);
      }
      const named = { lookup: "token lookup", notify: "NOTIFY" };
      const added = extras.split(",").filter(Boolean);
      const label = `floor${added.map((extra) => ` + ${named[extra] ?? extra}`).join("")}, PostgreSQL, 2 processes`;
      await throughput(label, processes, "postgres", databaseUrl, floorIdentity);
      await Promise.all(processes.map((floor) => floor.stop()));
    }
    // Each PostgreSQL configuration twice, one after the other: with group commit (the default) and with one
    // transaction per answer (RELAY_GROUP_COMMIT=off), so the comparison shares the machine's load of the moment.
    const variants = (skip.has("pg-relay") ? [] : [1, 2]).flatMap((processes) =>
      [true, false].filter((group) => group || !skip.has("pg-single")).map((group) => ({ processes, group })),
    );
    for (const { processes, group } of variants) {
      const name = `relay_bench_${processes}_${group ? "group" : "single"}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const databaseUrl = server.url.replace(/\/postgres$/, `/${name}`);
      const dataDir = mkdtempSync(join(os.tmpdir(), "relay-bench-pg-data-"));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const relays = [];
      const env = group ? {} : { RELAY_GROUP_COMMIT: "off" };
      for (let index = 0; index < processes; index += 1)
        relays.push(await startRelay({ dataDir, databaseUrl, env, nodeArgs: relayNodeArgs, cli: args["relay-cli"] }));
      cleanups.push(() => Promise.all(relays.map((relay) => relay.stop())));
      const pgToken = readFileSync(join(dataDir, "enrollment-token"), "utf8").trim();
      const label = `relay, PostgreSQL, ${processes} process${processes > 1 ? "es" : ""}${group ? "" : ", one commit per answer"}`;
      await throughput(label, relays, "postgres", databaseUrl, () => enrollAndPair(relays[0].url, pgToken));
      if (processes === 2 && group && !skip.has("latency")) {
        await heldPollLatency(
          "held poll, PostgreSQL, answer to process A, poll held by B",
          relays[0].url,
          relays[1].url,
          pgToken,
        );
      }
      await Promise.all(relays.map((relay) => relay.stop()));
    }
    await admin.end();
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

const lines = [
  `Machine: ${results.machine.cpus} CPUs (${results.machine.model}), Node ${results.machine.node}` +
    (results.machine.postgres ? `, PostgreSQL ${results.machine.postgres}` : ""),
  "",
  "| run | connections | answers/s | p50 ms | p99 ms | 201s | other | 201 not committed |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
];
for (const run of results.runs.filter((entry) => entry.connections)) {
  lines.push(
    `| ${run.name} | ${run.connections} | ${run.rps} | ${run.p50} | ${run.p99} | ${run.accepted} | ${run.non2xx} | ${run.lost} |`,
  );
}
lines.push(
  "",
  "CPU per answer in microseconds, by process (load generator = autocannon in the bench process; server = the relays or",
  "the bare fastify), and how busy the machine's cores were during the run:",
  "",
  "| run | connections | load generator | server | server x bare fastify | server x floor | PostgreSQL | other processes | sum | machine busy % |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
);
// A relay row's floor: the floor on the same database with the same number of processes, at the same connections.
const floorOf = (name) =>
  name.includes("SQLite")
    ? "floor, SQLite"
    : name === "relay, PostgreSQL, 2 processes"
      ? "floor, PostgreSQL, 2 processes"
      : undefined;
const floorUs = new Map(
  results.runs
    .filter((entry) => entry.cpu && entry.name.startsWith("floor"))
    .map((entry) => [`${entry.name}|${entry.connections}`, entry.cpu.usPerRequest.relays]),
);
// The server's CPU per request against bare fastify's at the same connection count, both from this run.
const bareUs = new Map(
  results.runs
    .filter((entry) => entry.cpu && entry.name === "bare fastify")
    .map((entry) => [entry.connections, entry.cpu.usPerRequest.relays]),
);
for (const run of results.runs.filter((entry) => entry.cpu)) {
  const us = run.cpu.usPerRequest;
  const bare = bareUs.get(run.connections);
  run.cpu.serverXBare = bare ? round(us.relays / bare, 2) : undefined;
  const floor = run.name.startsWith("relay") ? floorUs.get(`${floorOf(run.name)}|${run.connections}`) : undefined;
  run.cpu.serverXFloor = floor ? round(us.relays / floor, 2) : undefined;
  lines.push(
    `| ${run.name} | ${run.connections} | ${us.loadgen} | ${us.relays} | ${run.cpu.serverXBare ?? "-"} | ${run.cpu.serverXFloor ?? "-"} | ${us.postgres} | ${us.other} | ${us.loadgen + us.relays + us.postgres + us.other} | ${run.cpu.busyPct} |`,
  );
}
lines.push(
  "",
  "| held poll | rounds | answer to poll p50 ms | p99 ms | POST round trip p50 ms | p99 ms |",
  "|---|---:|---:|---:|---:|---:|",
);
for (const run of results.runs.filter((entry) => entry.rounds)) {
  lines.push(`| ${run.name} | ${run.rounds} | ${run.wakeP50} | ${run.wakeP99} | ${run.postP50} | ${run.postP99} |`);
}
lines.push(
  "",
  "| held requests | count | RSS idle MB | RSS holding MB | kB per held request | all answered in ms | delivered |",
  "|---|---:|---:|---:|---:|---:|---:|",
);
for (const run of results.runs.filter((entry) => entry.holds)) {
  lines.push(
    `| ${run.name} | ${run.holds} | ${run.idleMb} | ${run.heldMb} | ${run.perPollKb} | ${run.fanoutMs} | ${run.delivered} (${run.failed} failed) |`,
  );
}
mkdirSync(join(REPO_ROOT, "bench/results"), { recursive: true });
const file = join(REPO_ROOT, "bench/results", `relay-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${lines.join("\n")}\n\nraw: ${file}\n`);
