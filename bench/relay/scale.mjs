// Relay at scale (issue 27): N installations (brokers) and N phones doing what they do. Every broker holds an answer
// poll and every phone an envelope poll (wait=30), re-polling with the returned cursor as soon as a page arrives;
// meanwhile answers (phone -> broker) and envelopes (broker -> phone) are posted at a fixed rate, each stamped with
// its send time, and the receiving poll measures how long it took. The held polls are opened by worker processes
// (each under the per-process open-files limit) that spread their connections over several loopback source
// addresses (127.0.0.2, 127.0.0.3, ...), so neither file descriptors nor ephemeral ports bound the client side.
// Run on SQLite, on one relay process + PostgreSQL, on two processes + PostgreSQL, and a bare fastify process holding
// the same number of GETs (the memory baseline), in one run.
//
// Usage: npm run bench:relay-scale [-- --installations=9000 --rate=1000 --envelope-rate=100 --seconds=20
//        --workers=2 --addresses=8 --backends=baseline,sqlite,pg1,pg2]
// Summary (markdown) on stdout, progress on stderr, raw JSON in bench/results/.
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import {
  BENCH_DIR,
  call,
  percentile,
  progress,
  REPO_ROOT,
  round,
  rssMb,
  spawnServer,
  startPostgres,
  startRelay,
} from "./lib.mjs";

const now = () => performance.timeOrigin + performance.now();
/** CPU seconds (user + system) a process has used, from /proc (Linux). */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

// ---------------------------------------------------------------------------------------------------------------
// Worker: holds polls, re-polls, reports latencies.
if (process.argv[2] === "--worker") {
  const agents = new Map();
  const agentFor = (address) => {
    let agent = agents.get(address);
    if (!agent) {
      agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, localAddress: address });
      agents.set(address, agent);
    }
    return agent;
  };
  const latencies = [];
  const counts = { pages: 0, rows: 0, errors: 0, statuses: {} };
  let running = true;
  const poll = (item) => {
    if (!running) return;
    const path = `${item.path}?since=${encodeURIComponent(item.cursor)}&wait=30`;
    const req = request(
      {
        host: item.host,
        port: item.port,
        path,
        agent: agentFor(item.localAddress),
        headers: { authorization: `Bearer ${item.token}` },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          const received = now();
          counts.pages += 1;
          counts.statuses[res.statusCode] = (counts.statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode === 200) {
            const page = JSON.parse(text);
            for (const row of page.responses ?? page.envelopes ?? []) {
              const stamp = Number(row.text ?? row.envelope?.jwe?.ciphertext);
              if (stamp > 0) latencies.push(received - stamp);
              counts.rows += 1;
            }
            item.cursor = page.next_cursor;
            setImmediate(() => poll(item));
          } else setTimeout(() => poll(item), 1000);
        });
      },
    );
    req.on("error", () => {
      counts.errors += 1;
      if (running) setTimeout(() => poll(item), 1000);
    });
    req.end();
  };
  process.on("message", (message) => {
    if (message.type === "start") {
      for (const item of message.items) poll(item);
    } else if (message.type === "reset") {
      latencies.length = 0;
      counts.rows = 0;
    } else if (message.type === "report") {
      process.send({ type: "report", latencies, counts });
    } else if (message.type === "stop") {
      running = false;
      for (const agent of agents.values()) agent.destroy();
      process.exit(0);
    }
  });
} else {
  await main();
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      installations: { type: "string", default: "9000" },
      rate: { type: "string", default: "1000" },
      "envelope-rate": { type: "string", default: "100" },
      seconds: { type: "string", default: "20" },
      workers: { type: "string", default: "2" },
      addresses: { type: "string", default: "8" },
      backends: { type: "string", default: "baseline,sqlite,pg1,pg2" },
      "relay-node-args": { type: "string", default: "" },
    },
  });
  const count = Number(args.installations);
  const rate = Number(args.rate);
  const envelopeRate = Number(args["envelope-rate"]);
  const seconds = Number(args.seconds);
  const addresses = Array.from({ length: Number(args.addresses) }, (_, index) => `127.0.0.${index + 2}`);
  const nodeArgs = args["relay-node-args"].split(" ").filter(Boolean);
  const results = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg() },
    args,
    runs: [],
  };

  const startWorkers = () =>
    Array.from({ length: Number(args.workers) }, () =>
      fork(join(BENCH_DIR, "scale.mjs"), ["--worker"], { stdio: ["ignore", "inherit", "inherit", "ipc"] }),
    );
  const ask = (worker, type) =>
    new Promise((resolve) => {
      worker.once("message", resolve);
      worker.send({ type });
    });
  const stopWorkers = (workers) =>
    Promise.all(
      workers.map(
        (worker) =>
          new Promise((resolve) => {
            worker.once("exit", resolve);
            worker.send({ type: "stop" });
          }),
      ),
    );
  const heldPolls = async (urls) => {
    let total = 0;
    for (const url of urls) total += (await call(url, "GET", "/healthz")).json.held_polls;
    return total;
  };
  const waitHeld = async (urls, target, deadlineMs) => {
    const started = performance.now();
    let held = 0;
    while (performance.now() - started < deadlineMs) {
      held = await heldPolls(urls);
      if (held >= target) return held;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return held;
  };

  /** Runs `tasks` (functions returning promises) with at most `limit` at once. */
  async function pool(tasks, limit) {
    const out = new Array(tasks.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: limit }, async () => {
        while (next < tasks.length) {
          const index = next++;
          out[index] = await tasks[index]();
        }
      }),
    );
    return out;
  }

  async function setup(url, token) {
    const publicKey = { kty: "OKP", crv: "X25519", x: Buffer.alloc(32, 7).toString("base64url") };
    const started = performance.now();
    const pairs = await pool(
      Array.from({ length: count }, (_, index) => async () => {
        const installation = (await call(url, "POST", "/v1/installations", token, { name: `i${index}` })).json;
        const { code } = (await call(url, "POST", "/v1/pairings", installation.token, {})).json;
        const phone = (
          await call(url, "POST", "/v1/pairings/claim", undefined, {
            code,
            device_name: `p${index}`,
            public_key: publicKey,
          })
        ).json;
        return { installation, phone };
      }),
      32,
    );
    progress(`set up ${count} installations and ${count} phones in ${round((performance.now() - started) / 1000)} s`);
    return pairs;
  }

  /** Posts answers and envelopes at the configured rates for `seconds`; returns POST latencies and statuses. */
  async function drive(urls, pairs) {
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const postLatencies = [];
    const statuses = {};
    let inFlight = 0;
    const post = (url, path, token, body) => {
      const started = now();
      inFlight += 1;
      return new Promise((resolve) => {
        const { hostname, port } = new URL(url);
        const payload = JSON.stringify(body);
        const req = request(
          {
            host: hostname,
            port,
            path,
            method: "POST",
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "content-length": Buffer.byteLength(payload),
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => {
              inFlight -= 1;
              statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
              postLatencies.push(now() - started);
              resolve();
            });
          },
        );
        req.on("error", () => {
          inFlight -= 1;
          statuses.error = (statuses.error ?? 0) + 1;
          resolve();
        });
        req.end(payload);
      });
    };
    let sequence = 0;
    const sendOne = (kind) => {
      const pair = pairs[Math.floor(Math.random() * pairs.length)];
      const url = urls[sequence % urls.length];
      sequence += 1;
      const stamp = String(now());
      if (kind === "answer") {
        return post(url, "/v1/interaction-responses", pair.phone.token, {
          contract_version: "1",
          response_id: `s${sequence}`,
          interaction_id: "int_scale",
          request_digest: "a".repeat(64),
          nonce: "n",
          text: stamp,
          installation_id: pair.installation.installation_id,
          device_id: pair.phone.device_id,
        });
      }
      return post(url, "/v1/envelopes", pair.installation.token, {
        envelope_version: "1",
        sender_id: pair.installation.installation_id,
        jwe: {
          protected: "e30",
          iv: "aXY",
          ciphertext: stamp,
          tag: "dGFn",
          recipients: [{ header: { kid: pair.phone.device_id }, encrypted_key: "a2V5" }],
        },
      });
    };
    const started = performance.now();
    let answers = 0;
    let envelopes = 0;
    let skipped = 0;
    await new Promise((resolve) => {
      const tick = setInterval(() => {
        const elapsed = (performance.now() - started) / 1000;
        if (elapsed >= seconds) {
          clearInterval(tick);
          resolve();
          return;
        }
        // Open loop: what the schedule says is due is sent now, unless 2,000 requests are already waiting.
        while (answers < elapsed * rate) {
          answers += 1;
          if (inFlight < 2000) sendOne("answer");
          else skipped += 1;
        }
        while (envelopes < elapsed * envelopeRate) {
          envelopes += 1;
          if (inFlight < 2000) sendOne("envelope");
          else skipped += 1;
        }
      }, 5);
    });
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    agent.destroy();
    postLatencies.sort((a, b) => a - b);
    return { answers, envelopes, skipped, statuses, postLatencies };
  }

  async function runRelay(name, relays, token) {
    const urls = relays.map((relay) => relay.url);
    const started = relays.map((relay) => rssMb(relay.child.pid));
    const pairs = await setup(urls[0], token);
    // Idle: after the set-up (its heap growth is not the polls'), before the first poll opens.
    const idle = relays.map((relay) => rssMb(relay.child.pid));
    const workers = startWorkers();
    const items = [];
    pairs.forEach((pair, index) => {
      const url = new URL(urls[index % urls.length]);
      const base = { host: url.hostname, port: url.port, cursor: "" };
      items.push({ ...base, path: "/v1/interaction-responses", token: pair.installation.token });
      items.push({ ...base, path: "/v1/envelopes", token: pair.phone.token });
    });
    items.forEach((item, index) => {
      item.localAddress = addresses[index % addresses.length];
    });
    workers.forEach((worker, index) => {
      worker.send({ type: "start", items: items.filter((_, itemIndex) => itemIndex % workers.length === index) });
    });
    const openStarted = performance.now();
    const held = await waitHeld(urls, items.length, 120_000);
    const openSeconds = round((performance.now() - openStarted) / 1000);
    const heldRss = relays.map((relay) => rssMb(relay.child.pid));
    progress(
      `${name}: ${held} of ${items.length} polls held after ${openSeconds} s; RSS ${heldRss.map((mb) => round(mb)).join(" + ")} MB`,
    );
    for (const worker of workers) worker.send({ type: "reset" });
    const loadavg = os.loadavg()[0];
    const cpuBefore = [...relays.map((relay) => cpuSeconds(relay.child.pid)), ...workers.map((w) => cpuSeconds(w.pid))];
    const ownBefore = process.cpuUsage();
    const driveStarted = performance.now();
    const driven = await drive(urls, pairs);
    const driveSeconds = (performance.now() - driveStarted) / 1000;
    const cpuAfter = [...relays.map((relay) => cpuSeconds(relay.child.pid)), ...workers.map((w) => cpuSeconds(w.pid))];
    const own = process.cpuUsage(ownBefore);
    // Share of one core each used while the load ran: the relay(s), then the poll workers, then the poster.
    const cpu = cpuAfter.map((value, index) => round((value - cpuBefore[index]) / driveSeconds, 2));
    cpu.push(round((own.user + own.system) / 1e6 / driveSeconds, 2));
    const loadRss = relays.map((relay) => rssMb(relay.child.pid));
    // Let the last pages arrive.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const reports = await Promise.all(workers.map((worker) => ask(worker, "report")));
    const heldAfter = await heldPolls(urls);
    await stopWorkers(workers);
    const wake = reports.flatMap((report) => report.latencies).sort((a, b) => a - b);
    const received = wake.length;
    const entry = {
      name,
      processes: relays.length,
      polls: items.length,
      held,
      heldAfter,
      openSeconds,
      startedMb: started.map((mb) => round(mb)),
      idleMb: idle.map((mb) => round(mb)),
      heldMb: heldRss.map((mb) => round(mb)),
      loadMb: loadRss.map((mb) => round(mb)),
      perPollKb: round(((heldRss.reduce((a, b) => a + b) - idle.reduce((a, b) => a + b)) * 1024) / held, 1),
      sent: driven.answers + driven.envelopes,
      skipped: driven.skipped,
      statuses: driven.statuses,
      received,
      wakeP50: round(percentile(wake, 50), 1),
      wakeP99: round(percentile(wake, 99), 1),
      wakeMax: round(wake.at(-1) ?? Number.NaN, 1),
      wakeOver50: wake.filter((ms) => ms > 50).length,
      wakeOver900: wake.filter((ms) => ms > 900).length,
      postP50: round(percentile(driven.postLatencies, 50), 1),
      postP99: round(percentile(driven.postLatencies, 99), 1),
      loadavg: round(loadavg, 2),
      cpuCores: { relays: cpu.slice(0, relays.length), workers: cpu.slice(relays.length, -1), poster: cpu.at(-1) },
      workerErrors: reports.reduce((sum, report) => sum + report.counts.errors, 0),
    };
    results.runs.push(entry);
    progress(
      `${name}: sent ${entry.sent} (${JSON.stringify(entry.statuses)}), received ${received}; ` +
        `answer/envelope to held poll p50 ${entry.wakeP50} ms p99 ${entry.wakeP99} ms; POST p99 ${entry.postP99} ms; ` +
        `CPU (cores) ${JSON.stringify(entry.cpuCores)}`,
    );
  }

  async function runBaseline() {
    const server = await spawnServer([join(BENCH_DIR, "baseline-server.mjs")]);
    try {
      const idle = rssMb(server.child.pid);
      const url = new URL(server.url);
      const workers = startWorkers();
      const polls = 2 * count;
      const items = Array.from({ length: polls }, (_, index) => ({
        host: url.hostname,
        port: url.port,
        cursor: "",
        path: "/v1/interaction-responses",
        token: "x",
        localAddress: addresses[index % addresses.length],
      }));
      workers.forEach((worker, index) => {
        worker.send({ type: "start", items: items.filter((_, itemIndex) => itemIndex % workers.length === index) });
      });
      const held = await waitHeld([server.url], polls, 120_000);
      const heldMb = rssMb(server.child.pid);
      await call(server.url, "POST", "/release");
      await stopWorkers(workers);
      const entry = {
        name: "bare fastify (held GETs)",
        processes: 1,
        polls,
        held,
        idleMb: [round(idle)],
        heldMb: [round(heldMb)],
        perPollKb: round(((heldMb - idle) * 1024) / held, 1),
      };
      results.runs.push(entry);
      progress(`bare fastify: ${held} held, RSS ${entry.idleMb} -> ${entry.heldMb} MB (${entry.perPollKb} kB each)`);
    } finally {
      await server.stop();
    }
  }

  const backends = new Set(args.backends.split(","));
  const cleanups = [];
  try {
    if (backends.has("baseline")) await runBaseline();
    if (backends.has("sqlite")) {
      const dataDir = mkdtempSync(join(os.tmpdir(), "relay-scale-"));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const relay = await startRelay({ dataDir, nodeArgs });
      try {
        const token = readFileSync(join(dataDir, "enrollment-token"), "utf8").trim();
        await runRelay("relay, SQLite", [relay], token);
      } finally {
        await relay.stop();
      }
    }
    const pgRuns = [...backends].filter((backend) => backend === "pg1" || backend === "pg2");
    if (pgRuns.length > 0) {
      const server = await startPostgres();
      cleanups.push(server.stop);
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      for (const backend of pgRuns) {
        const processes = backend === "pg2" ? 2 : 1;
        await admin.query(`CREATE DATABASE scale_${processes}`);
        const databaseUrl = server.url.replace(/\/postgres$/, `/scale_${processes}`);
        const dataDir = mkdtempSync(join(os.tmpdir(), "relay-scale-pg-"));
        cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
        const relays = [];
        try {
          for (let index = 0; index < processes; index += 1) {
            relays.push(await startRelay({ dataDir, databaseUrl, nodeArgs }));
          }
          const token = readFileSync(join(dataDir, "enrollment-token"), "utf8").trim();
          await runRelay(`relay, PostgreSQL, ${processes} process${processes > 1 ? "es" : ""}`, relays, token);
        } finally {
          await Promise.all(relays.map((relay) => relay.stop()));
        }
      }
      await admin.end();
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }

  mkdirSync(join(REPO_ROOT, "bench/results"), { recursive: true });
  const file = join(REPO_ROOT, "bench/results", `relay-scale-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  const lines = [
    `Machine: ${results.machine.cpus} CPUs (${results.machine.model}), Node ${results.machine.node}, ` +
      `load average ${results.machine.loadavg.map((value) => round(value, 2)).join(" ")} at the start`,
    "",
    "| run | polls held | RSS idle MB | RSS holding MB | kB per poll | sent/s | received | wake p50 ms | p99 ms | POST p99 ms | load |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const run of results.runs) {
    lines.push(
      `| ${run.name} | ${run.held} | ${run.idleMb.join(" + ")} | ${run.heldMb.join(" + ")} | ${run.perPollKb} | ` +
        `${run.sent === undefined ? "-" : round(run.sent / seconds, 0)} | ${run.received ?? "-"} | ${run.wakeP50 ?? "-"} | ` +
        `${run.wakeP99 ?? "-"} | ${run.postP99 ?? "-"} | ${run.loadavg ?? "-"} |`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n\nraw: ${file}\n`);
}
