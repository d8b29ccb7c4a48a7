// What the phone benches share (bench/phone, bench/follow-up): a relay (SQLite, rate limits off) and a real broker in
// this process on loopback, the broker enrolled at the relay with a "phone" route, and simulated phones holding
// X25519 keys from node:crypto that open sealed envelopes and post answers as the app does.
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const { startBroker } = await import(join(ROOT, "packages/broker/dist/broker.js"));
const { buildApp } = await import(join(ROOT, "packages/relay/dist/http/app.js"));
const { SqliteStore } = await import(join(ROOT, "packages/relay/dist/store/sqlite/sqlite-store.js"));
const { openEnvelope } = await import(join(ROOT, "packages/contracts/dist/relay/envelope.js"));

const ENROLLMENT = "nre_bench-enrollment-token-0123456789abcdef";

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
export const ms = (value) => Math.round(value * 10) / 10;

/** p50/p90/p99/max (ms, one decimal) of the samples. */
export function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: ms(percentile(sorted, 50)),
    p90: ms(percentile(sorted, 90)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted.at(-1)),
  };
}

export async function json(url, init = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A relay and a broker (`config` is the broker's config.json, rate limit off added), `devices` phones paired, the
 * broker's relay provider and "phone" route set up through /ui/api. `dataDir` is the broker's, for the CLI's
 * `--data-dir`. `appDir`: the built phone app the relay serves at /app (bench/context pairs a real app), else none.
 */
export async function world(devices, config = {}, { appDir = false } = {}) {
  const dirs = [mkdtempSync(join(os.tmpdir(), "bench-relay-")), mkdtempSync(join(os.tmpdir(), "bench-broker-"))];
  let relayUrl = "";
  const { app } = buildApp({
    store: new SqliteStore(join(dirs[0], "relay.db")),
    enrollmentToken: ENROLLMENT,
    publicUrl: () => relayUrl,
    limits: false,
    appDir,
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
  writeFileSync(join(dirs[1], "config.json"), JSON.stringify({ rateLimitPerSecond: 1_000_000, ...config }));
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
  /** A fresh pairing link for a real phone app (`#pair=<code>`). */
  const pairLink = async () =>
    (
      await json(`${relayUrl}/v1/pairings`, {
        method: "POST",
        headers: { authorization: `Bearer ${installation.token}`, "content-type": "application/json" },
        body: "{}",
      })
    ).body.link;
  return {
    relayUrl,
    pairLink,
    installation,
    phones,
    broker,
    dataDir: dirs[1],
    call,
    close: async () => {
      await broker.close();
      app.server.closeAllConnections();
      await app.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The next question sealed for `phone` (long-polling the relay with wait=20 as the app does), opened with its key:
 * `{ payload, senderId }`. Other payloads (notifications, settles) are skipped.
 */
export async function nextQuestion(w, phone) {
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

/** The phone's tap: POST /v1/interaction-responses for an opened question, `{ choice_id }` or `{ text }`. */
export function tap(w, phone, { payload, senderId }, answer) {
  return json(`${w.relayUrl}/v1/interaction-responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${phone.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      contract_version: "1",
      response_id: randomUUID(),
      interaction_id: payload.interaction.id,
      request_digest: payload.interaction.request_digest,
      nonce: payload.interaction.nonce,
      ...answer,
      installation_id: senderId,
      device_id: phone.device_id,
    }),
  });
}
