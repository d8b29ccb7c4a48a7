import type { TimelineEntry } from "@notify/contracts/ui";
import { describe, expect, it } from "vitest";
import { nextLook } from "../src/inbox/item-timeline.js";

// Issue 24 item 5: a delivery changes only the outbox, which the stream does not carry, so the detail page looks
// again on its own while one is under way.

const now = Date.parse("2026-01-14T12:00:00.000Z");
const at = "2026-01-14T12:00:00.000Z";
const phone = { id: "rte_1", name: "Phone", provider_kind: "ntfy" };
const held: TimelineEntry = { event: "held", at, route: phone, reason: "delay", until: "2026-01-14T12:00:02.000Z" };

describe("nextLook", () => {
  it("waits until just after a held entry's due time", () => {
    expect(nextLook([{ event: "created", at, subject: "interaction" }, held], now)).toBe(2_500);
  });

  it("does not wait for a hold that was released or a presence-only hold", () => {
    const sent: TimelineEntry = {
      event: "delivery",
      at,
      route: phone,
      outcome: "sent",
      attempts: 1,
      because: "delay_elapsed",
    };
    expect(nextLook([held, sent], now)).toBeUndefined();
    expect(nextLook([{ ...held, reason: "presence", until: null }], now)).toBeUndefined();
  });

  it("looks every few seconds while sending, and after a retry's next try", () => {
    const sending: TimelineEntry = {
      event: "delivery",
      at,
      route: phone,
      outcome: "sending",
      attempts: 0,
      because: "immediate",
    };
    expect(nextLook([sending], now)).toBe(3_000);
    const retrying: TimelineEntry = {
      ...sending,
      outcome: "retrying",
      attempts: 1,
      next_attempt_at: "2026-01-14T12:00:10.000Z",
    };
    expect(nextLook([retrying], now)).toBe(10_500);
    // Never longer than a minute, never negative.
    expect(nextLook([{ ...held, until: "2026-01-15T00:00:00.000Z" }], now)).toBe(60_000);
    expect(nextLook([{ ...held, until: "2026-01-14T11:00:00.000Z" }], now)).toBe(500);
  });

  it("looks for a phone's receipts for a few minutes after a relay delivery, until the phone opened it", () => {
    const relay = { id: "rte_9", name: "questions", provider_kind: "relay" };
    const sent: TimelineEntry = {
      event: "delivery",
      at,
      route: relay,
      outcome: "sent",
      attempts: 1,
      because: "immediate",
    };
    expect(nextLook([sent], now)).toBe(3_000);
    expect(nextLook([sent], now + 6 * 60_000)).toBeUndefined();
    const opened: TimelineEntry = { event: "receipt", at, route: relay, state: "opened", device_id: "dev_1" };
    expect(nextLook([sent, opened], now)).toBeUndefined();
    // Another provider kind has no receipts to wait for.
    expect(nextLook([{ ...sent, route: phone }], now)).toBeUndefined();
  });
});
