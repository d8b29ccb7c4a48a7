import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import type { Json } from "../helpers.js";
import { startUiBroker, type UiBroker } from "./browser.js";

const open: UiBroker[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});
async function broker(dataDir?: string): Promise<UiBroker> {
  const ui = await startUiBroker(dataDir);
  open.push(ui);
  return ui;
}

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** A raw SSE reader: events as they arrive, and a way to wait for the n-th. */
function stream(ui: UiBroker, query: string, lastEventId?: string) {
  const events: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let buffer = "";
  const req = request(`${ui.broker.url}/ui/api/stream${query}`, {
    headers: { authorization: `Bearer ${ui.token}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });
  req.on("response", (response) => {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      buffer += chunk;
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event: SseEvent = {};
        for (const line of block.split("\n")) {
          const colon = line.indexOf(": ");
          if (colon <= 0) continue;
          const field = line.slice(0, colon) as keyof SseEvent;
          if (field === "id" || field === "event" || field === "data") event[field] = line.slice(colon + 2);
        }
        if (event.event) {
          events.push(event);
          for (const wake of waiters.splice(0)) wake();
        }
        cut = buffer.indexOf("\n\n");
      }
    });
  });
  req.on("error", () => {});
  req.end();
  return {
    events,
    async count(n: number): Promise<SseEvent[]> {
      while (events.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return events.slice(0, n);
    },
    close: () => req.destroy(),
  };
}

const notify = (ui: UiBroker, title: string) =>
  ui.v1<Json>("POST", "/notifications", { title, message: `${title} body` });

describe("GET /ui/api/stream", () => {
  it("sends created/changed/settled from the snapshot's cursor, and catches up after Last-Event-ID without duplicates", async () => {
    const ui = await broker();
    const before = (await notify(ui, "before")).body;
    const { cursor } = (await ui.ui<Json>("GET", "/inbox")).body;
    const after = (await notify(ui, "after snapshot")).body;

    const first = stream(ui, `?since=${cursor}`);
    const [created] = await first.count(1);
    expect(created?.event).toBe("created");
    expect(JSON.parse(created?.data ?? "")).toMatchObject({ kind: "notification", item: { id: after.id } });

    await ui.v1("PATCH", `/notifications/${before.id}`, { status: "dismissed" });
    const [, changed] = await first.count(2);
    expect(changed?.event).toBe("changed");
    expect(JSON.parse(changed?.data ?? "")).toMatchObject({ item: { id: before.id, status: "dismissed" } });
    first.close();

    // While the page is away: a question opens and is answered.
    const question = (
      await ui.v1<Json>("POST", "/interactions/request", { kind: "permission", prompt: "Run the migration?" })
    ).body;
    await ui.v1("POST", `/interactions/${question.id}/respond`, {
      response_id: "r1",
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "allow",
      source: "cli",
    });
    const again = stream(ui, `?since=${cursor}`, changed?.id);
    // A native question has a notification half (issue 12): its created and resolved events come too.
    const missed = await again.count(4);
    const ofQuestion = missed.filter((event) => JSON.parse(event.data ?? "").kind === "interaction");
    expect(ofQuestion.map((event) => event.event)).toEqual(["created", "settled"]);
    expect(ofQuestion.map((event) => JSON.parse(event.data ?? "").item.id)).toEqual([question.id, question.id]);
    const ofHalf = missed.filter((event) => JSON.parse(event.data ?? "").kind === "notification");
    expect(ofHalf.map((event) => JSON.parse(event.data ?? "").item.metadata?.interaction_id)).toEqual([
      question.id,
      question.id,
    ]);
    // Live events keep coming after the catch-up, numbered on from it.
    await notify(ui, "live");
    const all = await again.count(5);
    const ids = all.map((event) => Number(event.id?.split(".")[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(5);
    again.close();
  });

  it("tells a page holding an id from another broker run to reload (reset)", async () => {
    const ui = await broker();
    const reader = stream(ui, "", "deadbeef.12");
    const [reset] = await reader.count(1);
    expect(reset?.event).toBe("reset");
    reader.close();
  });

  it("ends open streams when the broker closes", async () => {
    const ui = await broker();
    const reader = stream(ui, "");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await ui.close();
    open.pop();
    expect(Date.now() - started).toBeLessThan(10_000); // a stream left open would hold close() forever
    reader.close();
  });
});

describe("GET /ui/api/inbox", () => {
  it("returns notifications and questions newest first, all or the newest `limit` of each", async () => {
    const ui = await broker();
    // Questions first: each opens its notification half (issue 12), older than the three below.
    await ui.v1("POST", "/interactions/request", { kind: "text", prompt: "first?" });
    await ui.v1("POST", "/interactions/request", { kind: "text", prompt: "second?" });
    for (const title of ["one", "two", "three"]) await notify(ui, title);
    const all = (await ui.ui<Json>("GET", "/inbox")).body;
    expect(all.notifications.map((n: Json) => n.title).slice(0, 3)).toEqual(["three", "two", "one"]);
    expect(all.notifications.slice(3).map((n: Json) => n.message)).toEqual(["second?", "first?"]);
    expect(all.interactions.map((i: Json) => i.prompt)).toEqual(["second?", "first?"]);
    expect(all.interactions[0].nonce).toEqual(expect.any(String));
    const newest = (await ui.ui<Json>("GET", "/inbox?limit=1")).body;
    expect(newest.notifications.map((n: Json) => n.title)).toEqual(["three"]);
    expect(newest.interactions.map((i: Json) => i.prompt)).toEqual(["second?"]);
    for (const bad of ["0", "10001", "x", "1.5"]) {
      expect((await ui.ui<Json>("GET", `/inbox?limit=${bad}`)).status, bad).toBe(400);
    }
  });
});

describe("/ui/api answers and status changes", () => {
  it("answers through the /v1 acceptance path with source desktop; a retry replays, another answer gets 409", async () => {
    const ui = await broker();
    const question = (
      await ui.v1<Json>("POST", "/interactions/request", {
        kind: "single_choice",
        prompt: "Which branch?",
        choices: [
          { id: "main", label: "main" },
          { id: "dev", label: "dev" },
        ],
      })
    ).body;
    const body = {
      response_id: "page-1",
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "dev",
    };
    const answered = await ui.ui<Json>("POST", `/interactions/${question.id}/respond`, body);
    expect(answered.status).toBe(200);
    expect(answered.body.response).toMatchObject({ response_id: "page-1", choice_id: "dev", source: "desktop" });
    const replay = await ui.ui<Json>("POST", `/interactions/${question.id}/respond`, body);
    expect(replay.status).toBe(200);
    expect(replay.body.response.created_at).toBe(answered.body.response.created_at);
    const other = await ui.ui<Json>("POST", `/interactions/${question.id}/respond`, {
      ...body,
      response_id: "page-2",
      choice_id: "main",
    });
    expect(other.status).toBe(409);
    // The page cannot pick its own source.
    const spoofed = await ui.ui<Json>("POST", `/interactions/${question.id}/respond`, { ...body, source: "relay" });
    expect(spoofed.status).toBe(400);
    expect(spoofed.body.error).toMatch(/source/);
    expect((await ui.ui<Json>("POST", "/interactions/int_missing/respond", body)).status).toBe(404);
  });

  it("dismisses, resolves and reopens with the spec's transitions", async () => {
    const ui = await broker();
    const created = (await notify(ui, "Build failed")).body;
    const path = `/notifications/${created.id}`;
    expect((await ui.ui<Json>("PATCH", path, { status: "dismissed" })).body.status).toBe("dismissed");
    expect((await ui.ui<Json>("PATCH", path, { status: "resolved" })).status).toBe(400);
    expect((await ui.ui<Json>("PATCH", path, { status: "active" })).body.status).toBe("active");
    expect((await ui.ui<Json>("PATCH", path, { status: "resolved" })).body.status).toBe("resolved");
    expect((await ui.ui<Json>("PATCH", path, { status: "open" })).status).toBe(400);
    expect((await ui.ui<Json>("PATCH", "/notifications/ntf_missing", { status: "active" })).body).toEqual({
      error: "notification not found",
    });
  });
});

describe("/ui/api/presentation", () => {
  it("keeps the spec's keys in config.json, checks their ranges, and tells listeners", async () => {
    const ui = await broker();
    expect((await ui.ui<Json>("GET", "/presentation")).body).toEqual({
      pauseNotifications: false,
      doNotDisturb: false,
      soundsEnabled: true,
      playCriticalSoundsDuringDoNotDisturb: true,
      volume: 70,
      maxVisibleToasts: 5,
      soundCommand: null,
    });
    const seen: Json[] = [];
    ui.broker.presentation.onChange((settings) => seen.push(settings));
    for (const bad of [
      { volume: 101 },
      { volume: -1 },
      { maxVisibleToasts: 0 },
      { maxVisibleToasts: 21 },
      { volume: 5.5 },
      { doNotDisturb: "yes" },
      { sounds: true },
    ]) {
      const refused = await ui.ui<Json>("PUT", "/presentation", bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(typeof refused.body.error).toBe("string");
    }
    const saved = await ui.ui<Json>("PUT", "/presentation", {
      doNotDisturb: true,
      volume: 0,
      maxVisibleToasts: 20,
      soundCommand: "paplay --volume 30000",
    });
    expect(saved.body).toMatchObject({ doNotDisturb: true, volume: 0, maxVisibleToasts: 20, soundsEnabled: true });
    expect(seen).toHaveLength(1);
    expect(readConfigFile(ui.dataDir)).toMatchObject({
      doNotDisturb: true,
      volume: 0,
      maxVisibleToasts: 20,
      soundCommand: "paplay --volume 30000",
    });

    await ui.close();
    open.pop();
    const restarted = await broker(ui.dataDir);
    expect((await restarted.ui<Json>("GET", "/presentation")).body).toMatchObject({
      doNotDisturb: true,
      volume: 0,
      maxVisibleToasts: 20,
    });
    expect((await restarted.ui<Json>("PUT", "/presentation", { soundCommand: null })).body.soundCommand).toBeNull();
    expect(readConfigFile(ui.dataDir).soundCommand).toBeUndefined();
  });
});
