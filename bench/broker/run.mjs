// Broker benchmarks: create throughput vs baselines, 10,000 held long-polls, answer-to-wake latency.
// Usage: npm run bench:broker [-- --duration=10 --warmup=2 ...]   (see bench/README.md)
// Summary (markdown) on stdout, progress on stderr, raw JSON in bench/results/.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  BENCH_DIR,
  BROKER_CLI,
  countNotifications,
  ensureDir,
  machineBusySeconds,
  procMemory,
  progress,
  REPO_ROOT,
  round,
  sleep,
  startBaseline,
  startBroker,
} from "./lib.mjs";
import { runThroughput } from "./throughput.mjs";
import { runHold, runHoldBaseline, runWakeLatency } from "./waiters.mjs";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    slices: { type: "string", default: "5" },
    // Wait up to this many seconds for the machine to be quiet (< 25% of a CPU busy for 3 s) before starting.
    "wait-idle": { type: "string", default: "0" },
    connections: { type: "string", default: "10,100" },
    interactions: { type: "string", default: "100" },
    "waiters-per-interaction": { type: "string", default: "100" },
    hold: { type: "string", default: "5" },
    "rounds-1": { type: "string", default: "200" },
    "rounds-1000": { type: "string", default: "20" },
    skip: { type: "string", default: "" },
    // Keep the brokers' temp data dirs (database, logs) instead of deleting them at the end.
    "keep-data": { type: "boolean", default: false },
    // Another build of the broker, e.g. a clean checkout of HEAD built elsewhere.
    "broker-cli": { type: "string", default: BROKER_CLI },
  },
});

const config = {
  durationSeconds: Number(args.duration),
  warmupSeconds: Number(args.warmup),
  slices: Math.max(1, Number(args.slices)),
  connectionCounts: args.connections.split(",").map(Number),
  interactions: Number(args.interactions),
  waitersPerInteraction: Number(args["waiters-per-interaction"]),
  holdSeconds: Number(args.hold),
  rounds1: Number(args["rounds-1"]),
  rounds1000: Number(args["rounds-1000"]),
  skip: new Set(args.skip.split(",").filter(Boolean)),
  brokerCli: resolve(args["broker-cli"]),
};

const TARGETS = {
  createsPerSecond: 5000,
  holdWaiters: 10_000,
  holdRssMb: 300,
  wakeP99OneWaiterMs: 5,
};

function openFilesLimit(pid = "self") {
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(
    readFileSync(`/proc/${pid}/limits`, "utf8"),
  );
  return match ? { soft: match[1], hard: match[2] } : undefined;
}

/** Which broker code was measured: the commit, and whether packages/ had uncommitted changes (built into dist). */
function gitState() {
  const cwd = resolve(config.brokerCli, "..", "..", "..", "..", "..");
  const git = (...argv) => spawnSync("git", argv, { cwd, encoding: "utf8" }).stdout?.trim() ?? "";
  if (cwd !== REPO_ROOT) return { brokerCli: config.brokerCli, commit: "(other build)", packagesDirty: false };
  return {
    commit: git("rev-parse", "--short", "HEAD"),
    packagesDirty: git("status", "--porcelain", "--", "packages").length > 0,
  };
}

function machine() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism(),
    cpuModel: cpus[0]?.model,
    memoryTotalMb: Math.round(os.totalmem() / 1024 / 1024),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    openFiles: openFilesLimit(),
  };
}

const running = new Set();
async function stopAll() {
  for (const child of running) await child.stop().catch(() => {});
  running.clear();
}
process.once("SIGINT", () => {
  progress("SIGINT: stopping the broker and baseline processes");
  stopAll().finally(() => process.exit(130));
});

function removeDataDir(dir) {
  if (args["keep-data"]) progress(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

async function main() {
  if (!existsSync(config.brokerCli)) throw new Error(`${config.brokerCli} is missing: run \`npx tsc -b\` first`);
  // Each held long-poll is one socket in this process and one in the broker (node raises its soft limit to the
  // hard limit at start-up, and the broker inherits this process's limit).
  const needFiles = config.interactions * config.waitersPerInteraction + 1000;
  const files = openFilesLimit();
  if (!config.skip.has("waiters") && files && files.soft !== "unlimited" && Number(files.soft) < needFiles) {
    throw new Error(`open files limit ${files.soft} is below ${needFiles}: raise it first (ulimit -n ${needFiles})`);
  }
  const startedAt = new Date();
  const results = {
    git: gitState(),
    startedAt: startedAt.toISOString(),
    machine: machine(),
    config: { ...config, skip: [...config.skip] },
    targets: TARGETS,
  };
  results.command = `npm run bench:broker${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  const waitIdleSeconds = Number(args["wait-idle"]);
  if (waitIdleSeconds > 0) {
    const deadline = Date.now() + waitIdleSeconds * 1000;
    let quietFor = 0;
    progress(`waiting up to ${waitIdleSeconds} s for the machine to be quiet`);
    while (quietFor < 3 && Date.now() < deadline) {
      const before = machineBusySeconds();
      await sleep(1000);
      quietFor = machineBusySeconds() - before < 0.25 ? quietFor + 1 : 0;
    }
    results.waitedForIdle = quietFor >= 3 ? "quiet" : "gave up";
  }
  const benchStartedAt = Date.now();
  // The machine may be shared: note how busy it was just before starting (in % of one CPU).
  const busy0 = machineBusySeconds();
  await sleep(1000);
  results.machine.busyBeforeStartPercent = round((machineBusySeconds() - busy0) * 100, 1);
  progress(`machine: ${JSON.stringify(results.machine)}`);
  const checks = [];

  // 1. Creates/s vs baselines, then the row count check.
  if (!config.skip.has("throughput")) {
    const broker = await startBroker("throughput", { cli: config.brokerCli });
    running.add(broker);
    const baseline = await startBaseline();
    running.add(baseline);
    progress(
      `broker pid ${broker.pid} on ${broker.url} (data dir ${broker.dataDir}); baseline pid ${baseline.pid} on ${baseline.url}`,
    );
    const throughput = await runThroughput({
      broker,
      baseline,
      connectionCounts: config.connectionCounts,
      durationSeconds: config.durationSeconds,
      warmupSeconds: config.warmupSeconds,
      slices: config.slices,
    });
    throughput.brokerRssAfterMb = round(procMemory(broker.pid).rssKb / 1024, 1);
    await baseline.stop();
    running.delete(baseline);
    await broker.stop();
    running.delete(broker);
    const rows = countNotifications(broker.dbPath);
    throughput.sqliteNotificationRows = rows;
    throughput.countMatches = rows === throughput.brokerCreated201;
    progress(
      `SQLite notifications rows: ${rows}; 201 responses reported by autocannon: ${throughput.brokerCreated201} ` +
        `(${throughput.countMatches ? "equal" : "NOT equal"})`,
    );
    checks.push({ name: "SQLite rows = 201s", ok: throughput.countMatches });
    results.throughput = throughput;
    removeDataDir(broker.dataDir);
  }

  // 2 and 3. Long-polls on a fresh broker (so "RSS before" is a clean start).
  if (!config.skip.has("waiters")) {
    const total = config.interactions * config.waitersPerInteraction;
    progress(`baseline: bare fastify holding ${total} pending GETs`);
    const baseline = await startBaseline();
    running.add(baseline);
    results.holdBaseline = await runHoldBaseline({ baseline, total });
    await baseline.stop();
    running.delete(baseline);

    const broker = await startBroker("waiters", { cli: config.brokerCli });
    running.add(broker);
    results.waitersBrokerStartRssMb = round(procMemory(broker.pid).rssKb / 1024, 1);
    results.waitersBrokerOpenFiles = openFilesLimit(broker.pid);
    progress(
      `broker pid ${broker.pid} on ${broker.url}; open files limit ${JSON.stringify(results.waitersBrokerOpenFiles)}`,
    );
    results.hold = await runHold({
      broker,
      interactionCount: config.interactions,
      perInteraction: config.waitersPerInteraction,
      holdSeconds: config.holdSeconds,
    });
    checks.push({
      name: "no long-poll returned early",
      ok: results.hold.holding.returnedEarly === 0 && results.hold.holding.openErrors === 0,
    });
    checks.push({ name: "every long-poll woke answered", ok: results.hold.notWoken === 0 });
    progress(`wake latency: 1 waiter x ${config.rounds1} rounds`);
    results.wake1 = await runWakeLatency({ broker, waiterCount: 1, rounds: config.rounds1, warmupRounds: 10 });
    progress(
      `wake latency 1 waiter: p50 ${results.wake1.wakeLatencyMs.p50} ms, p99 ${results.wake1.wakeLatencyMs.p99} ms`,
    );
    progress(`wake latency: 1000 waiters x ${config.rounds1000} rounds`);
    results.wake1000 = await runWakeLatency({ broker, waiterCount: 1000, rounds: config.rounds1000, warmupRounds: 2 });
    progress(
      `wake latency 1000 waiters: p50 ${results.wake1000.wakeLatencyMs.p50} ms, p99 ${results.wake1000.wakeLatencyMs.p99} ms`,
    );
    for (const key of ["wake1", "wake1000"]) {
      checks.push({
        name: `${key}: all woke answered, none early`,
        ok: results[key].failedOrNotAnswered === 0 && results[key].returnedEarly === 0,
      });
    }
    results.waitersBrokerEndRssMb = round(procMemory(broker.pid).rssKb / 1024, 1);
    await broker.stop();
    running.delete(broker);
    removeDataDir(broker.dataDir);
  }

  results.finishedAt = new Date().toISOString();
  // Wall time of the benchmark itself (after any --wait-idle wait).
  results.wallSeconds = round((Date.now() - benchStartedAt) / 1000, 1);
  results.checks = checks;
  const resultsDir = ensureDir(join(BENCH_DIR, "..", "results"));
  const file = join(resultsDir, `broker-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  const json = `${JSON.stringify(results, null, 2)}\n`;
  writeFileSync(file, json);
  writeFileSync(join(resultsDir, "broker-latest.json"), json);
  process.stdout.write(summary(results));
  progress(
    `raw results: ${file.slice(REPO_ROOT.length + 1)} (also bench/results/broker-latest.json); ${results.wallSeconds} s wall`,
  );
  if (checks.some((check) => !check.ok)) process.exitCode = 1;
}

const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const fmtInt = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const met = (ok) => (ok ? "met" : "**not met**");

function summary(r) {
  const m = r.machine;
  const lines = [];
  lines.push(`## Broker benchmark, ${r.startedAt}`, "");
  lines.push(
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${fmtInt(m.memoryTotalMb)} MB RAM, ${m.kernel}, Node ${m.node}. ` +
      `Command: \`${r.command}\`. Wall time ${r.wallSeconds} s. Machine busy just before the start: ${m.busyBeforeStartPercent}% of one CPU. ` +
      (r.git.brokerCli
        ? `Broker code: ${r.git.brokerCli}.`
        : `Broker code: commit ${r.git.commit}${r.git.packagesDirty ? " plus uncommitted changes under packages/" : ""} (built dist).`),
    "",
  );
  const targetRows = [];

  if (r.throughput) {
    lines.push(
      "### 1. Notification creates vs baselines (autocannon, keep-alive, pipelining 1)",
      "",
      `Each target: ${r.config.warmupSeconds} s warm-up, then ${r.config.durationSeconds} s measured in ${r.throughput.slices} slices ` +
        "of which the three targets take turns (interleaved), so load from elsewhere hits them alike.",
      "",
    );
    lines.push(
      "| Target | Conns | Requests | Req/s | p50 ms | p90 ms | p99 ms | vs baseline POST | Server / client / other CPU % | non-2xx / errors |",
    );
    lines.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of r.throughput.rows) {
      const base = row.baseline_post;
      for (const [key, name] of [
        ["baseline_post", "bare fastify POST (baseline)"],
        ["broker_health", "broker GET /health"],
        ["broker_create", "broker POST /v1/notifications"],
      ]) {
        const run = row[key];
        if (!run) continue;
        lines.push(
          `| ${name} | ${row.connections} | ${fmtInt(run.responses)} | ${fmtInt(run.requestsPerSecond)} | ${fmt(run.latencyMs.p50)} | ` +
            `${fmt(run.latencyMs.p90)} | ${fmt(run.latencyMs.p99)} | ${fmt(run.requestsPerSecond / base.requestsPerSecond)} | ` +
            `${fmt(run.serverCpuPercent, 0)} / ${fmt(run.clientCpuPercent, 0)} / ${fmt(run.otherCpuPercent, 0)} | ${run.non2xx} / ${run.errors} |`,
        );
      }
      const create = row.broker_create;
      targetRows.push([
        `creates/s at ${row.connections} connections`,
        `${fmtInt(create.requestsPerSecond)} /s (${fmt(create.requestsPerSecond / base.requestsPerSecond)}x baseline POST, ` +
          `${fmt(create.requestsPerSecond / row.broker_health.requestsPerSecond)}x broker /health)`,
        `>= ${fmtInt(TARGETS.createsPerSecond)} /s`,
        met(create.requestsPerSecond >= TARGETS.createsPerSecond),
      ]);
    }
    lines.push("");
    const noisy = r.throughput.rows.flatMap((row) => Object.values(row)).filter((run) => run?.otherCpuPercent > 25);
    if (noisy.length > 0) {
      lines.push(
        `Note: during ${noisy.length} of these runs other processes used more than 25% of a CPU ("other" column); ` +
          "those figures are lower than on a quiet machine.",
        "",
      );
    }
    lines.push(
      `Rows in the broker's SQLite file after the run: ${fmtInt(r.throughput.sqliteNotificationRows)}; 201 responses counted ` +
        `(warm-ups included): ${fmtInt(r.throughput.brokerCreated201)} -> ${r.throughput.countMatches ? "equal" : "**NOT equal**"}. ` +
        `Broker RSS after the runs: ${r.throughput.brokerRssAfterMb} MB.`,
      "",
    );
    targetRows.push([
      "SQLite rows = 201 responses",
      `${fmtInt(r.throughput.sqliteNotificationRows)} = ${fmtInt(r.throughput.brokerCreated201)}`,
      "equal",
      met(r.throughput.countMatches),
    ]);
  }

  if (r.hold) {
    const h = r.hold;
    lines.push(
      `### 2. ${fmtInt(h.waiters)} concurrent long-polls held (${h.interactions} interactions x ${h.waitersPerInteraction} waiters, timeout=300)`,
      "",
    );
    const b = r.holdBaseline;
    const kbPer = (deltaMb, count) => `${fmt((deltaMb * 1024) / count, 1)} kB`;
    lines.push("| Measure | Broker | Baseline: bare fastify, same number of pending GETs |", "|---|---:|---:|");
    lines.push(`| RSS before opening | ${h.rssBeforeMb} MB | ${b ? `${b.rssBeforeMb} MB` : "-"} |`);
    lines.push(
      `| RSS while holding (peak sampled) | ${h.rssHoldingMb} MB (${h.rssPeakMb} MB) | ${b ? `${b.rssHoldingMb} MB` : "-"} |`,
    );
    lines.push(
      `| RSS growth per held request | ${kbPer(h.rssDeltaMb, h.waiters)} | ${b ? kbPer(b.rssDeltaMb, b.waiters) : "-"} |`,
    );
    lines.push(
      `| Time to open all (batches of 500, each until the server is idle) | ${h.openFlushSeconds} s | ${b ? `${b.openFlushSeconds} s` : "-"} |`,
    );
    lines.push(
      `| Server CPU to accept all (per request) | ${h.brokerCpuSecondsToOpen} s (${fmt(h.brokerCpuMsPerWait, 3)} ms) | ${b ? `${b.cpuSecondsToOpen} s (${fmt(b.cpuMsPerRequest, 3)} ms)` : "-"} |`,
    );
    lines.push(
      `| Listen-queue overflows while opening (machine-wide) | ${h.tcpWhileOpening.listenOverflows} | ${b ? b.tcpWhileOpening.listenOverflows : "-"} |`,
    );
    lines.push(
      `| Held / returned early / errors | ${fmtInt(h.holding.stillOpen)} / ${h.holding.returnedEarly} / ${h.holding.openErrors} (after ${h.holdSeconds} s) | ${b ? `${fmtInt(b.held)} / ${b.returnedEarly} / 0` : "-"} |`,
    );
    lines.push(`| Established server sockets while holding | ${fmtInt(h.holding.established)} | |`);
    lines.push(
      `| Woke answered (baseline: released) | ${fmtInt(h.woke)} of ${fmtInt(h.waiters)} | ${b ? `${fmtInt(b.ok)} of ${fmtInt(b.waiters)}` : "-"} |`,
    );
    lines.push(`| All ${h.interactions} answered -> last waiter woke | ${h.allWokeSeconds} s | |`);
    lines.push(
      `| Per-waiter answer-to-wake p50 / p99 | ${fmt(h.wakeLatencyMs.p50)} / ${fmt(h.wakeLatencyMs.p99)} ms | |`,
    );
    lines.push("");
    targetRows.push([
      "long-polls held",
      `${fmtInt(h.holding.stillOpen)} held, ${h.holding.returnedEarly} early, ${fmtInt(h.woke)} woke`,
      `${fmtInt(TARGETS.holdWaiters)} held, all wake`,
      met(h.holding.stillOpen >= TARGETS.holdWaiters && h.holding.returnedEarly === 0 && h.notWoken === 0),
    ]);
    targetRows.push([
      "broker RSS holding them",
      `${h.rssHoldingMb} MB (peak ${h.rssPeakMb} MB; bare fastify holding as many: ${r.holdBaseline?.rssHoldingMb ?? "-"} MB)`,
      `< ${TARGETS.holdRssMb} MB`,
      met(Math.max(h.rssHoldingMb, h.rssPeakMb) < TARGETS.holdRssMb),
    ]);
  }

  if (r.wake1 || r.wake1000) {
    lines.push("### 3. Answer-to-wake latency (POST /respond sent -> waiter's response fully received)", "");
    lines.push(
      "| Waiters | Rounds | Samples | p50 ms | p90 ms | p99 ms | max ms | last waiter per round p50 / p99 ms | respond p50 / p99 ms | baseline GET /health RTT p50 / p99 ms |",
    );
    lines.push("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const w of [r.wake1, r.wake1000].filter(Boolean)) {
      lines.push(
        `| ${fmtInt(w.waiters)} | ${w.rounds} | ${fmtInt(w.wakeLatencyMs.count)} | ${fmt(w.wakeLatencyMs.p50)} | ${fmt(w.wakeLatencyMs.p90)} | ` +
          `${fmt(w.wakeLatencyMs.p99)} | ${fmt(w.wakeLatencyMs.max)} | ${fmt(w.lastWakePerRoundMs.p50)} / ${fmt(w.lastWakePerRoundMs.p99)} | ` +
          `${fmt(w.respondLatencyMs.p50)} / ${fmt(w.respondLatencyMs.p99)} | ${fmt(w.baselineHealthRttMs.p50)} / ${fmt(w.baselineHealthRttMs.p99)} |`,
      );
    }
    lines.push("");
    if (r.wake1) {
      targetRows.push([
        "answer-to-wake p99, 1 waiter",
        `${fmt(r.wake1.wakeLatencyMs.p99)} ms (p50 ${fmt(r.wake1.wakeLatencyMs.p50)} ms; GET /health RTT p50 ${fmt(r.wake1.baselineHealthRttMs.p50)}, p99 ${fmt(r.wake1.baselineHealthRttMs.p99)} ms)`,
        `< ${TARGETS.wakeP99OneWaiterMs} ms`,
        met(r.wake1.wakeLatencyMs.p99 < TARGETS.wakeP99OneWaiterMs && r.wake1.failedOrNotAnswered === 0),
      ]);
    }
    if (r.wake1000) {
      targetRows.push([
        "answer-to-wake p99, 1,000 waiters",
        `${fmt(r.wake1000.wakeLatencyMs.p99)} ms (p50 ${fmt(r.wake1000.wakeLatencyMs.p50)} ms)`,
        "(no target; reported)",
        r.wake1000.failedOrNotAnswered === 0 ? "all woke" : "**failures**",
      ]);
    }
  }

  lines.push("### Targets", "", "| Target | Result | Goal | Status |", "|---|---|---|---|");
  for (const row of targetRows) lines.push(`| ${row.join(" | ")} |`);
  lines.push("");
  return `${lines.join("\n")}\n`;
}

try {
  await main();
} catch (error) {
  progress(`failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
