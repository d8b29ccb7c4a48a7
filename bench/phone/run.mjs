// Phone round trip and question sealing (issue 14). The relay (SQLite, rate limits off as in bench/relay) and the
// broker run in this process on loopback; a simulated phone holds X25519 keys from node:crypto.
// 1. answer latency: a phone's answer POST to the relay until the agent's GET /v1/interactions/{id}/wait returns
//    (the broker's poll is held at the relay with wait=25 and woken by the answer), p50/p99 over --rounds runs;
// 2. questions sealed and published per second, through the broker's outbox, for 1 and for 5 paired devices,
//    beside the bare cost of sealing (sealEnvelope alone, no network) as the baseline.
// Usage: npm run bench:phone [-- --rounds=200 --questions=300]
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const { startBroker } = await import(join(ROOT, "packages/broker/dist/broker.js"));
const { buildApp } = await import(join(ROOT, "packages/relay/dist/http/app.js"));
const { SqliteStore } = await import(join(ROOT, "packages/relay/dist/store/sqlite/sqlite-store.js"));
const { sealEnvelope, openEnvelope } = await import(join(ROOT, "packages/contracts/dist/relay/envelope.js"));

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "200" }, questions: { type: "string", default: "300" } },
});
const rounds = Number(args.rounds);
const questions = Number(args.questions);
const ENROLLMENT = "nre_bench-enrollment-token-0123456789abcdef";
const progress = (message) => process.stderr.write(`[bench:phone] ${message}\n`);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (value) => Math.round(value * 10) / 10;

async function json(url, init = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function world(devices) {
  const dirs = [mkdtempSync(join(os.tmpdir(), "bench-relay-")), mkdtempSync(join(os.tmpdir(), "bench-broker-"))];
  let relayUrl = "";
  const { app } = buildApp({
    store: new SqliteStore(join(dirs[0], "relay.db")),
    enrollmentToken: ENROLLMENT,
    publicUrl: () => relayUrl,
    limits: false,
    appDir: false,
  });
  relayUrl = await app.listen({ port: 0, host: "127.0.0.1" });
  const installation = (
    await json(`${relayUrl}/v1/installations`, {
      method: "POST",
      headers: { authorization: `Bearer ${ENROLLMENT}`, "content-type": "application/json" },
      body: "{}",
    })
  ).body;
  const phones = [];
  for (let index = 0; index < devices; index++) {
    const { publicKey, privateKey } = generateKeyPairSync("x25519");
    const { x } = publicKey.export({ format: "jwk" });
    const { code } = (
      await json(`${relayUrl}/v1/pairings`, {
        method: "POST",
        headers: { authorization: `Bearer ${installation.token}`, "content-type": "application/json" },
        body: "{}",
      })
    ).body;
    const claimed = (
      await json(`${relayUrl}/v1/pairings/claim`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code, device_name: `bench ${index}`, public_key: { kty: "OKP", crv: "X25519", x } }),
      })
    ).body;
    phones.push({ ...claimed, privateKey, publicJwk: { kty: "OKP", crv: "X25519", x }, cursor: undefined });
  }
  writeFileSync(join(dirs[1], "config.json"), JSON.stringify({ rateLimitPerSecond: 1_000_000 }));
  const broker = await startBroker({ dataDir: dirs[1], port: 0, env: {} });
  const headers = {
    authorization: `Bearer ${broker.settings.authToken}`,
    "content-type": "application/json",
    "x-notify-ui": "1",
  };
  const call = (method, path, body) =>
    json(`${broker.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  await call("POST", "/ui/api/outbound/providers", {
    kind: "relay",
    name: "phone",
    enabled: true,
    settings: { url: relayUrl, installationId: installation.installation_id },
    secrets: { installationToken: installation.token },
  });
  await call("POST", "/ui/api/outbound/routes", { name: "phone", provider: "phone", enabled: true });
  return {
    relayUrl,
    installation,
    phones,
    broker,
    call,
    close: async () => {
      await broker.close();
      app.server.closeAllConnections();
      await app.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function nextQuestion(w, phone) {
  for (;;) {
    const query = new URLSearchParams({ wait: "20" });
    if (phone.cursor) query.set("since", phone.cursor);
    const page = (
      await json(`${w.relayUrl}/v1/envelopes?${query}`, { headers: { authorization: `Bearer ${phone.token}` } })
    ).body;
    phone.cursor = page.next_cursor;
    for (const row of page.envelopes) {
      const payload = await openEnvelope(row.envelope, phone.device_id, phone.privateKey);
      if (payload.payload_kind === "interaction-request") return { payload, senderId: row.envelope.sender_id };
    }
  }
}

async function answerLatency() {
  const w = await world(1);
  const phone = w.phones[0];
  const samples = [];
  try {
    for (let round = 0; round < rounds + 10; round++) {
      const asked = (await w.call("POST", "/v1/interactions/request", { prompt: `Round ${round}?` })).body;
      const { payload, senderId } = await nextQuestion(w, phone);
      const waiting = w.call("GET", `/v1/interactions/${asked.id}/wait?timeout=30`);
      // Let the wait register before the clock starts (it is answered from memory once it does).
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      const posted = await json(`${w.relayUrl}/v1/interaction-responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${phone.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          contract_version: "1",
          response_id: randomUUID(),
          interaction_id: payload.interaction.id,
          request_digest: payload.interaction.request_digest,
          nonce: payload.interaction.nonce,
          choice_id: "allow",
          installation_id: senderId,
          device_id: phone.device_id,
        }),
      });
      const settled = await waiting;
      const elapsed = performance.now() - started;
      if (posted.status !== 201 || settled.body.status !== "answered") throw new Error("round failed");
      if (round >= 10) samples.push(elapsed); // the first 10 warm up
    }
  } finally {
    await w.close();
  }
  samples.sort((a, b) => a - b);
  return {
    p50: ms(percentile(samples, 50)),
    p90: ms(percentile(samples, 90)),
    p99: ms(percentile(samples, 99)),
    max: ms(samples.at(-1)),
  };
}

async function publishRate(devices) {
  const w = await world(devices);
  try {
    // Warm up: one question end to end.
    await w.call("POST", "/v1/interactions/request", { prompt: "warm up?" });
    await waitDelivered(w, 1);
    const started = performance.now();
    for (let index = 0; index < questions; index++) {
      await w.call("POST", "/v1/interactions/request", { prompt: `Question ${index}?` });
    }
    const created = performance.now();
    await waitDelivered(w, questions + 1);
    const done = performance.now();
    const seconds = (done - started) / 1000;
    return {
      perSecond: Math.round(questions / seconds),
      createMs: Math.round(created - started),
      totalMs: Math.round(done - started),
    };
  } finally {
    await w.close();
  }
}

async function waitDelivered(w, count) {
  for (;;) {
    const page = (await w.call("GET", "/ui/api/outbound/outbox?limit=1")).body;
    if ((page.counts.Delivered ?? 0) >= count) return;
    if ((page.counts.DeadLetter ?? 0) > 0 || (page.counts.Retry ?? 0) > 0) throw new Error("delivery failed");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function sealRate(devices) {
  const recipients = Array.from({ length: devices }, (_, index) => {
    const { publicKey } = generateKeyPairSync("x25519");
    const { x } = publicKey.export({ format: "jwk" });
    return { device_id: `dev_${index}`, public_key: { kty: "OKP", crv: "X25519", x } };
  });
  const payload = {
    payload_kind: "interaction-request",
    contract_version: "1",
    interaction: { prompt: "x".repeat(200) },
  };
  for (let index = 0; index < 50; index++) await sealEnvelope("ins_bench", payload, recipients);
  const started = performance.now();
  for (let index = 0; index < questions; index++) await sealEnvelope("ins_bench", payload, recipients);
  return Math.round(questions / ((performance.now() - started) / 1000));
}

progress(`node ${process.version}, ${os.cpus().length} cpus, ${rounds} rounds, ${questions} questions`);
progress("answer latency");
const latency = await answerLatency();
const rates = {};
for (const devices of [1, 5]) {
  progress(`publish rate, ${devices} device(s)`);
  rates[devices] = { broker: await publishRate(devices), sealOnly: await sealRate(devices) };
}
process.stdout.write(`${JSON.stringify({ latency, rates }, null, 2)}\n`);
