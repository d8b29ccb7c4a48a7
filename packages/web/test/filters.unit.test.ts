import type { UiInteraction, UiNotification } from "@notify/contracts/ui";
import { describe, expect, it } from "vitest";
import type { InboxItem } from "../src/api/inbox-store.js";
import { distinct, matches, NO_FILTER, typeOf } from "../src/inbox/filters.js";

const notification = (fields: Record<string, unknown>): InboxItem => {
  const item = {
    id: "n1",
    type: "task_done",
    title: "Build finished",
    message: "All 42 tests passed",
    agent: "codex",
    project: "notify",
    status: "active",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  } as unknown as UiNotification;
  return { kind: "notification", key: `notification:${item.id}`, createdAt: item.createdAt, item };
};

const question = (fields: Record<string, unknown>): InboxItem => {
  const item = {
    id: "i1",
    prompt: "Run the migration?",
    agent: "claude-code",
    project: "shop",
    status: "pending",
    created_at: "2026-01-01T00:00:01.000Z",
    updated_at: "2026-01-01T00:00:01.000Z",
    ...fields,
  } as unknown as UiInteraction;
  return { kind: "interaction", key: `interaction:${item.id}`, createdAt: item.created_at, item };
};

describe("inbox filters", () => {
  const done = notification({});
  const read = notification({ id: "n2", status: "dismissed", type: "error", agent: "gemini", project: undefined });
  const ask = question({});
  const answered = question({ id: "i2", status: "answered" });
  const all = [done, read, ask, answered];

  it("a question is a type of its own; a notification has its own type", () => {
    expect(typeOf(done)).toBe("task_done");
    expect(typeOf(ask)).toBe("question");
  });

  it("no filter keeps everything", () => {
    expect(all.filter((entry) => matches(entry, NO_FILTER, ""))).toEqual(all);
  });

  it("unresolved keeps active notifications and pending questions only", () => {
    const unresolved = { ...NO_FILTER, unresolved: true };
    expect(all.filter((entry) => matches(entry, unresolved, ""))).toEqual([done, ask]);
  });

  it("status, type, project and agent each narrow by equality", () => {
    expect(all.filter((entry) => matches(entry, { ...NO_FILTER, status: "dismissed" }, ""))).toEqual([read]);
    expect(all.filter((entry) => matches(entry, { ...NO_FILTER, type: "question" }, ""))).toEqual([ask, answered]);
    expect(all.filter((entry) => matches(entry, { ...NO_FILTER, project: "notify" }, ""))).toEqual([done]);
    expect(all.filter((entry) => matches(entry, { ...NO_FILTER, agent: "gemini" }, ""))).toEqual([read]);
  });

  it("search looks in title, message, agent and project of a notification, prompt of a question", () => {
    // The caller lower-cases the search text once; the item's text is lower-cased here.
    expect(matches(done, NO_FILTER, "42 tests")).toBe(true);
    expect(matches(done, NO_FILTER, "build")).toBe(true);
    expect(matches(done, NO_FILTER, "notify")).toBe(true);
    expect(matches(ask, NO_FILTER, "migration")).toBe(true);
    expect(matches(ask, NO_FILTER, "shop")).toBe(true);
    expect(matches(ask, NO_FILTER, "build")).toBe(false);
    // A missing project is not the text "undefined".
    expect(matches(read, NO_FILTER, "undefined")).toBe(false);
  });

  it("distinct lists each value once, sorted, without empty ones", () => {
    expect(distinct(all, (entry) => entry.item.agent)).toEqual(["claude-code", "codex", "gemini"]);
    expect(distinct(all, (entry) => entry.item.project)).toEqual(["notify", "shop"]);
  });
});
