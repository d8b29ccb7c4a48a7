import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ABANDON_GRACE_MS } from "../../src/interactions/waiters.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";

// Issue 31, item 7 (docs/mcp.md, "When the asker dies"): `abandon=cancel` withdraws a question nobody waits on any
// more, after a grace; without it, an interaction keeps the plain API's behaviour (docs/api.md, "Expiry sweeping") and
// waits for its TTL.

let broker: TestBroker;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  broker = testBroker();
});
afterEach(() => {
  vi.useRealTimers();
});

async function open(query = ""): Promise<string> {
  const reply = await broker.call("POST", `/v1/interactions/request${query}`, { prompt: "Deploy now?" });
  expect(reply.status).toBe(201);
  return (reply.body as Json).id;
}

const status = async (id: string): Promise<string> =>
  ((await broker.call("GET", `/v1/interactions/${id}`)).body as Json).status;

/** A long-poll as the route holds one, with the hang-up it reacts to. */
function waitOn(id: string, cancelWhenAbandoned: boolean): { hangUp: () => void; done: Promise<Json> } {
  let hangUp = (): void => {};
  const done = broker.waiters.wait(
    id,
    60_000,
    (stop) => {
      hangUp = stop;
    },
    { cancelWhenAbandoned },
  );
  return { hangUp: () => hangUp(), done };
}

describe("abandon=cancel", () => {
  it("opened with it and never waited on: withdrawn once the grace passes", async () => {
    const id = await open("?abandon=cancel");
    vi.advanceTimersByTime(ABANDON_GRACE_MS - 1);
    expect(await status(id)).toBe("pending");
    vi.advanceTimersByTime(1);
    expect(await status(id)).toBe("cancelled");
    expect(
      broker.lines.some((line) => line.includes(`withdrew interaction ${id}: nobody waited for it for 10 s`)),
    ).toBe(true);
  });

  it("a waiter holds it; its hang-up starts the grace; a new waiter inside the grace keeps it", async () => {
    const id = await open("?abandon=cancel");
    const first = waitOn(id, true);
    vi.advanceTimersByTime(ABANDON_GRACE_MS * 3);
    expect(await status(id)).toBe("pending");
    first.hangUp();
    await first.done;
    vi.advanceTimersByTime(ABANDON_GRACE_MS - 1);
    // The asker reconnects (a long-poll after a timeout, a retry): the grace is over.
    const second = waitOn(id, true);
    vi.advanceTimersByTime(ABANDON_GRACE_MS * 3);
    expect(await status(id)).toBe("pending");
    second.hangUp();
    await second.done;
    vi.advanceTimersByTime(ABANDON_GRACE_MS);
    expect(await status(id)).toBe("cancelled");
  });

  it("a wait with it opts in a question opened without (the next wait after a broker restart)", async () => {
    const id = await open();
    const wait = waitOn(id, true);
    wait.hangUp();
    await wait.done;
    vi.advanceTimersByTime(ABANDON_GRACE_MS);
    expect(await status(id)).toBe("cancelled");
  });

  it("without it, nothing changes: opened, waited on and hung up, it stays pending", async () => {
    const id = await open();
    vi.advanceTimersByTime(ABANDON_GRACE_MS * 3);
    const wait = waitOn(id, false);
    wait.hangUp();
    await wait.done;
    vi.advanceTimersByTime(ABANDON_GRACE_MS * 3);
    expect(await status(id)).toBe("pending");
  });

  it("an answer inside the grace stands; the route refuses any other value", async () => {
    const id = await open("?abandon=cancel");
    const current = (await broker.call("GET", `/v1/interactions/${id}`)).body as Json;
    const answered = await broker.call("POST", `/v1/interactions/${id}/respond`, {
      response_id: "r-1",
      request_digest: current.request_digest,
      nonce: current.nonce,
      choice_id: "allow",
    });
    expect(answered.status).toBe(200);
    vi.advanceTimersByTime(ABANDON_GRACE_MS);
    expect(await status(id)).toBe("answered");

    const refused = await broker.call("POST", "/v1/interactions/request?abandon=yes", { prompt: "p" });
    expect(refused).toMatchObject({ status: 400, body: { error: "abandon must be cancel" } });
    const wait = await broker.call("GET", `/v1/interactions/${id}/wait?timeout=1&abandon=never`);
    expect(wait).toMatchObject({ status: 400, body: { error: "abandon must be cancel" } });
  });
});
