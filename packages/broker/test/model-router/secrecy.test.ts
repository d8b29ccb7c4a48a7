import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { type MockWire, type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RouterBroker, raw, startRouterBroker } from "./harness.js";

/**
 * docs/router.md, "Ledger"; docs/router.md, "Upstream": no prompt, completion, upstream key, router key or provider
 * error text is written anywhere in the data dir (databases, their write-ahead logs, log files), whatever path a
 * request took.
 */

const PROMPT = "PROMPT-CANARY-7f3a9c-what-is-the-secret-plan";
const COMPLETION = "COMPLETION-CANARY-2b8e41-the-plan-is-tea";
const UPSTREAM_KEY = "sk-UPSTREAM-CANARY-91d0c2";
const COMPLETION_PIECES = ["COMPLETION-CAN", "ARY-2b8e41-the", "-plan-is-tea"];
const PROVIDER_TEXT = "PROVIDER-CANARY-5e77aa account overdrawn";
const CLIENT_CREDENTIAL = "sk-CLIENT-CANARY-0c0c0c";

const WIRES: MockWire[] = ["responses", "chat", "messages"];
let router: RouterBroker;
const mocks = {} as Record<MockWire, ModelMock>;

beforeAll(async () => {
  router = await startRouterBroker();
  for (const wire of WIRES) {
    mocks[wire] = await startModelMock(wire);
    mocks[wire].text = COMPLETION;
    await router.addUpstream({ slug: wire, wire, base_url: mocks[wire].url, key: UPSTREAM_KEY, models: [`${wire}-m`] });
  }
});

afterAll(async () => {
  // Idempotent: the test itself stops the broker to scan the files a clean stop leaves.
  await router?.broker.close();
  if (router) rmSync(router.dataDir, { recursive: true, force: true });
  for (const mock of Object.values(mocks)) await mock.close();
});

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function scan(dataDir: string, key: string): string[] {
  const found: string[] = [];
  const files = filesUnder(dataDir);
  expect(files.some((file) => file.endsWith("router.db"))).toBe(true);
  expect(files.some((file) => file.includes("logs"))).toBe(true);
  for (const file of files) {
    const name = relative(dataDir, file);
    if (name === "secret.key") continue;
    const bytes = readFileSync(file);
    // Streamed text travels in pieces: each piece is looked for too.
    const canaries = [PROMPT, COMPLETION, ...COMPLETION_PIECES, UPSTREAM_KEY, PROVIDER_TEXT, CLIENT_CREDENTIAL];
    // config.json holds the router key by design (`notify router key` reads it there).
    if (name !== "config.json") canaries.push(key);
    for (const canary of canaries) if (bytes.includes(canary)) found.push(`${name}: ${canary}`);
  }
  return found;
}

const request = (path: string, body: object, headers: Record<string, string> = {}) =>
  raw(`${router.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-notify-router-key": router.key, ...headers },
    body: JSON.stringify(body),
  });

const BODIES: Record<MockWire, (model: string, stream: boolean) => object> = {
  responses: (model, stream) => ({ model, instructions: PROMPT, input: PROMPT, stream }),
  chat: (model, stream) => ({ model, messages: [{ role: "user", content: PROMPT }], stream }),
  messages: (model, stream) => ({
    model,
    max_tokens: 64,
    system: PROMPT,
    messages: [{ role: "user", content: PROMPT }],
    stream,
  }),
};
const PATH: Record<MockWire, string> = {
  responses: "/responses",
  chat: "/chat/completions",
  messages: "/messages",
};

it("leaves no prompt, completion, key or provider text in any file of the data dir", async () => {
  const before = await router.ledgerSize();
  let requests = 0;
  for (const inbound of WIRES) {
    for (const upstream of WIRES) {
      for (const stream of [false, true]) {
        const reply = await request(PATH[inbound], BODIES[inbound](`${upstream}/${upstream}-m`, stream), {
          authorization: `Bearer ${CLIENT_CREDENTIAL}`,
        });
        expect(reply.status).toBe(200);
        expect(reply.text).toContain("COMPLETION-CAN");
        requests++;
      }
    }
    // A provider error with its own text, a stream cut short, and a model list request.
    mocks.chat.script.push({ kind: "status", status: 503, body: { error: { message: PROVIDER_TEXT, code: "down" } } });
    const failed = await request(PATH[inbound], BODIES[inbound](`chat/fail-${inbound}`, false));
    expect(failed.status).toBe(503);
    expect(failed.text).not.toContain("PROVIDER-CANARY");
    mocks.messages.script.push({ kind: "die-mid-stream" });
    await request(PATH[inbound], BODIES[inbound]("messages/messages-m", true));
    requests += 2;
  }
  expect((await raw(`${router.base}/models`, { headers: { "x-api-key": router.key } })).status).toBe(200);
  await router.nextLedgerRow(before + requests - 1);
  await router.broker.logger.flush();

  // While running (the databases' write-ahead logs hold the newest pages) and after a clean stop.
  expect(statSync(join(router.dataDir, "router.db-wal")).size).toBeGreaterThan(0);
  // The scan does find what is there: the router key in config.json, where it belongs.
  expect(readFileSync(join(router.dataDir, "config.json")).includes(router.key)).toBe(true);
  expect(scan(router.dataDir, router.key)).toEqual([]);
  await router.broker.close();
  expect(scan(router.dataDir, router.key)).toEqual([]);
});
