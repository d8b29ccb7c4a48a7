import { describe, expect, it } from "vitest";
import type { Upstream } from "../src/index.js";
import {
  destinationProblem,
  FLAT_PLAN_BASES,
  isFlatPlanUrl,
  PRESETS,
  presetBySlug,
  presetForBaseUrl,
  ruleWireFor,
  wireModels,
} from "../src/index.js";
import { costKind } from "../src/smart-switching.js";
import { upstreamRecord } from "./helpers.js";

/** The preset catalogue (docs/router.md, "Presets"): the table's counts, base URLs and the per-model wire rules. */

const hasOtherWires = (slug: string): boolean =>
  (presetBySlug(slug)?.prefix_rules ?? []).some((rule) => rule.wire !== null);

describe("catalogue", () => {
  it("holds fifteen presets with unique slugs that are valid upstream slugs", () => {
    expect(PRESETS).toHaveLength(15);
    expect(new Set(PRESETS.map((preset) => preset.slug)).size).toBe(15);
    for (const preset of PRESETS) expect(preset.slug).toMatch(/^[a-z0-9][a-z0-9-]{0,31}$/);
  });

  it("counts kinds and wires exactly as the spec's table", () => {
    const row = (predicate: (preset: (typeof PRESETS)[number]) => boolean) => PRESETS.filter(predicate);
    const subscriptions = row((preset) => preset.kind === "subscription");
    expect(subscriptions.map((preset) => preset.auth).sort()).toEqual(["plan_signin_a", "plan_signin_b"]);
    expect(subscriptions.every((preset) => preset.wire === "responses_wire")).toBe(true);

    const flat = row((preset) => preset.kind === "flat_plan");
    expect(flat).toHaveLength(1);
    expect(flat[0]?.wire).toBe("chat_wire");
    expect(flat[0]?.needs_key).toBe(true);
    expect(hasOtherWires(flat[0]?.slug ?? "")).toBe(true);

    const perToken = row((preset) => preset.kind === "per_token");
    const gateways = perToken.filter((preset) => hasOtherWires(preset.slug));
    expect(gateways).toHaveLength(1);
    expect(gateways[0]?.wire).toBe("chat_wire");
    const plain = perToken.filter((preset) => !hasOtherWires(preset.slug));
    expect(plain.filter((preset) => preset.wire === "responses_wire")).toHaveLength(2);
    expect(plain.filter((preset) => preset.wire === "messages_wire")).toHaveLength(1);
    const chat = plain.filter((preset) => preset.wire === "chat_wire");
    expect(chat).toHaveLength(6);
    expect(chat.filter((preset) => preset.aggregator === true)).toHaveLength(1);
    expect(PRESETS.filter((preset) => preset.aggregator === true)).toHaveLength(1);

    const local = row((preset) => preset.kind === "local");
    expect(local).toHaveLength(2);
    expect(local.every((preset) => preset.wire === "chat_wire" && !preset.needs_key)).toBe(true);
    expect(subscriptions.length + flat.length + perToken.length + local.length).toBe(15);
  });

  it("every base URL passes the destination rule; local servers are on loopback, the rest https", () => {
    for (const preset of PRESETS) {
      expect(destinationProblem(preset.base_url), preset.slug).toBeUndefined();
      const url = new URL(preset.base_url);
      if (preset.kind === "local") {
        expect(url.protocol).toBe("http:");
        expect(url.hostname).toBe("127.0.0.1");
      } else {
        expect(url.protocol).toBe("https:");
      }
      expect(preset.source.length).toBeGreaterThan(10);
    }
  });

  it("subscriptions need no key and read the host tool's cached list; others fetch the provider's", () => {
    for (const preset of PRESETS) {
      expect(preset.model_list).toBe(preset.kind === "subscription" ? "host_cache" : "provider");
      if (preset.kind === "subscription") expect(preset.needs_key).toBe(false);
    }
    expect(presetBySlug("openai")?.key_sources).toEqual(["codex"]);
    expect(presetBySlug("anthropic")?.key_sources).toEqual(["claude_code"]);
  });

  it("finds a preset by its base URL, trailing slash and case aside", () => {
    expect(presetForBaseUrl("https://opencode.ai/zen/go/v1/")?.slug).toBe("opencode-go");
    expect(presetForBaseUrl("https://OPENCODE.ai/zen/v1")?.slug).toBe("opencode-zen");
    expect(presetForBaseUrl("https://example.com/v1")).toBeUndefined();
  });
});

describe("prefix rules -> model_wires", () => {
  it("the gateway: claude and qwen on messages, gpt on responses, gemini left out, the rest chat", () => {
    const zen = presetBySlug("opencode-zen");
    if (!zen) throw new Error("no zen preset");
    const wired = wireModels(zen.prefix_rules, zen.wire, [
      "claude-sonnet-4-6",
      "qwen3.6-plus",
      "gpt-5.4",
      "gemini-3-flash",
      "kimi-k2.5",
      "glm-5",
      "claude-sonnet-4-6",
    ]);
    expect(wired).toEqual({
      models: ["claude-sonnet-4-6", "qwen3.6-plus", "gpt-5.4", "kimi-k2.5", "glm-5"],
      model_wires: {
        "claude-sonnet-4-6": "messages_wire",
        "qwen3.6-plus": "messages_wire",
        "gpt-5.4": "responses_wire",
      },
      left_out: ["gemini-3-flash"],
    });
  });

  it("the flat plan: minimax on messages (its extra family), grok and gpt on responses", () => {
    const go = presetBySlug("opencode-go");
    if (!go) throw new Error("no go preset");
    expect(ruleWireFor(go.prefix_rules, go.wire, "MiniMax-M2.7")).toBe("messages_wire");
    expect(ruleWireFor(go.prefix_rules, go.wire, "grok-4.5")).toBe("responses_wire");
    expect(ruleWireFor(go.prefix_rules, go.wire, "glm-5.1")).toBe("chat_wire");
    // A vendor path prefix is ignored when matching.
    expect(ruleWireFor(go.prefix_rules, go.wire, "opencode-go/minimax-m3")).toBe("messages_wire");
  });

  it("single-wire services leave out models that take no conversation", () => {
    const openai = presetBySlug("openai");
    if (!openai) throw new Error("no openai preset");
    const wired = wireModels(openai.prefix_rules, openai.wire, ["gpt-5.2", "text-embedding-3-small", "whisper-1"]);
    expect(wired.models).toEqual(["gpt-5.2"]);
    expect(wired.model_wires).toEqual({});
    expect(wired.left_out).toEqual(["text-embedding-3-small", "whisper-1"]);
  });
});

describe("cost kind of a preset's upstream (smart switching rule 2)", () => {
  const record = (slug: string): Upstream => {
    const preset = presetBySlug(slug);
    if (!preset) throw new Error(slug);
    return upstreamRecord(slug, [], {
      label: preset.label,
      wire: preset.wire,
      base_url: preset.base_url,
      auth: preset.auth,
      created_at: "",
    });
  };

  it("matches each preset's declared kind, the flat plan by its path on a shared host", () => {
    expect([...FLAT_PLAN_BASES]).toEqual(["opencode.ai/zen/go/v1"]);
    for (const preset of PRESETS) expect(costKind(record(preset.slug)), preset.slug).toBe(preset.kind);
    // The gateway shares the flat plan's host but bills per token.
    expect(costKind(record("opencode-zen"))).toBe("per_token");
    expect(isFlatPlanUrl("https://opencode.ai/zen/go/v1")).toBe(true);
    expect(isFlatPlanUrl("https://opencode.ai/zen/go/v1/chat/completions")).toBe(true);
    expect(isFlatPlanUrl("https://opencode.ai/zen/v1")).toBe(false);
    expect(isFlatPlanUrl("https://opencode.ai/zen/gopher/v1")).toBe(false);
    expect(isFlatPlanUrl("not a url")).toBe(false);
  });
});
