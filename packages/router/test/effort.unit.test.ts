import { describe, expect, it } from "vitest";
import {
  automaticTable,
  EFFORT_FAMILIES,
  effortTable,
  familyOf,
  mapEffort,
  overrideProblem,
  readEffort,
  writeEffort,
} from "../src/index.js";

/**
 * Effort mapping (docs/router.md, "Effort mapping") as pure functions: families, automatic tables, decisions,
 * overrides, wire fields.
 */

const family = (id: string) => {
  const found = EFFORT_FAMILIES.find((candidate) => candidate.id === id);
  if (!found) throw new Error(id);
  return found;
};

describe("families by model ID", () => {
  it("has ten, matched by model ID without a vendor prefix, case ignored", () => {
    expect(EFFORT_FAMILIES).toHaveLength(10);
    expect(new Set(EFFORT_FAMILIES.map((entry) => entry.id)).size).toBe(10);
    const cases: [string, string | undefined][] = [
      ["claude-opus-4-7", "claude-xhigh"],
      ["claude-sonnet-5", "claude-xhigh"],
      ["anthropic/Claude-Opus-4-6", "claude-max"],
      ["claude-sonnet-4-6-20260101", "claude-max"],
      ["claude-opus-4-5-20251101", "claude-opus-4-5"],
      ["claude-sonnet-4-5", "claude-no-effort"],
      ["claude-haiku-4-5", "claude-no-effort"],
      ["gpt-5.2", "gpt-xhigh"],
      ["openai/gpt-5.1-codex-max", "gpt-xhigh"],
      ["gpt-5.1-codex", "gpt-5.1"],
      ["gpt-5-mini", "gpt-5"],
      ["gpt-5", "gpt-5"],
      ["o3", "openai-reasoning"],
      ["o4-mini", "openai-reasoning"],
      ["gpt-oss-120b", "openai-reasoning"],
      ["gemini-3-pro-preview", "gemini-3"],
      ["grok-3-mini", "grok-mini"],
      ["gpt-4o", undefined],
      ["llama3", undefined],
    ];
    for (const [model, id] of cases) expect(familyOf(model)?.id, model).toBe(id);
  });
});

describe("automatic tables", () => {
  it("identity where names match, levels above the top collapse onto it", () => {
    expect(automaticTable(family("claude-opus-4-5")).levels).toEqual({
      low: "low",
      medium: "medium",
      high: "high",
      xhigh: "high",
      max: "high",
    });
    expect(automaticTable(family("claude-xhigh")).levels).toEqual({
      low: "low",
      medium: "medium",
      high: "high",
      xhigh: "xhigh",
      max: "max",
    });
    expect(automaticTable(family("gpt-xhigh")).levels.max).toBe("xhigh");
  });

  it("a level between two accepted values takes the next one up; a model without effort omits every level", () => {
    expect(automaticTable(family("gemini-3")).levels).toEqual({
      low: "low",
      medium: "high",
      high: "high",
      xhigh: "high",
      max: "high",
    });
    expect(automaticTable(family("claude-max")).levels.xhigh).toBe("max");
    expect(Object.values(automaticTable(family("claude-no-effort")).levels)).toEqual([null, null, null, null, null]);
  });
});

describe("one request's decision", () => {
  const gpt5 = effortTable("gpt-5");
  const gpt51 = effortTable("gpt-5.1");
  const o3 = effortTable("o3");
  const claude = effortTable("claude-opus-4-5");

  it("normalizes the five names and maps them", () => {
    expect(mapEffort(" MAX ", gpt5)).toEqual({ kind: "set", value: "high" });
    expect(mapEffort("Medium", claude)).toEqual({ kind: "set", value: "medium" });
  });

  it("another value goes verbatim when the target accepts it, minimal counts as low, else the default", () => {
    expect(mapEffort("minimal", gpt5)).toEqual({ kind: "set", value: "minimal" });
    expect(mapEffort("none", gpt51)).toEqual({ kind: "set", value: "none" });
    expect(mapEffort("minimal", o3)).toEqual({ kind: "set", value: "low" });
    expect(mapEffort("minimal", claude)).toEqual({ kind: "set", value: "low" });
    expect(mapEffort("none", claude)).toEqual({ kind: "omit" });
    expect(mapEffort("turbo", effortTable("gpt-5", { family: { default: "medium" } }))).toEqual({
      kind: "set",
      value: "medium",
    });
  });

  it("an unknown model omits effort; no effort asked takes the default when there is one", () => {
    expect(mapEffort("high", effortTable("llama3"))).toEqual({ kind: "omit" });
    expect(mapEffort(undefined, gpt5)).toEqual({ kind: "omit" });
    expect(mapEffort(undefined, effortTable("gpt-5", { family: { default: "low" } }))).toEqual({
      kind: "set",
      value: "low",
    });
  });

  it("precedence: per-model override, then family override, then automatic", () => {
    const table = effortTable("gpt-5", {
      family: { levels: { max: "medium", xhigh: "medium", high: "medium" }, default: "low" },
      model: { levels: { max: null }, default: "minimal" },
    });
    expect(mapEffort("max", table)).toEqual({ kind: "omit" });
    expect(mapEffort("xhigh", table)).toEqual({ kind: "set", value: "medium" });
    expect(mapEffort("low", table)).toEqual({ kind: "set", value: "low" });
    expect(mapEffort(undefined, table)).toEqual({ kind: "set", value: "minimal" });
  });
});

describe("override sets are bounded and monotonic", () => {
  const gpt5 = automaticTable(family("gpt-5"));

  it("accepts values the family accepts, and explicit omit", () => {
    expect(overrideProblem({ levels: { low: "minimal", max: null }, default: null }, gpt5)).toBeUndefined();
    expect(overrideProblem({ levels: { high: "medium", xhigh: "medium", max: "medium" } }, gpt5)).toBeUndefined();
  });

  it("refuses values outside the family (bounded)", () => {
    expect(overrideProblem({ levels: { max: "xhigh" } }, gpt5)).toMatch(/not accepted/);
    expect(overrideProblem({ default: "ultra" }, gpt5)).toMatch(/not accepted/);
    expect(overrideProblem({ levels: { max: "anything" } }, automaticTable(family("claude-no-effort")))).toMatch(
      /not accepted/,
    );
  });

  it("refuses a map where a higher level gets less (monotonic), over what lies below it", () => {
    expect(overrideProblem({ levels: { max: "medium" } }, gpt5)).toMatch(/not monotonic/);
    expect(overrideProblem({ levels: { low: "high" } }, gpt5)).toMatch(/not monotonic/);
    // A per-model set on top of a family set that already lowered the top levels.
    const familySet = { levels: { high: "medium" as const, xhigh: "medium" as const, max: "medium" as const } };
    expect(overrideProblem({ levels: { medium: "low" } }, gpt5, [familySet])).toBeUndefined();
    expect(overrideProblem({ levels: { low: "high" } }, gpt5, [familySet])).toMatch(/not monotonic/);
  });

  it("bounds a model of no family to the five names", () => {
    expect(overrideProblem({ levels: { low: "low" } }, undefined)).toBeUndefined();
    expect(overrideProblem({ levels: { low: "none" } }, undefined)).toMatch(/not accepted/);
  });
});

describe("wire fields", () => {
  it("reads each wire's own field", () => {
    expect(readEffort("messages", { output_config: { effort: "high" } })).toBe("high");
    expect(readEffort("responses", { reasoning: { effort: "low" } })).toBe("low");
    expect(readEffort("chat", { reasoning_effort: "max" })).toBe("max");
    expect(readEffort("chat", { reasoning: { effort: "low" } })).toBeUndefined();
  });

  it("changes only the effort field, never the client's objects, and not at all when equal", () => {
    const client = { model: "m", output_config: { effort: "max", format: { type: "json" } }, thinking: { x: 1 } };
    const same = writeEffort("messages", client, { kind: "set", value: "max" });
    expect(same).toBe(client);
    const lowered = writeEffort("messages", client, { kind: "set", value: "high" });
    expect(lowered).toEqual({
      model: "m",
      output_config: { effort: "high", format: { type: "json" } },
      thinking: { x: 1 },
    });
    expect(client.output_config.effort).toBe("max");
    const omitted = writeEffort("messages", client, { kind: "omit" });
    expect(omitted).toEqual({ model: "m", output_config: { format: { type: "json" } }, thinking: { x: 1 } });
    expect(writeEffort("responses", { reasoning: { effort: "low" } }, { kind: "omit" })).toEqual({});
    expect(writeEffort("responses", { reasoning: { effort: "low", summary: "auto" } }, { kind: "omit" })).toEqual({
      reasoning: { summary: "auto" },
    });
    expect(writeEffort("chat", { reasoning_effort: "max" }, { kind: "set", value: "high" })).toEqual({
      reasoning_effort: "high",
    });
    expect(writeEffort("chat", {}, { kind: "set", value: "low" })).toEqual({ reasoning_effort: "low" });
    const untouched = { a: 1 };
    expect(writeEffort("chat", untouched, { kind: "omit" })).toBe(untouched);
  });
});
