// Issue 31, item 4 (the relay client): a relay's 429 names how long to wait. The answer poll honours Retry-After
// when it is longer than its backoff, up to the one cap every server-named delay has (MAX_SERVER_DELAY_MS,
// @notify/contracts/retry). A value of 2,147,484 s or more is past setTimeout's limit: uncapped, it would fire at
// once and turn the 429 into a hot loop.
import { createServer, type Server } from "node:http";
import { MAX_SERVER_DELAY_MS } from "@notify/contracts/retry";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { relayAdapter } from "../../src/relay/relay-adapter.js";
import { testBroker } from "../helpers.js";
import { notificationFor, UI } from "./relay-harness.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A relay that answers every answer poll 429 with `retryAfter`, noting when each poll came. */
async function busyRelay(retryAfter: string) {
  const polls: number[] = [];
  server = createServer((request, response) => {
    if (request.url?.startsWith("/v1/interaction-responses")) polls.push(performance.now());
    response.writeHead(429, { "retry-after": retryAfter, "content-type": "application/json" });
    response.end(JSON.stringify({ error: "rate_limited" }));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, polls };
}

describe("a relay's Retry-After in the broker's relay client (issue 31, item 4)", () => {
  it("a Retry-After past the timer limit waits the cap, not zero", async () => {
    const relay = await busyRelay("2147484");
    const broker = testBroker(
      {},
      {
        relayPoller: { baseBackoffMs: 10, maxBackoffMs: 50, maxServerDelayMs: 400, rescanMs: 50, random: () => 1 },
      },
    );
    const created = await broker.call(
      "POST",
      "/ui/api/outbound/providers",
      {
        kind: "relay",
        name: "busy",
        enabled: true,
        settings: { url: relay.url, installationId: "ins_busy" },
        secrets: { installationToken: "nri_busy" },
      },
      UI,
    );
    expect(created.status).toBe(201);
    const polls = await untilValue("three polls", () =>
      relay.polls.length >= 3 ? relay.polls.slice(0, 3) : undefined,
    );
    const gaps = polls.slice(1).map((at, index) => at - (polls[index] as number));
    // Each wait is the 400 ms cap: longer than the 10-50 ms backoff, far shorter than what the relay named.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(350);
    expect(broker.relayPoller.stats((created.body as { id: string }).id)?.lastCode).toBe("http_429");
  });

  it("the envelope adapter hands the outbox a 429's Retry-After, capped, from the device list too", async () => {
    const relay = await busyRelay("2147484");
    const result = await relayAdapter.send(
      notificationFor("ntf_1"),
      { url: relay.url, installationId: "ins_busy" },
      { installationToken: "nri_busy" },
      { idempotencyKey: "obx_busy_1", signal: AbortSignal.timeout(10_000) },
    );
    expect(result).toEqual({
      ok: false,
      retryable: true,
      code: "http_429",
      status: 429,
      retryAfterMs: MAX_SERVER_DELAY_MS,
    });
  });
});
