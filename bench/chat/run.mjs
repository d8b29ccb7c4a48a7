// Answers from chat apps (issue 25): the time from a person's answer in a chat app to the waiting agent's wake,
// for Telegram and Slack, beside the phone path in the same run. Each channel gets a fresh broker (startBroker,
// loopback, its dispatcher and answer loops running) with that one provider and one route, in this process:
// - telegram: the loopback Bot API of the tests (test/chat/telegram-server.ts); the broker's getUpdates long-poll
//   is held there; the clock starts when the tap's update is queued (which wakes the poll);
// - slack: the loopback Web API and Socket Mode server of the tests (test/chat/slack-server.ts); the clock starts
//   when the block_actions envelope is written to the broker's WebSocket;
// - phone: the relay (SQLite, rate limits off) and a simulated phone as in bench/phone; the clock starts at the
//   phone's POST /v1/interaction-responses.
// The clock stops when the agent's held GET /v1/interactions/{id}/wait returns `answered`. p50/p90/p99/max over
// --rounds questions after 10 warm-up rounds.
// Usage: npm run bench:chat [-- --rounds=200]   (the npm script runs node with --experimental-transform-types,
// so the tests' TypeScript mock servers load as they are)
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
const { openEnvelope } = await import(join(ROOT, "packages/contracts/dist/relay/envelope.js"));
const { TelegramServer } = await import(join(ROOT, "packages/broker/test/chat/telegram-server.ts"));
const { SlackServer } = await import(join(ROOT, "packages/broker/test/chat/slack-server.ts"));

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "200" }, only: { type: "string" } },
});
const rounds = Number(args.rounds);
const WARMUP = 10;
const progress = (message) => process.stderr.write(`[bench:chat] ${message}\n`);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (value) => Math.round(value * 10) / 10;
const TG_TOKEN = "123456:AAbenchBENCHbenchBENCHbench_token";
const TG_CHAT = 4242;
const ANN_TG = { id: 7, first_name: "Ann" };
const SLACK_APP = "xapp-1-A0BENCH1-1-benchappsecretbenchapp";
const SLACK_BOT = "xoxb-1-2-benchbotsecretbenchbot";
const ANN_SLACK = { id: "U0ANN0001", name: "ann" };
const ENROLLMENT = "nre_bench-enrollment-token-0123456789abcdef";

async function json(url, init = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function until(condition, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A fresh broker with one provider and a route to it. */
async function brokerWith(provider) {
  const dir = mkdtempSync(join(os.tmpdir(), "bench-chat-broker-"));
  writeFileSync(join(dir, "config.json"), JSON.stringify({ rateLimitPerSecond: 1_000_000 }));
  const broker = await startBroker({ dataDir: dir, port: 0, env: {} });
  const headers = {
    authorization: `Bearer ${broker.settings.authToken}`,
    "content-type": "application/json",
    "x-notify-ui": "1",
  };
  const call = (method, path, body) =>
    json(`${broker.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const created = await call("POST", "/ui/api/outbound/providers", { ...provider, name: "chan", enabled: true });
  if (created.status !== 201) throw new Error(`provider: ${JSON.stringify(created.body)}`);
  await call("POST", "/ui/api/outbound/routes", { name: "all", provider: "chan", enabled: true });
  return {
    call,
    close: async () => {
      await broker.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The rounds of one channel: ask, wait for the question to reach the person (`delivered` returns what `answer`
 * needs), hold the agent's wait, then time `answer` until the wait returns.
 */
async function measure(name, call, delivered, answer) {
  const samples = [];
  for (let round = 0; round < rounds + WARMUP; round++) {
    const asked = (await call("POST", "/v1/interactions/request", { prompt: `${name} round ${round}?` })).body;
    const question = await delivered(asked, round);
    const waiting = call("GET", `/v1/interactions/${asked.id}/wait?timeout=30`);
    // Let the wait register before the clock starts (it is answered from memory once it does).
    await new Promise((resolve) => setTimeout(resolve, 2));
    const started = performance.now();
    await answer(question);
    const settled = await waiting;
    const elapsed = performance.now() - started;
    if (settled.body.status !== "answered") throw new Error(`${name} round ${round}: ${settled.body.status}`);
    if (round >= WARMUP) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  return {
    p50: ms(percentile(samples, 50)),
    p90: ms(percentile(samples, 90)),
    p99: ms(percentile(samples, 99)),
    max: ms(samples.at(-1)),
  };
}

async function telegram() {
  const tg = await new TelegramServer(TG_TOKEN).start();
  const broker = await brokerWith({
    kind: "telegram",
    settings: { chatId: TG_CHAT, answers: true, allowedUserIds: [ANN_TG.id], apiBaseUrl: tg.url },
    secrets: { botToken: TG_TOKEN },
  });
  try {
    // The poll loop is up (its first getUpdates is held at the mock) before the first question.
    await until(() => tg.callsOf("getUpdates").length > 0);
    return await measure(
      "telegram",
      broker.call,
      async (_asked, round) => {
        let message;
        await until(() => {
          message = tg.sent().find((sent) => sent.text.includes(`telegram round ${round}?`));
          return message !== undefined;
        });
        return message;
      },
      async (message) => {
        tg.tap(message, message.reply_markup.inline_keyboard[0][0].callback_data, ANN_TG);
      },
    );
  } finally {
    await broker.close();
    await tg.close();
  }
}

async function slack() {
  const server = await new SlackServer(SLACK_APP, SLACK_BOT).start();
  const broker = await brokerWith({
    kind: "slack_app",
    settings: { channel: "C0AGENTS1", allowedUserIds: [ANN_SLACK.id], apiBaseUrl: server.apiBaseUrl },
    secrets: { appToken: SLACK_APP, botToken: SLACK_BOT },
  });
  try {
    await until(() => server.connections > 0);
    const result = await measure(
      "slack",
      broker.call,
      async (_asked, round) => {
        let message;
        await until(() => {
          message = server.posted().find((posted) => posted.text.includes(`slack round ${round}?`));
          return message !== undefined;
        });
        return message;
      },
      async (message) => {
        server.click(message, 0, ANN_SLACK);
      },
    );
    // Every envelope acknowledged, and how long the acks took (Slack wants them within 3 s).
    await until(() => server.envelopes.every((entry) => entry.ack !== undefined));
    const acks = server.envelopes.map((entry) => entry.ackMs - entry.sentMs).sort((a, b) => a - b);
    return { ...result, ackP99: ms(percentile(acks, 99)) };
  } finally {
    await broker.close();
    await server.close();
  }
}

async function phone() {
  const dir = mkdtempSync(join(os.tmpdir(), "bench-chat-relay-"));
  let relayUrl = "";
  const { app } = buildApp({
    store: new SqliteStore(join(dir, "relay.db")),
    enrollmentToken: ENROLLMENT,
    publicUrl: () => relayUrl,
    limits: false,
    appDir: false,
  });
  relayUrl = await app.listen({ port: 0, host: "127.0.0.1" });
  const post = (path, token, body) =>
    json(`${relayUrl}${path}`, {
      method: "POST",
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const installation = (await post("/v1/installations", ENROLLMENT, {})).body;
  const { publicKey, privateKey } = generateKeyPairSync("x25519");
  const { x } = publicKey.export({ format: "jwk" });
  const { code } = (await post("/v1/pairings", installation.token, {})).body;
  const device = (
    await post("/v1/pairings/claim", undefined, {
      code,
      device_name: "bench",
      public_key: { kty: "OKP", crv: "X25519", x },
    })
  ).body;
  let cursor;
  const broker = await brokerWith({
    kind: "relay",
    settings: { url: relayUrl, installationId: installation.installation_id },
    secrets: { installationToken: installation.token },
  });
  try {
    return await measure(
      "phone",
      broker.call,
      async () => {
        for (;;) {
          const query = new URLSearchParams({ wait: "20" });
          if (cursor) query.set("since", cursor);
          const page = (
            await json(`${relayUrl}/v1/envelopes?${query}`, { headers: { authorization: `Bearer ${device.token}` } })
          ).body;
          cursor = page.next_cursor;
          for (const row of page.envelopes) {
            const payload = await openEnvelope(row.envelope, device.device_id, privateKey);
            if (payload.payload_kind === "interaction-request") return { payload, senderId: row.envelope.sender_id };
          }
        }
      },
      async ({ payload, senderId }) => {
        const posted = await post("/v1/interaction-responses", device.token, {
          contract_version: "1",
          response_id: randomUUID(),
          interaction_id: payload.interaction.id,
          request_digest: payload.interaction.request_digest,
          nonce: payload.interaction.nonce,
          choice_id: "allow",
          installation_id: senderId,
          device_id: device.device_id,
        });
        if (posted.status !== 201) throw new Error(`relay answer: ${posted.status}`);
      },
    );
  } finally {
    await broker.close();
    app.server.closeAllConnections();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

progress(`node ${process.version}, ${os.cpus().length} cpus, ${rounds} rounds per channel`);
const channels = { telegram, slack, phone };
const results = {};
for (const [name, run] of Object.entries(channels)) {
  if (args.only && !args.only.split(",").includes(name)) continue;
  progress(name);
  results[name] = await run();
}
process.stdout.write("| Channel | p50 | p90 | p99 | max |\n| --- | ---: | ---: | ---: | ---: |\n");
for (const [name, r] of Object.entries(results)) {
  process.stdout.write(`| ${name} | ${r.p50} ms | ${r.p90} ms | ${r.p99} ms | ${r.max} ms |\n`);
}
if (results.slack) process.stdout.write(`\nSlack envelope acks: p99 ${results.slack.ackP99} ms\n`);
process.stdout.write(`\n${JSON.stringify(results)}\n`);
