import { describe, expect, it } from "vitest";
import type { ConfigSnapshot, Route, RouterSettings, Upstream } from "../src/index.js";
import { selectTargets } from "../src/index.js";
import {
  costKind,
  expandSameModel,
  MAX_SWITCH_GROUPS,
  SwitchState,
  sameModelKey,
  sameModelTargets,
  switchGroup,
} from "../src/smart-switching.js";
import { upstreamRecord } from "./helpers.js";

/** Smart switching (docs/router.md, "Smart switching"): expansion is pure; the strategies' memory is SwitchState. */

let added = 0;
function upstream(slug: string, models: string[], fields: Partial<Upstream> = {}): Upstream {
  // The order providers were added is the snapshot's order (created_at, then slug).
  const created = new Date(Date.UTC(2026, 0, 1, 0, 0, added++)).toISOString();
  return upstreamRecord(slug, models, { created_at: created, updated_at: created, ...fields });
}

function route(name: string, kind: Route["kind"], targets: string[]): Route {
  return { id: `rrt_${name}`, name, kind, targets, enabled: true, created_at: "", updated_at: "" };
}

function snapshot(upstreams: Upstream[], routes: Route[] = [], settings: Partial<RouterSettings> = {}): ConfigSnapshot {
  return {
    upstreams,
    routes,
    settings: { default_route: null, switch_strategy: "ordered", native_fallback_route: null, ...settings },
  };
}

const names = (targets: { upstream: Upstream; model: string }[]) =>
  targets.map((target) => `${target.upstream.slug}/${target.model}`);

function selected(config: ConfigSnapshot, model: string | undefined) {
  const selection = selectTargets(config, model);
  if (!selection.ok) return { error: selection.error };
  return { kind: selection.routeKind, name: selection.routeName, targets: names(selection.targets) };
}

// Added in this order: per-token first, then local, then the two subscriptions, then another per-token service.
const PER_TOKEN_A = upstream("paid-a", ["Vendor/Big-Model-4", "small-1"]);
const LOCAL = upstream("local", ["big-model-4"], { base_url: "http://127.0.0.1:11434/v1" });
const SUB_B = upstream("sub-b", ["big-model-4"], { auth: "plan_signin_b" });
const SUB_A = upstream("sub-a", ["BIG-MODEL-4"], { auth: "plan_signin_a" });
const PER_TOKEN_B = upstream("paid-b", ["big-model-4", "big-model-4.5", "small-1"]);
const DISABLED = upstream("off", ["big-model-4"], { enabled: false });
const ALL = [PER_TOKEN_A, LOCAL, SUB_B, SUB_A, PER_TOKEN_B, DISABLED];

describe("rule 1: same model ignores case and a vendor path prefix; versions are distinct", () => {
  it("normalizes", () => {
    expect(sameModelKey("Vendor/Big-Model-4")).toBe("big-model-4");
    expect(sameModelKey("a/b/BIG-model-4")).toBe("big-model-4");
    expect(sameModelKey("big-model-4.5")).not.toBe(sameModelKey("big-model-4"));
  });

  it("finds every enabled provider listing it, with that provider's own ID, and never another version", () => {
    const found = names(sameModelTargets(snapshot(ALL), "big-model-4"));
    expect(found).toContain("paid-a/Vendor/Big-Model-4");
    expect(found).toContain("sub-a/BIG-MODEL-4");
    expect(found).not.toContain("paid-b/big-model-4.5");
    expect(found.some((name) => name.startsWith("off/"))).toBe(false);
  });
});

describe("rule 2: cost kind order, then the order providers were added", () => {
  it("subscription, flat plan, local, per token", () => {
    expect(costKind(SUB_A)).toBe("subscription");
    expect(costKind(LOCAL)).toBe("local");
    expect(costKind(PER_TOKEN_A)).toBe("per_token");
    expect(costKind(upstream("flat", [], { base_url: "https://flat.example/v1" }), new Set(["flat.example"]))).toBe(
      "flat_plan",
    );
    const flat = upstream("flat", ["big-model-4"], { base_url: "https://flat.example/v1" });
    const order = names(sameModelTargets(snapshot([...ALL, flat]), "big-model-4", new Set(["flat.example"])));
    expect(order).toEqual([
      "sub-b/big-model-4",
      "sub-a/BIG-MODEL-4",
      "flat/big-model-4",
      "local/big-model-4",
      "paid-a/Vendor/Big-Model-4",
      "paid-b/big-model-4",
    ]);
  });
});

describe("rule 3: a bare model several providers list goes to all of them", () => {
  it("is ambiguous with switching off and ordered with it on", () => {
    expect(selected(snapshot(ALL, [], { switch_strategy: "off" }), "small-1")).toEqual({ error: "ambiguous_model" });
    expect(selected(snapshot(ALL), "small-1")).toEqual({
      kind: "model_list",
      name: null,
      targets: ["paid-a/small-1", "paid-b/small-1"],
    });
  });

  it("with switching off nothing is expanded", () => {
    expect(selected(snapshot(ALL, [], { switch_strategy: "off" }), "local/big-model-4")).toEqual({
      kind: "explicit",
      name: null,
      targets: ["local/big-model-4"],
    });
  });
});

describe("rule 4: routes resolve first, then each target's same-model fallbacks", () => {
  it("appends after the chain's own targets, without repeats", () => {
    const config = snapshot(ALL, [route("chain", "combo", ["paid-b/big-model-4.5", "paid-b/big-model-4"])]);
    expect(selected(config, "combo/chain")).toEqual({
      kind: "combo",
      name: "chain",
      targets: [
        "paid-b/big-model-4.5",
        "paid-b/big-model-4",
        "sub-b/big-model-4",
        "sub-a/BIG-MODEL-4",
        "local/big-model-4",
        "paid-a/Vendor/Big-Model-4",
      ],
    });
  });

  it("expands an explicit provider/model and the default route too", () => {
    const config = snapshot(ALL, [], { default_route: "paid-a/small-1" });
    expect(selected(config, "local/big-model-4").targets?.[0]).toBe("local/big-model-4");
    expect(selected(config, "local/big-model-4").targets).toHaveLength(5);
    expect(selected(config, undefined)).toEqual({
      kind: "default",
      name: "paid-a/small-1",
      targets: ["paid-a/small-1", "paid-b/small-1"],
    });
  });

  it("expandSameModel keeps a chain with no same-model provider as it is", () => {
    const lone = [{ upstream: PER_TOKEN_B, model: "big-model-4.5" }];
    expect(names(expandSameModel(snapshot(ALL), lone))).toEqual(["paid-b/big-model-4.5"]);
  });
});

describe("rule 5: ordered, sticky and round_robin", () => {
  const targets = sameModelTargets(snapshot(ALL), "big-model-4");
  const [first, second, third] = targets as [(typeof targets)[0], (typeof targets)[0], (typeof targets)[0]];

  it("ordered starts from the first target every time, whatever succeeded", () => {
    const state = new SwitchState();
    state.succeeded("ordered", "g", second);
    expect(names(state.order("ordered", "g", targets))[0]).toBe(names([first])[0]);
  });

  it("sticky keeps the last target that succeeded until it fails, per group", () => {
    const state = new SwitchState();
    expect(state.order("sticky", "g", targets)[0]).toBe(first);
    state.succeeded("sticky", "g", third);
    const order = state.order("sticky", "g", targets);
    expect(order[0]).toBe(third);
    // The rest keeps the ordinary order.
    expect(order.slice(1)).toEqual(targets.filter((target) => target !== third));
    expect(state.order("sticky", "other", targets)[0]).toBe(first);
    state.failed("g", second); // another target failing does not move it
    expect(state.order("sticky", "g", targets)[0]).toBe(third);
    state.failed("g", third);
    expect(state.order("sticky", "g", targets)[0]).toBe(first);
  });

  it("round_robin rotates the start per group and keeps the failover order after it", () => {
    const state = new SwitchState();
    const starts = [0, 1, 2, 3, 4, 5, 6].map(() => state.order("round_robin", "g", targets)[0]);
    expect(starts).toEqual([...targets, ...targets].slice(0, 7));
    const rotated = new SwitchState();
    rotated.order("round_robin", "g", targets);
    expect(rotated.order("round_robin", "g", targets)).toEqual([...targets.slice(1), targets[0]]);
    expect(rotated.order("round_robin", "h", targets)[0]).toBe(first);
  });

  it("groups by route for routes and by the same-model key for models", () => {
    const base = { ok: true as const, targets };
    expect(switchGroup({ ...base, routeKind: "combo", routeName: "chain" }, "chain")).toBe("route:chain");
    expect(switchGroup({ ...base, routeKind: "model_list", routeName: null }, "Big-Model-4")).toBe("model:big-model-4");
  });

  it("remembers a bounded number of groups", () => {
    const state = new SwitchState();
    for (let index = 0; index <= MAX_SWITCH_GROUPS + 5; index++) {
      state.order("round_robin", `model:${index}`, targets);
      state.succeeded("sticky", `model:${index}`, first);
      state.nativeRefused(`native:${index}`, 1_000);
    }
    const size = state.size();
    expect(size.turns).toBeLessThanOrEqual(MAX_SWITCH_GROUPS);
    expect(size.sticky).toBeLessThanOrEqual(MAX_SWITCH_GROUPS);
    expect(size.nativeRest).toBeLessThanOrEqual(MAX_SWITCH_GROUPS);
    expect(size.turns).toBeGreaterThan(0);
  });
});
