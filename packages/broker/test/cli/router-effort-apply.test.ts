import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookFixture } from "../hook-fixture.js";
import { cliBrokerPerTest } from "./cli-harness.js";
import { fileDirPerTest, type Json, uiGet } from "./outbound-helpers.js";
import { mockChatUpstream, routerState } from "./router-helpers.js";

// docs/apply.md, router.effort: effort override sets (docs/router.md, "Effort mapping") per family id and per
// provider/model, upserted whole, `null` removing one, --prune removing the sets a listed scope does not name. The
// router's own rules (known family, bounded, monotonic) are rehearsed before the first change.

const { cli, notify } = cliBrokerPerTest();
const upstream = hookFixture("test", mockChatUpstream, (mock) => mock.close());
const files = fileDirPerTest();

const base = (baseUrl: string) => `router:
  enabled: true
  upstreams:
    - slug: mock
      wire: chat_wire
      base_url: ${baseUrl}
      models: [gpt-5, local-coder]
      enabled: true
`;

const effortFile = (baseUrl: string, effort: string) => `${base(baseUrl)}  effort:\n${effort}`;

const FAMILY_AND_MODEL = `    families:
      gpt-5: { levels: { low: minimal }, default: medium }
      gemini-3: { levels: { medium: high } }
    models:
      mock/local-coder: { levels: { low: null, xhigh: high, max: high } }
`;

/** The stored sets: family id → override (families without one left out), and the per-model sets. */
async function effortSets(): Promise<{ families: Record<string, Json>; models: Record<string, Json> }> {
  const view = await uiGet(cli, "/router/effort");
  const families: Record<string, Json> = {};
  for (const family of view.families as Json[]) if (family.override) families[family.id] = family.override;
  return { families, models: view.models };
}

async function chatEffort(model: string, effort?: string): Promise<Json> {
  const key = JSON.parse(readFileSync(join(cli.dataDir, "config.json"), "utf8")).RouterKey;
  const reply = await fetch(`${cli.broker.url}/router/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model,
      messages: [{ role: "user", content: "hi" }],
      ...(effort ? { reasoning_effort: effort } : {}),
    }),
  });
  expect(reply.status).toBe(200);
  return upstream.hits.at(-1)?.body;
}

describe("notify apply: router.effort", () => {
  it("creates family and per-model sets that requests follow, and re-applying changes nothing", async () => {
    const file = files.write("router.yaml", effortFile(upstream.url, FAMILY_AND_MODEL));
    const result = await notify("apply", file);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").slice(0, 5)).toEqual([
      "created upstream mock",
      "created effort family gpt-5",
      "created effort family gemini-3",
      "created effort model mock/local-coder",
      "updated router settings: enabled",
    ]);
    expect(await effortSets()).toEqual({
      families: {
        "gpt-5": { levels: { low: "minimal" }, default: "medium" },
        "gemini-3": { levels: { medium: "high" } },
      },
      models: { "mock/local-coder": { levels: { low: null, xhigh: "high", max: "high" } } },
    });
    // The sets apply to the next request: low → minimal, no effort → the family default.
    expect((await chatEffort("mock/gpt-5", "low")).reasoning_effort).toBe("minimal");
    expect((await chatEffort("mock/gpt-5")).reasoning_effort).toBe("medium");
    expect(await chatEffort("mock/local-coder", "low")).not.toHaveProperty("reasoning_effort");
    expect((await chatEffort("mock/local-coder", "max")).reasoning_effort).toBe("high");

    const again = await notify("apply", file, "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 5 });
    expect(again.stderr).toContain("unchanged effort family gpt-5");
    expect(again.stderr).toContain("unchanged effort model mock/local-coder");
  });

  it("replaces a set whole, removes one given as null, and leaves sets the file does not name", async () => {
    expect((await notify("apply", files.write("a.yaml", effortFile(upstream.url, FAMILY_AND_MODEL)))).code).toBe(0);
    const changed = `    families:
      gpt-5: { default: low }
      gemini-3: null
`;
    const result = await notify("apply", files.write("b.yaml", effortFile(upstream.url, changed)));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("updated effort family gpt-5: levels, default");
    expect(result.stderr).toContain("deleted effort family gemini-3");
    expect(await effortSets()).toEqual({
      families: { "gpt-5": { default: "low" } },
      // No `models` list in the file: the per-model set stays.
      models: { "mock/local-coder": { levels: { low: null, xhigh: "high", max: "high" } } },
    });
    // null for a set that is not stored is nothing to do.
    const again = await notify("apply", files.write("c.yaml", effortFile(upstream.url, changed)), "--json");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts).toMatchObject({ update: 0, delete: 0 });
  });

  it("--prune removes the sets a listed scope does not name, and only there", async () => {
    expect((await notify("apply", files.write("a.yaml", effortFile(upstream.url, FAMILY_AND_MODEL)))).code).toBe(0);
    const onlyGpt5 = `    families:
      gpt-5: { levels: { low: minimal }, default: medium }
`;
    const result = await notify("apply", files.write("b.yaml", effortFile(upstream.url, onlyGpt5)), "--prune");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("deleted effort family gemini-3");
    expect(result.stderr).not.toContain("effort model");
    expect(await effortSets()).toEqual({
      families: { "gpt-5": { levels: { low: "minimal" }, default: "medium" } },
      models: { "mock/local-coder": { levels: { low: null, xhigh: "high", max: "high" } } },
    });
    const emptyModels = `    models: {}
`;
    const pruned = await notify("apply", files.write("c.yaml", effortFile(upstream.url, emptyModels)), "--prune");
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toContain("deleted effort model mock/local-coder");
    expect((await effortSets()).models).toEqual({});
    expect(Object.keys((await effortSets()).families)).toEqual(["gpt-5"]);
  });

  it("--dry-run prints the plan and stores nothing", async () => {
    const result = await notify(
      "apply",
      files.write("router.yaml", effortFile(upstream.url, FAMILY_AND_MODEL)),
      "--dry-run",
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("would create effort family gpt-5");
    expect(result.stderr).toContain("would create effort model mock/local-coder");
    expect(await effortSets()).toEqual({ families: {}, models: {} });
  });
});

describe("notify apply: invalid router.effort", () => {
  it("names every structural problem and changes nothing", async () => {
    const before = await routerState(cli);
    const bad = `    family: {}
    families:
      gpt-5: { levels: { huge: high }, default: 3 }
      gemini-3: [low]
    models: []
`;
    const result = await notify("apply", files.write("bad.yaml", effortFile(upstream.url, bad)));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("bad.yaml is not valid (nothing was changed):");
    for (const problem of [
      "router.effort: unknown key family",
      'router.effort.families.gpt-5.levels: Unrecognized key: "huge"',
      "router.effort.families.gpt-5.default:",
      "router.effort.families.gemini-3:",
      "router.effort.models must be an object of provider/model to override set",
    ]) {
      expect(result.stderr).toContain(problem);
    }
    expect(await routerState(cli)).toEqual(before);
    expect(await effortSets()).toEqual({ families: {}, models: {} });
  });

  it("rehearses the router's rules (known family, bounded, monotonic) before the first change", async () => {
    const before = await routerState(cli);
    const refused = `    families:
      gpt-5: { levels: { high: low } }
      gemini-3: { levels: { low: medium } }
      nope: { default: low }
    models:
      mock/gpt-5: { levels: { max: minimal } }
      no-provider: { levels: { low: low } }
`;
    const result = await notify("apply", files.write("bad.yaml", effortFile(upstream.url, refused)));
    expect(result.code).toBe(1);
    for (const problem of [
      "router.effort.families.gpt-5: not monotonic: high maps to low, below what medium maps to",
      'router.effort.families.gemini-3: low: "medium" is not accepted here (one of low, high)',
      "router.effort.families.nope: unknown effort family: nope",
      "router.effort.models.mock/gpt-5: not monotonic: max maps to minimal, below what xhigh maps to",
      "router.effort.models.no-provider: model must be provider/model",
    ]) {
      expect(result.stderr).toContain(problem);
    }
    // Nothing was applied: not even the upstream the same file creates.
    expect(await routerState(cli)).toEqual(before);
    expect(await effortSets()).toEqual({ families: {}, models: {} });
  });

  it("checks a model's set on top of the family set the same file saves first", async () => {
    // low → high is monotonic only over the family's medium → high (alone, medium would stay medium).
    const layered = `    families:
      gpt-5: { levels: { medium: high } }
    models:
      mock/gpt-5: { levels: { low: high } }
`;
    const alone = `    models:
      mock/gpt-5: { levels: { low: high } }
`;
    const refused = await notify("apply", files.write("alone.yaml", effortFile(upstream.url, alone)));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("router.effort.models.mock/gpt-5: not monotonic: medium maps to medium");
    const result = await notify("apply", files.write("ok.yaml", effortFile(upstream.url, layered)));
    expect(result.code, result.stderr).toBe(0);
    expect((await effortSets()).models).toEqual({ "mock/gpt-5": { levels: { low: "high" } } });
  });
});
