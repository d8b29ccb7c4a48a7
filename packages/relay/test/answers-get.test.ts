import { request } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOUR, ManualClock } from "../src/domain/clock.js";
import { type Enrolled, type Paired, RelayHarness, type Transport, until } from "./helpers.js";

/**
 * docs/relay.md, "`GET /v1/interaction-responses?installation_id=<id>&since=<cursor>[&wait=N]` (installation token)":
 * statuses, cursor rules and the first poll window.
 */
describe.each<Transport>(["inject", "socket"])("GET /v1/interaction-responses over %s", (transport) => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  let clock: ManualClock;
  let installation: Enrolled;
  let device: Paired;

  beforeEach(async () => {
    clock = new ManualClock(Date.now());
    relay = RelayHarness.sqlite({ clock });
    if (transport === "socket") await relay.listen();
    installation = await relay.enroll("laptop");
    device = await relay.pair(installation);
  });
  afterEach(async () => relay.close());

  const post = async (fields: Record<string, unknown> = {}) => {
    const body = relay.answer(device, installation, fields);
    expect((await relay.postAnswer(device, body)).status).toBe(201);
    return body;
  };

  it("200 {responses, next_cursor}: each element is the stored answer body plus received_at, in store order", async () => {
    const first = await post();
    const second = await post({ choice_id: undefined, text: "ship it" });
    delete second.choice_id;
    const reply = await relay.poll(installation);
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toMatch(/^application\/json/);
    const page = reply.json();
    expect(page.responses).toEqual([
      { ...first, received_at: new Date(clock.now()).toISOString() },
      { ...second, received_at: new Date(clock.now()).toISOString() },
    ]);
    expect(typeof page.next_cursor).toBe("string");
  });

  it("an empty page returns the same cursor verbatim; a new answer comes after it", async () => {
    await post();
    const first = (await relay.poll(installation)).json();
    const empty = (await relay.poll(installation, first.next_cursor)).json();
    expect(empty).toEqual({ responses: [], next_cursor: first.next_cursor });
    const later = await post();
    const next = (await relay.poll(installation, first.next_cursor)).json();
    expect(next.responses.map((row: { response_id: string }) => row.response_id)).toEqual([later.response_id]);
    expect(next.next_cursor).not.toBe(first.next_cursor);
  });

  it("a cursor just returned is not acknowledged: polling again with the old cursor replays the page", async () => {
    await post();
    const start = (await relay.poll(installation)).json();
    const a = await post();
    const page = (await relay.poll(installation, start.next_cursor)).json();
    const replay = (await relay.poll(installation, start.next_cursor)).json();
    expect(replay.responses).toEqual(page.responses);
    expect(replay.responses[0].response_id).toBe(a.response_id);
  });

  it("an empty since returns the last 24 hours only", async () => {
    const old = await post();
    clock.advance(25 * HOUR);
    const recent = await post();
    const page = (await relay.poll(installation)).json();
    expect(page.responses.map((row: { response_id: string }) => row.response_id)).toEqual([recent.response_id]);
    expect(page.responses.some((row: { response_id: string }) => row.response_id === old.response_id)).toBe(false);
    // The same with `since=` given but empty.
    expect((await relay.poll(installation, "")).json().responses).toHaveLength(1);
  });

  it("an empty first page gives a cursor that later serves what arrives", async () => {
    const empty = (await relay.poll(installation)).json();
    expect(empty.responses).toEqual([]);
    const body = await post();
    const page = (await relay.poll(installation, empty.next_cursor)).json();
    expect(page.responses[0].response_id).toBe(body.response_id);
  });

  it("401 {error: <string>} for a missing or wrong installation token (a device token is not one)", async () => {
    for (const headers of [{}, { authorization: "Bearer nri_wrong" }, { authorization: `Bearer ${device.token}` }]) {
      const reply = await relay.request({
        url: `/v1/interaction-responses?installation_id=${installation.installation_id}`,
        headers,
      });
      expect(reply.status).toBe(401);
      expect(reply.json()).toEqual({ error: "unauthorized" });
    }
  });

  it("403 {error: <string>} for another installation's answers", async () => {
    const other = await relay.enroll("other");
    const reply = await relay.request({
      url: `/v1/interaction-responses?installation_id=${other.installation_id}`,
      headers: { authorization: `Bearer ${installation.token}` },
    });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "forbidden" });
  });

  it("400 {error: <string>} for a cursor this relay did not make, or a bad wait", async () => {
    for (const since of ["garbage", "c1.bm9wZQ", "c1.WyJ4IiwxXQ"]) {
      const reply = await relay.poll(installation, since);
      expect(reply.status).toBe(400);
      expect(reply.json()).toEqual({ error: "invalid_cursor" });
    }
    expect((await relay.poll(installation, undefined, "&wait=soon")).status).toBe(400);
  });

  it("answers stay per installation", async () => {
    const other = await relay.enroll("other");
    const phone = await relay.pair(other);
    await relay.postAnswer(phone, relay.answer(phone, other));
    await post();
    const mine = (await relay.poll(installation)).json();
    expect(mine.responses).toHaveLength(1);
    expect(mine.responses[0].installation_id).toBe(installation.installation_id);
  });

  describe("wait=N (beyond the spec)", () => {
    it("holds the poll until an answer arrives and returns it at once", async () => {
      const empty = (await relay.poll(installation)).json();
      const started = performance.now();
      const held = relay.poll(installation, empty.next_cursor, "&wait=10");
      await until(() => relay.hub.size === 1);
      const body = await post();
      const page = (await held).json();
      expect(page.responses[0].response_id).toBe(body.response_id);
      expect(performance.now() - started).toBeLessThan(5000);
    });

    it("returns the empty page with the same cursor when the time is up", async () => {
      const empty = (await relay.poll(installation)).json();
      const started = performance.now();
      const page = (await relay.poll(installation, empty.next_cursor, "&wait=1")).json();
      expect(page).toEqual({ responses: [], next_cursor: empty.next_cursor });
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    });

    it("a client that goes away releases its held poll", async () => {
      if (transport !== "socket") return;
      const empty = (await relay.poll(installation)).json();
      const { port } = relay.app.server.address() as { port: number };
      const held = request({
        host: "127.0.0.1",
        port,
        path: `/v1/interaction-responses?since=${encodeURIComponent(empty.next_cursor)}&wait=30`,
        headers: { authorization: `Bearer ${installation.token}` },
      });
      held.on("error", () => undefined);
      held.end();
      await until(() => relay.hub.size === 1);
      held.destroy();
      await until(() => relay.hub.size === 0);
    });

    it("without wait the poll answers at once", async () => {
      const started = performance.now();
      expect((await relay.poll(installation)).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1000);
    });
  });
});
