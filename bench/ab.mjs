// Before/after in one run: the broker's create throughput (bench/broker/throughput.mjs) and the router's rows
// (bench/router/load.mjs) against a build of an older commit ("before") and the current build ("after"), the two
// taking turns slice by slice so both see the same machine load. The older commit is built in a temporary git
// worktree (`git worktree add --detach`, `npm ci --prefer-offline`, `npm run build`), removed at the end, also on
// failure or Ctrl-C.
//
// Usage: npm run bench:ab [-- --base=REV] [--current=DIR | --current-rev=REV] [--skip=broker|router] ...
//   --base=REV          the "before" commit (default dcf3044^, the commit before issue 34's restructuring)
//   --current=DIR       a built checkout to measure as "after" (default: this working tree, run `npm run build`)
//   --current-rev=REV   build REV in a second worktree and measure that as "after" (a working tree that others
//                       are rebuilding meanwhile is not a stable target)
//   --duration=12 --warmup=2 --slices=6 --connections=10,100     broker creates, per target and connection count
//   --router-seconds=12 --router-warmup=1 --router-rounds=6 --router-rate=500 --router-connections=10
// Markdown on stdout, progress on stderr, raw JSON in bench/results/ab-<time>.json (see bench/README.md).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  countNotifications,
  ensureDir,
  machineBusySeconds,
  progress,
  REPO_ROOT,
  round,
  startBaseline,
  startBroker,
} from "./broker/lib.mjs";
import { runThroughput } from "./broker/throughput.mjs";
import { check, measure, mergeSlices, scenarios } from "./router/load.mjs";
import { startMock, startRouter } from "./router/targets.mjs";

const { values: args } = parseArgs({
  options: {
    base: { type: "string", default: "dcf3044^" },
    current: { type: "string" },
    "current-rev": { type: "string" },
    skip: { type: "string", default: "" },
    duration: { type: "string", default: "12" },
    warmup: { type: "string", default: "2" },
    slices: { type: "string", default: "6" },
    connections: { type: "string", default: "10,100" },
    "router-seconds": { type: "string", default: "12" },
    "router-warmup": { type: "string", default: "1" },
    "router-rounds": { type: "string", default: "6" },
    "router-rate": { type: "string", default: "500" },
    "router-connections": { type: "string", default: "10" },
  },
});
if (args.current && args["current-rev"]) throw new Error("--current and --current-rev exclude each other");
const skip = new Set(args.skip.split(",").filter(Boolean));
const config = {
  base: args.base,
  durationSeconds: Number(args.duration),
  warmupSeconds: Number(args.warmup),
  slices: Math.max(1, Number(args.slices)),
  connectionCounts: args.connections.split(",").map(Number),
  routerSeconds: Number(args["router-seconds"]),
  routerWarmupSeconds: Number(args["router-warmup"]),
  routerRounds: Math.max(1, Number(args["router-rounds"])),
  routerRate: Number(args["router-rate"]),
  routerConnections: Number(args["router-connections"]),
  skip: [...skip],
};
const SIDES = ["before", "after"];
const CLI = join("packages", "broker", "dist", "cli", "main.js");

// Everything to undo at the end, newest first: worktrees to remove, processes to stop.
const cleanups = [];
function cleanupSync() {
  while (cleanups.length > 0) {
    try {
      cleanups.pop()();
    } catch (error) {
      progress(`cleanup: ${error.message}`);
    }
  }
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    progress(`${signal}: stopping the servers and removing the worktrees`);
    cleanupSync();
    process.exit(130);
  });
}
function track(child) {
  cleanups.push(() => {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGKILL");
  });
  return child;
}

const git = (...argv) => execFileSync("git", ["-C", REPO_ROOT, ...argv], { encoding: "utf8" }).trim();
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);

/** A command whose output goes to stderr (stdout carries the summary); rejects on a non-zero exit. */
function run(command, argv, cwd) {
  return new Promise((resolveRun, reject) => {
    progress(`${cwd}: ${command} ${argv.join(" ")}`);
    const child = spawn(command, argv, { cwd, stdio: ["ignore", 2, 2] });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0 ? resolveRun() : reject(new Error(`${command} ${argv.join(" ")} in ${cwd}: exit ${code ?? signal}`)),
    );
  });
}

/** `git worktree add --detach` of `rev` in a temp dir, `npm ci`, `npm run build`; removed by cleanupSync. */
async function buildWorktree(rev, label) {
  const sha = git("rev-parse", "--verify", `${rev}^{commit}`);
  const parent = mkdtempSync(join(os.tmpdir(), `notify-ab-${label}-`));
  const dir = join(parent, "tree");
  const started = performance.now();
  git("worktree", "add", "--detach", dir, sha);
  cleanups.push(() => {
    progress(`removing worktree ${dir}`);
    try {
      git("worktree", "remove", "--force", dir);
    } finally {
      rmSync(parent, { recursive: true, force: true });
      git("worktree", "prune");
    }
  });
  await run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], dir);
  await run("npm", ["run", "build"], dir);
  const seconds = round((performance.now() - started) / 1000, 1);
  progress(`${label}: ${rev} = ${sha.slice(0, 7)} built in ${dir} in ${seconds} s`);
  return { rev, commit: sha.slice(0, 7), dir, cli: join(dir, CLI), buildSeconds: seconds };
}

function currentTree() {
  const dir = resolve(args.current ?? REPO_ROOT);
  const at = (...argv) => execFileSync("git", ["-C", dir, ...argv], { encoding: "utf8" }).trim();
  let commit = "(not a git checkout)";
  let dirty = false;
  try {
    commit = at("rev-parse", "--short=7", "HEAD");
    dirty = at("status", "--porcelain", "--", "packages").length > 0;
  } catch {
    // a copy made with git archive (bench/hooks/make-baseline.mjs) has no .git
    if (existsSync(join(dir, "BENCH_COMMIT"))) commit = readFileSync(join(dir, "BENCH_COMMIT"), "utf8").slice(0, 7);
  }
  return { rev: dir === REPO_ROOT ? "working tree" : dir, commit, dirty, dir, cli: join(dir, CLI) };
}

const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
/** after / before, per slice pair (the two were measured next to each other): median and range. */
function ratios(before, after) {
  const list = before.map((value, index) => after[index] / value).filter(Number.isFinite);
  return { median: round(median(list), 3), min: round(Math.min(...list), 3), max: round(Math.max(...list), 3) };
}

async function brokerPhase(builds) {
  const brokers = {};
  for (const side of SIDES) brokers[side] = track(await startBroker(`ab-${side}`, { cli: builds[side].cli }));
  const baseline = track(await startBaseline());
  progress(`brokers: before pid ${brokers.before.pid}, after pid ${brokers.after.pid}; baseline pid ${baseline.pid}`);
  const busy0 = machineBusySeconds();
  const started = performance.now();
  const throughput = await runThroughput({
    brokers,
    baseline,
    connectionCounts: config.connectionCounts,
    durationSeconds: config.durationSeconds,
    warmupSeconds: config.warmupSeconds,
    slices: config.slices,
  });
  const wall = (performance.now() - started) / 1000;
  await baseline.stop();
  const rows = [];
  const counts = {};
  for (const side of SIDES) {
    await brokers[side].stop();
    counts[side] = { rows: countNotifications(brokers[side].dbPath), created201: throughput.created201[side] };
    rmSync(brokers[side].dataDir, { recursive: true, force: true });
  }
  for (const row of throughput.rows) {
    const pick = (side, key) => row[`${side}:${key}`];
    const out = { connections: row.connections, baselinePostRps: row.baseline_post.requestsPerSecond };
    for (const key of ["broker_create", "broker_health"]) {
      out[key] = {
        before: summaryOf(pick("before", key), row.baseline_post),
        after: summaryOf(pick("after", key), row.baseline_post),
        sliceRatio: ratios(pick("before", key).sliceRequestsPerSecond, pick("after", key).sliceRequestsPerSecond),
        cpuSliceRatio: ratios(
          pick("before", key).sliceServerCpuMsPerResponse,
          pick("after", key).sliceServerCpuMsPerResponse,
        ),
        otherCpuPercent: round(median([pick("before", key).otherCpuPercent, pick("after", key).otherCpuPercent]), 0),
      };
    }
    rows.push(out);
  }
  return {
    rows,
    counts,
    machineBusyCores: round((machineBusySeconds() - busy0) / wall, 2),
    wallSeconds: round(wall, 1),
    raw: throughput.rows,
  };
}

function summaryOf(run, baselinePost) {
  return {
    rps: run.requestsPerSecond,
    vsBaselinePost: round(run.requestsPerSecond / baselinePost.requestsPerSecond, 3),
    p50: run.latencyMs.p50,
    p90: run.latencyMs.p90,
    p99: run.latencyMs.p99,
    serverCpuPercent: run.serverCpuPercent,
    cpuMsPerRequest: run.serverCpuMsPerResponse,
    sliceRps: run.sliceRequestsPerSecond,
    non2xx: run.non2xx,
    errors: run.errors,
  };
}

async function routerPhase(builds) {
  const mock = track(await startMock({ slowChunks: 20, slowDelayMs: 100, fastChunks: 8 }));
  const routers = {};
  for (const side of SIDES)
    routers[side] = track(await startRouter(mock, { cli: builds[side].cli, label: `ab-router-${side}` }));
  const pick = (side) =>
    scenarios({
      mock,
      router: routers[side],
      fastChunks: 8,
      latencyRates: [config.routerRate].filter((rate) => rate > 0),
      connections: config.routerConnections,
    }).filter((scenario) => scenario.target === "router");
  const lists = { before: pick("before"), after: pick("after") };
  const busy0 = machineBusySeconds();
  const started = performance.now();
  const rows = [];
  const sliceSeconds = config.routerSeconds / config.routerRounds;
  for (const [index, before] of lists.before.entries()) {
    const entries = { before, after: lists.after[index] };
    const row = { id: before.id, slices: { before: [], after: [] } };
    rows.push(row);
    const checks = Object.fromEntries(await Promise.all(SIDES.map(async (side) => [side, await check(entries[side])])));
    const failed = SIDES.filter((side) => !checks[side].ok);
    if (failed.length > 0) {
      row.error = failed.map((side) => `${side}: ${checks[side].error}`).join("; ");
      progress(`${row.id}: not measured (${row.error})`);
      continue;
    }
    for (let roundIndex = 0; roundIndex < config.routerRounds; roundIndex++) {
      for (const side of roundIndex % 2 === 0 ? SIDES : [...SIDES].reverse()) {
        const { samples, ...slice } = await measure(entries[side], {
          connections: config.routerConnections,
          durationSeconds: sliceSeconds,
          warmupSeconds: roundIndex === 0 ? config.routerWarmupSeconds : 0,
          pids: { mock: mock.pid, router: routers[side].pid },
          mock,
        });
        row.slices[side].push({ ...slice, samples });
      }
    }
    for (const side of SIDES) {
      const merged = mergeSlices(row.slices[side]);
      row[side] = {
        rps: merged.rps,
        p50: merged.latencyMs.p50,
        p90: merged.latencyMs.p90,
        p99: merged.latencyMs.p99,
        cpuMsPerRequest: merged.targetCpuMsPerRequest,
        sliceRps: merged.sliceRps,
        sliceCpuMs: row.slices[side].map((slice) => slice.targetCpuMsPerRequest),
        non2xx: merged.non2xx,
        errors: merged.errors,
        foreignCores: merged.foreignCores,
        rssMb: merged.targetRssMb,
      };
    }
    row.sliceRatio = {
      rps: ratios(row.before.sliceRps, row.after.sliceRps),
      cpuMsPerRequest: ratios(row.before.sliceCpuMs, row.after.sliceCpuMs),
    };
    delete row.slices;
    progress(
      `${row.id}: ${row.before.rps} -> ${row.after.rps} req/s, p50 ${row.before.p50} -> ${row.after.p50} ms, ` +
        `p99 ${row.before.p99} -> ${row.after.p99} ms, CPU ${row.before.cpuMsPerRequest} -> ${row.after.cpuMsPerRequest} ms/req`,
    );
  }
  const wall = (performance.now() - started) / 1000;
  for (const side of SIDES) {
    await routers[side].stop();
    rmSync(routers[side].dataDir, { recursive: true, force: true });
  }
  await mock.stop();
  return { rows, machineBusyCores: round((machineBusySeconds() - busy0) / wall, 2), wallSeconds: round(wall, 1) };
}

const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const fmtInt = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const range = (r) => `${fmt(r.median, 3)} (${fmt(r.min, 2)}-${fmt(r.max, 2)})`;
// A sign test: with no difference, each pair is as likely to favour either side, so n pairs all on one side of 1
// happen with probability 2^(1-n) (3% for 6 pairs).
const within = (r) => (r.min <= 1 && r.max >= 1 ? "yes" : "**no**");

function markdown(r) {
  const b = r.builds;
  const name = (side) =>
    `${b[side].commit}${b[side].dirty ? " + uncommitted changes" : ""} (${b[side].rev === b[side].commit ? "" : `${b[side].rev}, `}${side})`;
  const lines = [`## Before/after, ${r.startedAt}`, ""];
  lines.push(
    `Before: ${name("before")}. After: ${name("after")}. Machine: ${r.machine.nproc} CPUs (${r.machine.cpuModel}), ` +
      `Node ${r.machine.node}. Load average (1/5/15 min) at the start ${r.load.start.join(" / ")}, after the builds ` +
      `${r.load.built.join(" / ")}, at the end ${r.load.end.join(" / ")}. Command: \`${r.command}\`. Wall time ${r.wallSeconds} s.`,
    "",
    "A slice ratio is after / before of two slices measured next to each other. Within noise: the ratios fall on " +
      "both sides of 1; with no difference between the builds, n pairs all on one side happen with probability " +
      "2^(1-n) (3% for 6).",
    "",
  );
  if (r.broker) {
    lines.push(
      `### Broker: POST /v1/notifications (bench/broker/throughput.mjs; ${r.config.warmupSeconds} s warm-up, ` +
        `${r.config.durationSeconds} s per target in ${r.config.slices} slices taken in turn with bare fastify and GET /health; ` +
        `machine busy ${r.broker.machineBusyCores} cores on average)`,
      "",
      "| Target | Conns | req/s before | req/s after | vs bare fastify before / after | slice ratio median (range) | within noise | p50 ms before / after | p90 ms before / after | p99 ms before / after | CPU ms/req before / after | CPU slice ratio median (range) | other CPU % |",
      "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const row of r.broker.rows) {
      for (const [key, label] of [
        ["broker_create", "POST /v1/notifications"],
        ["broker_health", "GET /health"],
      ]) {
        const t = row[key];
        lines.push(
          `| ${label} | ${row.connections} | ${fmtInt(t.before.rps)} | ${fmtInt(t.after.rps)} | ${fmt(t.before.vsBaselinePost, 3)} / ${fmt(t.after.vsBaselinePost, 3)} | ` +
            `${range(t.sliceRatio)} | ${within(t.sliceRatio)} | ${fmt(t.before.p50)} / ${fmt(t.after.p50)} | ${fmt(t.before.p90)} / ${fmt(t.after.p90)} | ` +
            `${fmt(t.before.p99)} / ${fmt(t.after.p99)} | ${fmt(t.before.cpuMsPerRequest, 3)} / ${fmt(t.after.cpuMsPerRequest, 3)} | ` +
            `${range(t.cpuSliceRatio)} | ${fmt(t.otherCpuPercent, 0)} |`,
        );
      }
    }
    lines.push(
      "",
      `Rows in each broker's SQLite file = its 201 responses: before ${fmtInt(r.broker.counts.before.rows)} = ` +
        `${fmtInt(r.broker.counts.before.created201)}, after ${fmtInt(r.broker.counts.after.rows)} = ${fmtInt(r.broker.counts.after.created201)}.`,
      "",
    );
  }
  if (r.router) {
    lines.push(
      `### Router (bench/router/load.mjs; ${r.config.routerConnections} connections, closed loop unless the row says ` +
        `r${r.config.routerRate} (paced, req/s in all); ${r.config.routerWarmupSeconds} s warm-up, ${r.config.routerSeconds} s per row and build ` +
        `in ${r.config.routerRounds} slices taken in turn; machine busy ${r.router.machineBusyCores} cores on average)`,
      "",
      "| Row | req/s before | req/s after | slice ratio median (range) | within noise | p50 ms before / after | p99 ms before / after | CPU ms/req before / after | CPU slice ratio median (range) | other cores |",
      "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    );
    for (const row of r.router.rows) {
      if (row.error) {
        lines.push(`| ${row.id} | not measured: ${row.error.replaceAll("|", "/")} | | | | | | | | |`);
        continue;
      }
      const noise = /@c\d+r\d+/.test(row.id) ? row.sliceRatio.cpuMsPerRequest : row.sliceRatio.rps;
      lines.push(
        `| ${row.id.replace(/^router:/, "")} | ${fmtInt(row.before.rps)} | ${fmtInt(row.after.rps)} | ${range(row.sliceRatio.rps)} | ${within(noise)} | ` +
          `${fmt(row.before.p50, 3)} / ${fmt(row.after.p50, 3)} | ${fmt(row.before.p99, 3)} / ${fmt(row.after.p99, 3)} | ` +
          `${fmt(row.before.cpuMsPerRequest, 3)} / ${fmt(row.after.cpuMsPerRequest, 3)} | ${range(row.sliceRatio.cpuMsPerRequest)} | ` +
          `${fmt(median([row.before.foreignCores, row.after.foreignCores]), 2)} |`,
      );
    }
    lines.push(
      "",
      "Paced rows (`@c10r500`) send a fixed rate, so their req/s says nothing; their noise column is taken from CPU ms/req.",
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}

async function main() {
  const startedAt = new Date();
  const wallStart = performance.now();
  const cpus = os.cpus();
  const results = {
    startedAt: startedAt.toISOString(),
    command: `npm run bench:ab${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    machine: { nproc: os.availableParallelism(), cpuModel: cpus[0]?.model, node: process.version },
    config,
    load: { start: loadAverage() },
  };
  const builds = { before: await buildWorktree(config.base, "before") };
  builds.after = args["current-rev"] ? await buildWorktree(args["current-rev"], "after") : currentTree();
  for (const side of SIDES) {
    if (!existsSync(builds[side].cli)) throw new Error(`${builds[side].cli} is missing: build it first`);
  }
  results.builds = builds;
  results.load.built = loadAverage();
  if (!skip.has("broker")) results.broker = await brokerPhase(builds);
  if (!skip.has("router")) results.router = await routerPhase(builds);
  results.load.end = loadAverage();
  results.wallSeconds = round((performance.now() - wallStart) / 1000, 1);
  const dir = ensureDir(join(REPO_ROOT, "bench", "results"));
  const file = join(dir, `ab-${results.startedAt.replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(markdown(results));
  progress(`raw results: ${relative(REPO_ROOT, file)}; ${results.wallSeconds} s wall`);
}

try {
  await main();
} catch (error) {
  progress(`failed: ${error.stack ?? error}${error.output ? `\n${error.output.join("\n")}` : ""}`);
  process.exitCode = 1;
} finally {
  cleanupSync();
}
