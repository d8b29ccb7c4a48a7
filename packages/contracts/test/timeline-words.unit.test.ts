import { describe, expect, it } from "vitest";
import { ItemTimeline, type TimelineEntry, timelineLine } from "../src/ui/index.js";

// Issue 24 item 5 (docs/routing.md, "The delivery timeline"): each entry as one plain-language line.

const time = (iso: string) => iso.slice(11, 19);
const phone = { id: "rte_1", name: "Phone", provider_kind: "ntfy" };
const relay = { id: "rte_3", name: "questions", provider_kind: "relay" };
const at = "2026-01-14T12:00:00.000Z";

describe("timelineLine", () => {
  const cases: [TimelineEntry, string][] = [
    [{ event: "created", at, subject: "interaction" }, "Question asked"],
    [{ event: "created", at, subject: "notification" }, "Notification created"],
    [{ event: "toast", at, state: "shown" }, "Shown as a desktop notification"],
    [{ event: "toast", at, state: "closed", reason: "dismissed" }, "Desktop notification dismissed"],
    [{ event: "toast", at, state: "closed", reason: "expired" }, "Desktop notification timed out"],
    [{ event: "toast", at, state: "closed", reason: "closed" }, "Desktop notification closed"],
    [{ event: "toast", at, state: "closed" }, "Desktop notification closed"],
    [
      { event: "held", at, route: phone, reason: "delay", until: "2026-01-14T12:02:00.000Z", presence: "present" },
      "Held for Phone (ntfy) until 12:02:00 because you were at the computer",
    ],
    [
      { event: "held", at, route: phone, reason: "delay", until: "2026-01-14T12:02:00.000Z" },
      "Held for Phone (ntfy) until 12:02:00 (its delay)",
    ],
    [
      { event: "held", at, route: phone, reason: "presence", until: null, presence: "present" },
      "Held for Phone (ntfy) until you were away",
    ],
    [
      { event: "held", at, route: phone, reason: "quiet_hours", until: "2026-01-15T07:00:00.000Z" },
      "Held for Phone (ntfy) until 07:00:00 (quiet hours)",
    ],
    [
      {
        event: "delivery",
        at,
        route: phone,
        outcome: "sent",
        attempts: 1,
        because: "presence",
        presence: "away",
      },
      "Sent to Phone (ntfy) because you were away",
    ],
    [
      { event: "delivery", at, route: phone, outcome: "sent", attempts: 3, because: "delay_elapsed" },
      "Sent to Phone (ntfy) because it was still open after the delay (after 3 tries)",
    ],
    [
      {
        event: "delivery",
        at,
        route: { id: "rte_2" },
        outcome: "retrying",
        attempts: 2,
        because: "immediate",
        last_status: 503,
        next_attempt_at: "2026-01-14T12:03:00.000Z",
      },
      "Sending to a deleted route failed (HTTP 503, 2 tries); next try at 12:03:00",
    ],
    [
      {
        event: "delivery",
        at,
        route: phone,
        outcome: "failed",
        attempts: 1,
        because: "immediate",
        last_code: "provider_kind_unsupported",
      },
      "Could not send to Phone (ntfy) (provider_kind_unsupported); gave up after 1 try",
    ],
    [{ event: "not_sent", at, route: phone, reason: "settled" }, "Not sent to Phone (ntfy): settled before its time"],
    // Receipts (issue 37 item 3; docs/relay.md, "Receipts"): each hop on the phone, and a chat message's edit.
    [
      { event: "receipt", at, route: relay, state: "fetched", device_id: "dev_1" },
      "Fetched by the phone (questions (relay))",
    ],
    [
      { event: "receipt", at, route: relay, state: "shown", device_id: "dev_1" },
      "Shown on the phone (questions (relay))",
    ],
    [
      { event: "receipt", at, route: relay, state: "opened", device_id: "dev_1" },
      "Opened on the phone (questions (relay))",
    ],
    [{ event: "edited", at, surface: "telegram" }, "Message in Telegram edited to show the outcome"],
    [{ event: "edited", at, surface: "slack" }, "Message in Slack edited to show the outcome"],
    [
      { event: "settled", at, status: "answered", source: "relay", choice_label: "Allow" },
      "Answered “Allow” on the phone",
    ],
    [
      { event: "settled", at, status: "answered", source: "desktop", answered_via: "ui" },
      "Answered from this computer's web page",
    ],
    [{ event: "settled", at, status: "expired" }, "Expired without an answer"],
    // A follow-up (docs/hooks.md, "Follow-ups"): the reply names its surface; withdrawn when the session went on.
    [
      { event: "settled", at, status: "answered", source: "phone", follow_up: true },
      "Reply from phone: sent to the agent",
    ],
    [{ event: "settled", at, status: "cancelled", follow_up: true }, "Withdrawn: no reply needed"],
    [{ event: "settled", at, status: "cancelled" }, "Cancelled by the agent"],
    [{ event: "settled", at, status: "expired", follow_up: true }, "No reply in the window: the turn ended"],
  ];
  for (const [entry, line] of cases) {
    it(line, () => {
      expect(timelineLine(entry, time)).toBe(line);
      // Every example is a valid entry of the contract.
      expect(ItemTimeline.safeParse({ entries: [entry] }).success).toBe(true);
    });
  }

  it("the schema refuses an unknown event and a field it does not name", () => {
    expect(ItemTimeline.safeParse({ entries: [{ event: "toast_shown", at }] }).success).toBe(false);
    expect(
      ItemTimeline.safeParse({ entries: [{ event: "receipt", at, route: relay, state: "read", device_id: "d" }] })
        .success,
    ).toBe(false);
    expect(
      ItemTimeline.safeParse({ entries: [{ event: "created", at, subject: "interaction", url: "x" }] }).success,
    ).toBe(false);
  });
});
