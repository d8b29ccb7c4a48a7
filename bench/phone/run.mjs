// Phone round trip and question sealing (issue 14). The relay (SQLite, rate limits off as in bench/relay) and the
// broker run in this process on loopback; a simulated phone holds X25519 keys from node:crypto.
// 1. answer latency: a phone's answer POST to the relay until the agent's GET /v1/interactions/{id}/wait returns
//    (the broker's poll is held at the relay with wait=25 and woken by the answer), p50/p99 over --rounds runs;
// 2. questions sealed and published per second, through the broker's outbox, for 1 and for 5 paired devices,
//    beside the bare cost of sealing (sealEnvelope alone, no network) as the baseline.
// Usage: npm run bench:phone [-- --rounds=200 --questions=300]
import { generateKeyPairSync } from "node:crypto";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { nextQuestion, ROOT, summary, tap, world } from "./lib.mjs";

const { sealEnvelope } = await import(join(ROOT, "packages/contracts/dist/relay/envelope.js"));

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "200" }, questions: { type: "string", default: "300" } },
});
const rounds = Number(args.rounds);
const questions = Number(args.questions);
const progress = (message) => process.stderr.write(`[bench:phone] ${message}\n`);

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
      const posted = await tap(w, phone, { payload, senderId }, { choice_id: "allow" });
      const settled = await waiting;
      const elapsed = performance.now() - started;
      if (posted.status !== 201 || settled.body.status !== "answered") throw new Error("round failed");
      if (round >= 10) samples.push(elapsed); // the first 10 warm up
    }
  } finally {
    await w.close();
  }
  const { p50, p90, p99, max } = summary(samples);
  return { p50, p90, p99, max };
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
