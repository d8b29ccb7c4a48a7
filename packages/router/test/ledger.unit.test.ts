import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { migrateRouterDatabase } from "../src/config/store.js";
import { type AttemptRecord, Ledger, type RequestRecord, requestId } from "../src/ledger/ledger.js";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-01T00:00:00Z");

function request(id: string, startedMs: number): RequestRecord {
  return {
    id,
    started_at: new Date(startedMs).toISOString(),
    finished_at: new Date(startedMs + 5).toISOString(),
    inbound_wire: "chat",
    requested_model: "m",
    route_kind: "explicit",
    route_name: null,
    upstream_slug: "up",
    upstream_model: "m",
    stream: false,
    status: 200,
    outcome: "ok",
    tokens: { input: 1, cached_input: 0, output: 2, reasoning: 0 },
    usage_status: "reported",
    error_code: null,
    notes: ["tools_dropped"],
  };
}

function attempt(requestId: string, startedMs: number): AttemptRecord {
  return {
    request_id: requestId,
    ordinal: 1,
    upstream_slug: "up",
    model: "m",
    upstream_wire: "chat",
    status: 200,
    error_code: null,
    duration_ms: 5,
    bytes_streamed: true,
    started_at: new Date(startedMs).toISOString(),
  };
}

describe("ledger (docs/router.md, 'Ledger')", () => {
  it("keeps one request with its attempts, newest first, and prunes rows past the retention period", () => {
    const db = new DatabaseSync(":memory:");
    migrateRouterDatabase(db);
    const ledger = new Ledger(db);
    for (const [id, age] of [
      ["old", 31 * DAY],
      ["edge", 30 * DAY - 1000],
      ["new", DAY],
    ] as const) {
      ledger.record(request(id, NOW - age), [attempt(id, NOW - age)]);
    }
    const before = ledger.activity(10);
    expect(before.map((row) => row.id)).toEqual(["new", "edge", "old"]);
    expect(before[0]).toMatchObject({ notes: ["tools_dropped"], tokens: { input: 1, output: 2 }, stream: false });
    expect(before[0]?.attempts).toEqual([expect.objectContaining({ ordinal: 1, bytes_streamed: true, status: 200 })]);

    expect(ledger.prune(30, NOW)).toBe(1);
    const after = ledger.activity(10);
    expect(after.map((row) => row.id)).toEqual(["new", "edge"]);
    const attempts = db.prepare("SELECT request_id FROM attempts ORDER BY request_id").all() as {
      request_id: string;
    }[];
    expect(attempts.map((row) => row.request_id)).toEqual(["edge", "new"]);
    expect(ledger.prune(1, NOW)).toBe(1);
    expect(ledger.activity(10).map((row) => row.id)).toEqual(["new"]);
  });
});

describe("request ids", () => {
  it("are req_ and 24 hex digits, ordered by start time and distinct within one millisecond", () => {
    const ids = [NOW, NOW + 1, NOW + 1, NOW + 1, NOW + 60_000, NOW + DAY].map((ms) => requestId(ms));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const [first, second, , , third, fourth] = ids as [string, string, string, string, string, string];
    expect(first < second && second < third && third < fourth).toBe(true);
    expect(requestId(0)).toMatch(/^req_000000000000[0-9a-f]{12}$/);
  });
});
