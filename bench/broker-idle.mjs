// What the broker costs while idle (issue 22, part 6): start to the first 200 from /health, and RSS once settled,
// for each configuration side by side in one run: a bare `node -e` http server (the floor), the broker with the
// router off (the default), and with the router on; every build given with --cli gets both broker rows.
//
// Usage: npm run bench:idle [-- --runs=10 --settle=5 --cli=before=/path/to/main.js --cli=after=packages/...]
// Markdown summary on stdout, progress on stderr, raw JSON in bench/results/ (see bench/README.md, "Idle cost").
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os, { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BROKER_CLI, percentile, procCpuSeconds, procMemory, REPO_ROOT, sleep, stopChild } from "./broker/lib.mjs";

const { values: args } = parseArgs({
  options: {
    // Starts per configuration (each configuration also gets one untimed warm-up start first).
    runs: { type: "string", default: "10" },
    // Seconds after the first 200 before the RSS is read.
    settle: { type: "string", default: "5" },
    // label=path of a built cli/main.js; repeat to compare builds in one run (default: this checkout's).
    cli: { type: "string", multiple: true, default: [] },
    // Comma list of floor, off, on.
    configs: { type: "string", default: "floor,off,on" },
    // Extra node flags for every broker start, e.g. "--max-semi-space-size=0".
    "node-args": { type: "string", default: "" },
  },
});

const runs = Number(args.runs);
const settleMs = Number(args.settle) * 1000;
const nodeArgs = args["node-args"].split(" ").filter(Boolean);
const clis = args.cli.length
  ? args.cli.map((entry) => {
      const at = entry.indexOf("=");
      return at === -1
        ? { label: entry, path: resolve(entry) }
        : { label: entry.slice(0, at), path: resolve(entry.slice(at + 1)) };
    })
  : [{ label: "broker", path: BROKER_CLI }];
const wanted = new Set(args.configs.split(","));

const progress = (message) =>
  process.stderr.write(`[bench:idle ${new Date().toISOString().slice(11, 23)}] ${message}\n`);

// The floor: node:http answering GET /health with a small JSON body, nothing else loaded.
const FLOOR_SOURCE = `require("node:http").createServer((q, s) => { s.writeHead(q.url === "/health" ? 200 : 404,
  {"content-type": "application/json"}); s.end('{"status":"ok"}'); }).listen(Number(process.argv[1]), "127.0.0.1");`;

/** A port nobody listens on right now (the broker gets it with --port, so the bench need not read its log). */
function freePort() {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** One GET /health; resolves with the status code, or undefined while nothing listens. */
function probe(port) {
  return new Promise((done) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      response.resume();
      response.on("end", () => done(response.statusCode));
    });
    request.on("error", () => done(undefined));
    request.setTimeout(5_000, () => request.destroy());
  });
}

/** The environment of every start: no notify variables, no session bus (toasts off), a private HOME. */
function environment(home) {
  const env = { ...process.env, HOME: home };
  for (const name of ["NOTIFY_TOKEN", "NOTIFY_PORT", "NOTIFY_DATA_DIR", "DBUS_SESSION_BUS_ADDRESS", "NODE_OPTIONS"]) {
    delete env[name];
  }
  delete env.CODEX_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  return env;
}

/** The configurations: each has a data dir of its own, reused across its starts (a service restarts on its data). */
function buildConfigs(root) {
  const configs = [];
  if (wanted.has("floor")) configs.push({ id: "floor", label: "bare node:http (floor)", floor: true });
  for (const cli of clis) {
    for (const router of ["off", "on"]) {
      if (!wanted.has(router)) continue;
      const dataDir = join(root, `${cli.label}-router-${router}`);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const config = { authToken: `bench-${router}-${cli.label}-token-0123456789`, RouterEnabled: router === "on" };
      writeFileSync(join(dataDir, "config.json"), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
      configs.push({ id: `${cli.label}-${router}`, label: `${cli.label}, router ${router}`, cli: cli.path, dataDir });
    }
  }
  return configs;
}

/** Starts one configuration, times spawn -> first 200 from /health, waits, reads RSS, stops it. */
async function once(config, home) {
  const port = await freePort();
  const argv = config.floor
    ? ["-e", FLOOR_SOURCE, String(port)]
    : [...nodeArgs, config.cli, "serve", "--port", String(port), "--data-dir", config.dataDir];
  const started = performance.now();
  const child = spawn(process.execPath, argv, {
    cwd: REPO_ROOT,
    env: environment(home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", () => {});
  child.stderr.on("data", (chunk) => {
    output = (output + chunk).slice(-4000);
  });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  let status;
  while (status !== 200) {
    if (exited) throw new Error(`${config.label} exited before answering /health:\n${output}`);
    if (performance.now() - started > 30_000) throw new Error(`${config.label}: no 200 from /health within 30 s`);
    status = await probe(port);
    if (status !== 200) await sleep(2);
  }
  const startMs = performance.now() - started;
  // CPU the process used to get there (user + system, the re-exec included: same pid): unlike the wall time it
  // hardly moves with the machine's other load.
  const startCpuMs = procCpuSeconds(child.pid) * 1000;
  await sleep(settleMs);
  const memory = procMemory(child.pid);
  await stopChild(child);
  return { startMs, startCpuMs, rssMb: memory.rssKb / 1024, hwmMb: memory.hwmKb / 1024 };
}

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), min: sorted[0], max: sorted.at(-1) };
};
const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

async function main() {
  const root = mkdtempSync(join(tmpdir(), "notify-bench-idle-"));
  const home = join(root, "home");
  mkdirSync(home);
  const configs = buildConfigs(root);
  const samples = new Map(configs.map((config) => [config.id, []]));
  try {
    // One untimed start each: creates the databases (migrations) and warms the page cache for every build alike.
    for (const config of configs) {
      progress(`warm-up: ${config.label}`);
      await once({ ...config }, home);
    }
    for (let round = 0; round < runs; round++) {
      // Alternating order, so a change in the machine's other load falls on every configuration alike.
      const order = round % 2 === 0 ? configs : [...configs].reverse();
      for (const config of order) {
        const sample = await once(config, home);
        samples.get(config.id).push(sample);
        progress(`round ${round + 1}/${runs} ${config.label}: ${fmt(sample.startMs)} ms, ${fmt(sample.rssMb, 1)} MB`);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const rows = configs.map((config) => {
    const list = samples.get(config.id);
    return {
      id: config.id,
      label: config.label,
      cli: config.cli,
      startMs: stats(list.map((sample) => sample.startMs)),
      startCpuMs: stats(list.map((sample) => sample.startCpuMs)),
      rssMb: stats(list.map((sample) => sample.rssMb)),
      hwmMb: stats(list.map((sample) => sample.hwmMb)),
      samples: list,
    };
  });
  const floor = rows.find((row) => row.id === "floor");
  const startedAt = new Date().toISOString();
  const results = {
    startedAt,
    command: `npm run bench:idle -- ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      nproc: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      node: process.version,
      loadAverage: os.loadavg(),
    },
    config: { runs, settleSeconds: settleMs / 1000, nodeArgs },
    rows,
  };
  const resultsDir = join(REPO_ROOT, "bench", "results");
  mkdirSync(resultsDir, { recursive: true });
  const json = JSON.stringify(results, null, 2);
  writeFileSync(join(resultsDir, `broker-idle-${startedAt.replace(/[:.]/g, "-")}.json`), json);
  writeFileSync(join(resultsDir, "broker-idle-latest.json"), json);

  const out = (line = "") => process.stdout.write(`${line}\n`);
  out(`## Broker idle cost, ${startedAt}`);
  out();
  out(
    `${runs} starts per configuration (plus one untimed warm-up), in alternating order; RSS read ${settleMs / 1000} s after the first 200; ${results.machine.nproc} cores, Node ${process.version}, load average at the end ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")}.`,
  );
  out();
  out(
    "| configuration | start -> /health p50 / p95 ms | x floor (p50) | CPU to /health p50 / p95 ms | x floor (p50) | idle RSS p50 / p95 MB | x floor (p50) | peak RSS p50 MB |",
  );
  out("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    const ratio = (pick) => (floor && row !== floor ? `${(pick(row) / pick(floor)).toFixed(2)}x` : "-");
    out(
      `| ${row.label} | ${fmt(row.startMs.p50)} / ${fmt(row.startMs.p95)} | ${ratio((r) => r.startMs.p50)} | ${fmt(row.startCpuMs.p50)} / ${fmt(row.startCpuMs.p95)} | ${ratio((r) => r.startCpuMs.p50)} | ${fmt(row.rssMb.p50, 1)} / ${fmt(row.rssMb.p95, 1)} | ${ratio((r) => r.rssMb.p50)} | ${fmt(row.hwmMb.p50, 1)} |`,
    );
  }
  out();
  out("Targets (issue 22, part 6): idle RSS <= 60 MB with the router off; start -> /health <= 400 ms.");
  for (const row of rows.filter((candidate) => candidate.id.endsWith("-off"))) {
    const rss = row.rssMb.p50 <= 60 ? "met" : "not met";
    const start = row.startMs.p50 <= 400 ? "met" : "not met";
    out(
      `- ${row.label}: RSS p50 ${fmt(row.rssMb.p50, 1)} MB (${rss}); start p50 ${fmt(row.startMs.p50)} ms (${start}).`,
    );
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
