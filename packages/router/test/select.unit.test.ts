import { describe, expect, it } from "vitest";
import type { ConfigSnapshot, Route, RouterSettings, Upstream } from "../src/index.js";
import { selectTargets } from "../src/index.js";
import { upstreamRecord } from "./helpers.js";

/**
 * Route selection (docs/router.md, "Route selection"): a pure function of one configuration snapshot and the requested
 * model string.
 */

const upstream = (slug: string, models: string[] = [], enabled = true): Upstream =>
  upstreamRecord(slug, models, { enabled, updated_at: "2026-01-01T00:00:00.000Z" });

function route(name: string, kind: Route["kind"], targets: string[], enabled = true): Route {
  return {
    id: `rrt_${name}`,
    name,
    kind,
    targets,
    enabled,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  };
}

function snapshot(upstreams: Upstream[], routes: Route[] = [], settings: Partial<RouterSettings> = {}): ConfigSnapshot {
  return {
    upstreams,
    routes,
    settings: { default_route: null, switch_strategy: "off", native_fallback_route: null, ...settings },
  };
}

/** The selection as `slug/model` strings, for short expectations. */
function targets(config: ConfigSnapshot, model: string | undefined) {
  const selection = selectTargets(config, model);
  if (!selection.ok) return { error: selection.error };
  return {
    kind: selection.routeKind,
    name: selection.routeName,
    targets: selection.targets.map((target) => `${target.upstream.slug}/${target.model}`),
  };
}

const BASE = [upstream("alpha", ["gpt-x", "shared"]), upstream("beta", ["claude-y", "shared"]), upstream("gamma")];

describe("rule 1: a route by name", () => {
  const config = snapshot(BASE, [
    route("fast", "alias", ["alpha/gpt-x"]),
    route("chain", "combo", ["beta/claude-y", "alpha/gpt-x", "gamma/local"]),
    // A route named like a declared model wins over the declared-model rule.
    route("shared", "alias", ["gamma/the-shared-one"]),
  ]);

  it("resolves an alias by its bare name and a combo as combo/<name> or by its bare name", () => {
    expect(targets(config, "fast")).toEqual({ kind: "alias", name: "fast", targets: ["alpha/gpt-x"] });
    const chain = { kind: "combo", name: "chain", targets: ["beta/claude-y", "alpha/gpt-x", "gamma/local"] };
    expect(targets(config, "combo/chain")).toEqual(chain);
    expect(targets(config, "chain")).toEqual(chain);
  });

  it("precedes the declared-model rule", () => {
    expect(targets(config, "shared")).toEqual({ kind: "alias", name: "shared", targets: ["gamma/the-shared-one"] });
  });

  it("ignores a disabled route, and combo/<name> names only combos", () => {
    const off = snapshot(BASE, [route("fast", "alias", ["alpha/gpt-x"], false), route("solo", "alias", ["beta/b"])]);
    expect(targets(off, "fast")).toEqual({ error: "unknown_model" });
    expect(targets(off, "combo/solo")).toEqual({ error: "unknown_model" });
  });

  it("skips disabled upstreams inside a combo, and fails with no_enabled_target when none is left", () => {
    const config = snapshot(
      [upstream("alpha"), upstream("beta", [], false), upstream("gamma", [], false)],
      [route("mixed", "combo", ["beta/b", "alpha/a", "gamma/g"]), route("dark", "combo", ["beta/b", "gamma/g"])],
    );
    expect(targets(config, "combo/mixed")).toEqual({ kind: "combo", name: "mixed", targets: ["alpha/a"] });
    expect(targets(config, "combo/dark")).toEqual({ error: "no_enabled_target" });
  });

  it("skips a target whose upstream was removed", () => {
    const config = snapshot([upstream("alpha")], [route("gone", "combo", ["vanished/m", "alpha/a"])]);
    expect(targets(config, "combo/gone")).toMatchObject({ targets: ["alpha/a"] });
  });
});

describe("rule 2: explicit provider/model", () => {
  it("takes the part before the first slash as the slug and keeps the rest verbatim", () => {
    const config = snapshot(BASE);
    expect(targets(config, "alpha/vendor/model:free")).toEqual({
      kind: "explicit",
      name: null,
      targets: ["alpha/vendor/model:free"],
    });
    expect(selectTargets(config, "gamma/org/sub/Model-1")).toMatchObject({
      ok: true,
      targets: [{ model: "org/sub/Model-1" }],
    });
  });

  it("needs an enabled upstream with that slug", () => {
    const config = snapshot([upstream("alpha", [], false)]);
    expect(targets(config, "alpha/m")).toEqual({ error: "unknown_model" });
    expect(targets(config, "nobody/m")).toEqual({ error: "unknown_model" });
    expect(targets(config, "alpha/")).toEqual({ error: "unknown_model" });
  });
});

describe("rule 4: the declared model list", () => {
  it("sends a bare ID declared by exactly one enabled upstream there", () => {
    expect(targets(snapshot(BASE), "claude-y")).toEqual({ kind: "model_list", name: null, targets: ["beta/claude-y"] });
  });

  it("reports ambiguous_model when two or more enabled upstreams declare it", () => {
    expect(targets(snapshot(BASE), "shared")).toEqual({ error: "ambiguous_model" });
  });

  it("does not count a disabled upstream", () => {
    const config = snapshot([upstream("alpha", ["shared"]), upstream("beta", ["shared"], false)]);
    expect(targets(config, "shared")).toEqual({ kind: "model_list", name: null, targets: ["alpha/shared"] });
  });
});

describe("rule 5: the default route", () => {
  it("answers an unknown model and a request with no model, resolved by rules 1-2", () => {
    const toAlias = snapshot(BASE, [route("main", "alias", ["beta/claude-y"])], { default_route: "main" });
    expect(targets(toAlias, "something-else")).toEqual({ kind: "default", name: "main", targets: ["beta/claude-y"] });
    expect(targets(toAlias, undefined)).toEqual({ kind: "default", name: "main", targets: ["beta/claude-y"] });
    expect(targets(toAlias, "")).toEqual({ kind: "default", name: "main", targets: ["beta/claude-y"] });

    const toModel = snapshot(BASE, [], { default_route: "gamma/local-model" });
    expect(targets(toModel, undefined)).toEqual({
      kind: "default",
      name: "gamma/local-model",
      targets: ["gamma/local-model"],
    });
    const toCombo = snapshot(BASE, [route("chain", "combo", ["alpha/a", "beta/b"])], { default_route: "combo/chain" });
    expect(targets(toCombo, undefined)).toMatchObject({
      kind: "default",
      name: "chain",
      targets: ["alpha/a", "beta/b"],
    });
  });

  it("is not used while an earlier rule matches", () => {
    const config = snapshot(BASE, [], { default_route: "gamma/local-model" });
    expect(targets(config, "alpha/gpt-x")).toMatchObject({ kind: "explicit" });
    expect(targets(config, "gpt-x")).toMatchObject({ kind: "model_list" });
  });

  it("without a default, a request with no model is missing_model", () => {
    expect(targets(snapshot(BASE), undefined)).toEqual({ error: "missing_model" });
    expect(targets(snapshot(BASE), "")).toEqual({ error: "missing_model" });
  });

  it("passes on the error of a default whose targets are all disabled", () => {
    const config = snapshot([upstream("alpha", [], false)], [route("main", "combo", ["alpha/a"])], {
      default_route: "main",
    });
    expect(targets(config, undefined)).toEqual({ error: "no_enabled_target" });
  });
});

describe("rule 6", () => {
  it("anything else is unknown_model, also when the default names nothing that resolves", () => {
    expect(targets(snapshot(BASE), "no-such-model")).toEqual({ error: "unknown_model" });
    expect(targets(snapshot(BASE, [], { default_route: "vanished" }), "no-such-model")).toEqual({
      error: "unknown_model",
    });
  });
});

it("is pure: the same snapshot and model give the same answer, and the snapshot is not changed", () => {
  const config = snapshot(BASE, [route("chain", "combo", ["alpha/a", "beta/b"])]);
  const frozen = JSON.stringify(config);
  expect(selectTargets(config, "combo/chain")).toEqual(selectTargets(config, "combo/chain"));
  expect(JSON.stringify(config)).toBe(frozen);
});
