// Issue 34, item 1: the answer surfaces' words, one list the timeline, the outcome lines and the provider form read.
import { describe, expect, it } from "vitest";
import { ANSWER_SURFACES, answerSurfaceOfKind, answerSurfaceOfSource } from "../src/ui/answer-surfaces.js";
import { answeredFrom } from "../src/ui/timeline-words.js";

describe("answer surfaces in words", () => {
  it("the timeline says where each surface's answer came from", () => {
    expect(answeredFrom("discord", undefined)).toBe("in Discord");
    expect(answeredFrom("telegram", undefined)).toBe("in Telegram");
    expect(answeredFrom("slack", undefined)).toBe("in Slack");
    expect(answeredFrom("relay", undefined)).toBe("on the phone");
    expect(answeredFrom("phone", undefined)).toBe("on the phone");
    expect(answeredFrom("host-7", undefined)).toBe("by host-7");
  });

  it("one entry a kind and a source word; every chat app has a settings example that parses", () => {
    expect(new Set(ANSWER_SURFACES.map((surface) => surface.kind)).size).toBe(ANSWER_SURFACES.length);
    expect(new Set(ANSWER_SURFACES.map((surface) => surface.source)).size).toBe(ANSWER_SURFACES.length);
    expect(answerSurfaceOfKind("discord_app")).toMatchObject({ source: "discord", label: "Discord" });
    expect(answerSurfaceOfSource("discord")?.kind).toBe("discord_app");
    for (const surface of ANSWER_SURFACES.filter((entry) => entry.kind !== "relay")) {
      expect(typeof JSON.parse(surface.settings?.example ?? "")).toBe("object");
    }
  });
});
