// Push fan-out (issue 27, item 3): envelopes posted at a fixed rate to phones that have Web Push subscriptions on a
// loopback push service (the relay runs with RELAY_ALLOW_LOOPBACK_PUSH=1), against the same rate to phones without
// one: the envelope POST's latency with and without push, how many wake-ups the push service received and how long
// after the POST, and the relay's push metrics (outcomes, queue). The push service answers 201, except a share of
// 429 (Retry-After: 1) and of 410 (subscription gone), to exercise retries and removals.
//
// Usage: npm run bench:relay-push [-- --phones=500 --rate=2000 --seconds=10 --busy=0.02 --gone=0.01 --backend=sqlite|pg]
import { fork } from "node:child_process";
import { createECDH, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { call, percentile, progress, REPO_ROOT, round, startPostgres, startRelay } from "./lib.mjs";

const { values: args } = parseArgs({
  options: {
    phones: { type: "string", default: "500" },
    rate: { type: "string", default: "2000" },
    seconds: { type: "string", default: "10" },
    busy: { type: "string", default: "0.02" },
    gone: { type: "string", default: "0.01" },
    backend: { type: "string", default: "sqlite" },
    service: { type: "boolean", default: false },
  },
});
const phones = Number(args.phones);
const rate = Number(args.rate);
const seconds = Number(args.seconds);
const now = () => performance.timeOrigin + performance.now();

// The loopback push service, in a process of its own (so its work does not delay the poster's clock): counts
// deliveries per subscription path, with their arrival times.
if (args.service) {
  const arrivals = {};
  const served = { 201: 0, 410: 0, 429: 0 };
  const service = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const roll = Math.random();
      const status = roll < Number(args.gone) ? 410 : roll < Number(args.gone) + Number(args.busy) ? 429 : 201;
      served[status] += 1;
      if (status === 201) {
        arrivals[req.url] = arrivals[req.url] ?? [];
        arrivals[req.url].push(now());
      }
      res.writeHead(status, status === 429 ? { "retry-after": "1" } : {}).end();
    });
  });
  service.listen(0, "127.0.0.1", () => process.send({ type: "listening", port: service.address().port }));
  process.on("message", (message) => {
    if (message === "count") process.send({ type: "count", delivered: served[201] });
    if (message === "report") process.send({ type: "report", arrivals, served });
  });
  process.on("disconnect", () => process.exit(0));
} else {
  await main();
}

async function main() {
  const serviceProcess = fork(fileURLToPath(import.meta.url), ["--service", ...process.argv.slice(2)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = (question, type) =>
    new Promise((resolve) => {
      const listener = (message) => {
        if (message.type !== type) return;
        serviceProcess.off("message", listener);
        resolve(message);
      };
      serviceProcess.on("message", listener);
      if (question) serviceProcess.send(question);
    });
  const serviceBase = `http://127.0.0.1:${(await ask(undefined, "listening")).port}`;
  const deliveredNow = async () => (await ask("count", "count")).delivered;

  const dataDir = mkdtempSync(join(os.tmpdir(), "relay-push-"));
  let postgres;
  let databaseUrl;
  if (args.backend === "pg") {
    postgres = await startPostgres();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query("CREATE DATABASE push");
    await admin.end();
    databaseUrl = postgres.url.replace(/\/postgres$/, "/push");
  }
  const relay = await startRelay({ dataDir, databaseUrl, env: { RELAY_ALLOW_LOOPBACK_PUSH: "1" } });
  const token = readFileSync(join(dataDir, "enrollment-token"), "utf8").trim();
  try {
    const publicKey = { kty: "OKP", crv: "X25519", x: Buffer.alloc(32, 7).toString("base64url") };
    // One installation (broker) per phone, as in real use: an owner has a few phones, not thousands.
    const pair = async (subscribed, index) => {
      const installation = (await call(relay.url, "POST", "/v1/installations", token, {})).json;
      const { code } = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
      const body = { code, device_name: `p${index}`, public_key: publicKey };
      if (subscribed) {
        const ecdh = createECDH("prime256v1");
        ecdh.generateKeys();
        body.push_subscription = {
          endpoint: `${serviceBase}/push/${index}`,
          keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
        };
      }
      const phone = (await call(relay.url, "POST", "/v1/pairings/claim", undefined, body)).json;
      return { ...phone, installation, path: `/push/${index}` };
    };
    const withPush = [];
    const without = [];
    for (let index = 0; index < phones; index += 1) {
      withPush.push(await pair(true, index));
      without.push(await pair(false, phones + index));
    }
    progress(`paired ${phones} phones with a push subscription and ${phones} without`);

    const scrape = async () =>
      (await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    const metric = (text, line) =>
      Number(
        text
          .split("\n")
          .find((entry) => entry.startsWith(line))
          ?.split(" ")
          .at(-1) ?? 0,
      );

    async function drive(targets) {
      const agent = new Agent({ keepAlive: true, maxSockets: 128 });
      const latencies = [];
      const statuses = {};
      const sent = new Map();
      let inFlight = 0;
      let count = 0;
      let skipped = 0;
      const post = (phone) => {
        const installation = phone.installation;
        const payload = JSON.stringify({
          envelope_version: "1",
          sender_id: installation.installation_id,
          jwe: {
            protected: "e30",
            iv: "aXY",
            ciphertext: "Y2lwaGVy",
            tag: "dGFn",
            recipients: [{ header: { kid: phone.device_id }, encrypted_key: "a2V5" }],
          },
        });
        const started = now();
        inFlight += 1;
        const req = request(
          {
            host: "127.0.0.1",
            port: new URL(relay.url).port,
            path: "/v1/envelopes",
            method: "POST",
            agent,
            headers: {
              authorization: `Bearer ${installation.token}`,
              "content-type": "application/json",
              "content-length": Buffer.byteLength(payload),
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => {
              inFlight -= 1;
              statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
              latencies.push(now() - started);
              const list = sent.get(phone.path) ?? [];
              list.push(started);
              sent.set(phone.path, list);
            });
          },
        );
        req.on("error", () => {
          inFlight -= 1;
          statuses.error = (statuses.error ?? 0) + 1;
        });
        req.end(payload);
      };
      const started = performance.now();
      await new Promise((resolve) => {
        const tick = setInterval(() => {
          const elapsed = (performance.now() - started) / 1000;
          if (elapsed >= seconds) {
            clearInterval(tick);
            resolve();
            return;
          }
          while (count < elapsed * rate) {
            count += 1;
            if (inFlight < 2000) post(targets[count % targets.length]);
            else skipped += 1;
          }
        }, 5);
      });
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      agent.destroy();
      latencies.sort((a, b) => a - b);
      return {
        count,
        skipped,
        statuses,
        sent,
        sentPerSecond: round((count - skipped) / seconds, 0),
        postP50: round(percentile(latencies, 50), 1),
        postP99: round(percentile(latencies, 99), 1),
      };
    }

    const loadBefore = os.loadavg()[0];
    const plain = await drive(without);
    progress(`no subscriptions: ${plain.sentPerSecond}/s, POST p50 ${plain.postP50} ms p99 ${plain.postP99} ms`);
    const deliveredBefore = await deliveredNow();
    const pushStarted = performance.now();
    const pushed = await drive(withPush);
    const duringDrive = (await deliveredNow()) - deliveredBefore;
    progress(`with subscriptions: ${pushed.sentPerSecond}/s, POST p50 ${pushed.postP50} ms p99 ${pushed.postP99} ms`);
    const queueAtEnd = metric(await scrape(), "notify_relay_push_queue_length");
    // Drain: wait until the queue is empty (or 60 s).
    for (let waited = 0; waited < 60_000; waited += 250) {
      if (metric(await scrape(), "notify_relay_push_queue_length") === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const drainedSeconds = round((performance.now() - pushStarted) / 1000, 1);
    const { arrivals, served } = await ask("report", "report");
    // Lag: the n-th push to a subscription against the n-th POST to its device (retries reorder a few).
    const lags = [];
    for (const [path, times] of pushed.sent) {
      const got = arrivals[path] ?? [];
      for (let index = 0; index < Math.min(times.length, got.length); index += 1) lags.push(got[index] - times[index]);
    }
    lags.sort((a, b) => a - b);
    const text = await scrape();
    const outcomes = Object.fromEntries(
      ["delivered", "retried", "gone", "failed", "dropped"].map((outcome) => [
        outcome,
        metric(text, `notify_relay_push_sends_total{outcome="${outcome}"}`),
      ]),
    );
    const result = {
      machine: { cpus: os.cpus().length, node: process.version, loadavg: loadBefore, backend: args.backend },
      args,
      plain: { ...plain, sent: undefined },
      pushed: { ...pushed, sent: undefined },
      pushesDuringDrive: duringDrive,
      pushesPerSecondDuringDrive: round(duringDrive / seconds, 0),
      queueAtEnd,
      drainedSeconds,
      lagP50: round(percentile(lags, 50), 1),
      lagP99: round(percentile(lags, 99), 1),
      served,
      outcomes,
    };
    mkdirSync(join(REPO_ROOT, "bench/results"), { recursive: true });
    const file = join(REPO_ROOT, "bench/results", `relay-push-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      [
        `Backend ${args.backend}, ${phones} phones, ${rate} envelopes/s for ${seconds} s, load average ${round(loadBefore, 2)}`,
        "",
        "| envelopes to | sent/s | POST p50 ms | p99 ms | statuses |",
        "|---|---:|---:|---:|---|",
        `| phones without push | ${plain.sentPerSecond} | ${plain.postP50} | ${plain.postP99} | ${JSON.stringify(plain.statuses)} |`,
        `| phones with push | ${pushed.sentPerSecond} | ${pushed.postP50} | ${pushed.postP99} | ${JSON.stringify(pushed.statuses)} |`,
        "",
        `Pushes received during the ${seconds} s: ${duringDrive} (${result.pushesPerSecondDuringDrive}/s); queue at the end ${queueAtEnd}, ` +
          `empty ${drainedSeconds} s after the start; POST-to-push lag p50 ${result.lagP50} ms p99 ${result.lagP99} ms. ` +
          `Push service answered ${JSON.stringify(served)}; relay outcomes ${JSON.stringify(outcomes)}.`,
        "",
        `raw: ${file}`,
        "",
      ].join("\n"),
    );
  } finally {
    await relay.stop();
    await postgres?.stop();
    serviceProcess.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
