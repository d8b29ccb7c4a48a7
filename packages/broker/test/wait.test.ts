import type { Socket } from "node:net";
import { until } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { type Json, type TestBroker, testBroker } from "./helpers.js";

async function open(broker: TestBroker, extra: Record<string, unknown> = {}) {
  return (await broker.call("POST", "/v1/interactions/request", { prompt: "Deploy?", ...extra })).body as Json;
}
const answer = (interaction: Json, responseId = "r-1") => ({
  response_id: responseId,
  request_digest: interaction.request_digest,
  nonce: interaction.nonce,
  choice_id: "allow",
});

describe("GET /v1/interactions/{id}/wait (docs/api.md, 'GET /v1/interactions/{id}/wait')", () => {
  it("returns at once with 200 when the interaction is already terminal", async () => {
    const broker = testBroker();
    const created = await open(broker);
    await broker.call("POST", `/v1/interactions/${created.id}/respond`, answer(created));
    const started = Date.now();
    const reply = await broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=300`);
    expect(Date.now() - started).toBeLessThan(10_000); // not the 300 s wait
    expect(reply.status).toBe(200);
    expect((reply.body as Json).status).toBe("answered");
  });

  it("many waiters on one interaction all wake with the answer", async () => {
    const broker = testBroker();
    const created = await open(broker);
    const waits = Array.from({ length: 50 }, () =>
      broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=30`),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(broker.waiters.size()).toBe(50);
    await broker.call("POST", `/v1/interactions/${created.id}/respond`, answer(created));
    const replies = await Promise.all(waits);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect((reply.body as Json).status).toBe("answered");
      expect((reply.body as Json).response.choice_id).toBe("allow");
    }
    expect(broker.waiters.size()).toBe(0);
  });

  it("on timeout returns 200 with the still-pending interaction; the caller may wait again", async () => {
    const broker = testBroker();
    const created = await open(broker);
    const started = Date.now();
    const reply = await broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=1`);
    const elapsed = Date.now() - started;
    expect(reply.status).toBe(200);
    expect((reply.body as Json).status).toBe("pending");
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
    const again = broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=5`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await broker.call("POST", `/v1/interactions/${created.id}/cancel`);
    expect(((await again).body as Json).status).toBe("cancelled");
  });

  it("clamps timeout to 1-300 s: 0 and garbage do not return immediately", async () => {
    const broker = testBroker();
    const created = await open(broker);
    for (const timeout of ["0", "-5", "0.01"]) {
      const started = Date.now();
      await broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=${timeout}`);
      expect(Date.now() - started, timeout).toBeGreaterThanOrEqual(950);
    }
  });

  it("wakes waiters with expired when expires_at passes (the sweep wakes them)", async () => {
    const broker = testBroker();
    const created = await open(broker, { ttl_seconds: 30 });
    const waiting = broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=60`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    broker.clock.advance(30_000);
    broker.interactions.sweep();
    const reply = await waiting;
    expect((reply.body as Json).status).toBe("expired");
  });

  it("404 for an unknown id", async () => {
    const broker = testBroker();
    const reply = await broker.call("GET", "/v1/interactions/int_nope/wait?timeout=1");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: "interaction not found" });
  });

  it("shutdown answers open long-polls with the current state", async () => {
    const broker = testBroker();
    const created = await open(broker);
    const waiting = broker.call("GET", `/v1/interactions/${created.id}/wait?timeout=300`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    await broker.close();
    const reply = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000); // not the 300 s wait
    expect(reply.status).toBe(200);
    expect((reply.body as Json).status).toBe("pending");
  });
});

describe("long-poll over a real keep-alive connection", () => {
  it("repeated waits on one socket leave no close listeners behind; a hang-up stops the wait", async () => {
    const { startBroker } = await import("../src/broker.js");
    const { tempDir: dir } = await import("./helpers.js");
    const { Agent, request } = await import("undici");
    const broker = await startBroker({ dataDir: dir(), port: 0, env: { NOTIFY_TOKEN: "keepalive-token-123456" } });
    const agent = new Agent({ connections: 1 });
    const headers = { authorization: "Bearer keepalive-token-123456", "content-type": "application/json" };
    // The broker's end of every connection, to count the close listeners on the one socket the waits share.
    const sockets: Socket[] = [];
    broker.app.server.on("connection", (socket: Socket) => sockets.push(socket));
    try {
      const created = (await (
        await request(`${broker.url}/v1/interactions/request`, {
          method: "POST",
          headers,
          body: JSON.stringify({ prompt: "p" }),
          dispatcher: agent,
        })
      ).body.json()) as Json;
      expect(sockets).toHaveLength(1);
      const socket = sockets[0] as Socket;
      const before = socket.listenerCount("close");
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.name);
      process.on("warning", onWarning);
      // Each wait times out (1 s, the least) on the same keep-alive socket and takes its listener with it: counted
      // after every round (it was twelve rounds and the MaxListenersExceededWarning past ten, 12 s).
      for (let round = 0; round < 3; round++) {
        const replying = request(`${broker.url}/v1/interactions/${created.id}/wait?timeout=1`, {
          headers,
          dispatcher: agent,
        });
        // While the wait is held, its listeners are there (what the count below would see left behind).
        await until(() => broker.waiters.size() === 1);
        expect(socket.listenerCount("close")).toBeGreaterThan(before);
        const reply = await replying;
        expect(((await reply.body.json()) as Json).status).toBe("pending");
        expect(socket.listenerCount("close")).toBe(before);
      }
      expect(sockets).toHaveLength(1);
      process.off("warning", onWarning);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
      // A client that hangs up: the waiter is dropped.
      const controller = new AbortController();
      const pending = request(`${broker.url}/v1/interactions/${created.id}/wait?timeout=60`, {
        headers,
        signal: controller.signal,
      }).catch(() => undefined);
      for (let wait = 0; broker.waiters.size() === 0 && wait < 100; wait++) await new Promise((r) => setTimeout(r, 10));
      expect(broker.waiters.size()).toBe(1);
      controller.abort();
      await pending;
      for (let wait = 0; broker.waiters.size() > 0 && wait < 100; wait++) await new Promise((r) => setTimeout(r, 10));
      expect(broker.waiters.size()).toBe(0);
    } finally {
      await agent.close();
      await broker.close();
    }
  }, 30_000);
});
