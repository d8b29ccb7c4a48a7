import { DatabaseSync } from "node:sqlite";
import { RouterRouteInput, RouterRoutingSettingsInput, RouterUpstreamInput } from "@notify/contracts/ui";
import { MAX_COMBO_TARGETS } from "@notify/contracts/ui-constants";
import { beforeEach, describe, expect, it } from "vitest";
import { type KeySealer, RouterConfig, RouterConfigError } from "../src/index.js";

/**
 * Issue 23: the router parses upstreams, routes and settings with the contract's schemas
 * (packages/contracts/src/ui/router.ts), so the page's types and the router's rules are one definition; its 400
 * messages stay word for word (docs/apply.md and the broker's CLI tests quote them).
 */

const sealer: KeySealer = {
  seal: (recordId, secrets) => `${recordId}:${JSON.stringify(secrets)}`,
  open: (_recordId, sealed) => JSON.parse(sealed.slice(sealed.indexOf(":") + 1)) as Record<string, string>,
};

let config: RouterConfig;

beforeEach(() => {
  config = new RouterConfig(new DatabaseSync(":memory:"), sealer);
  config.saveUpstream({ slug: "alpha", wire: "chat_wire", base_url: "https://alpha.example/v1" });
});

const upstreamBody = { slug: "beta", wire: "chat_wire", base_url: "https://beta.example/v1" };
const routeBody = { name: "fast", kind: "combo", targets: ["alpha/m1"] };

function messageOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(RouterConfigError);
    return (error as Error).message;
  }
  return "accepted";
}

describe("the router's refusals, word for word", () => {
  const upstreamCases: [Record<string, unknown>, string][] = [
    [{ ...upstreamBody, colour: "red" }, "unknown upstream field: colour"],
    [{ ...upstreamBody, slug: "Beta" }, "slug must match [a-z0-9][a-z0-9-]{0,31}"],
    [{ wire: "chat_wire", base_url: "https://beta.example/v1" }, "slug must match [a-z0-9][a-z0-9-]{0,31}"],
    [{ ...upstreamBody, slug: "alpha" }, "an upstream with slug alpha already exists"],
    [{ ...upstreamBody, wire: "grpc" }, "wire must be one of responses_wire, chat_wire, messages_wire"],
    [{ slug: "beta", wire: "chat_wire" }, "base_url is required"],
    [
      { ...upstreamBody, base_url: "http://beta.example/v1" },
      "http base_url is allowed only for a loopback host (127.0.0.1, ::1, localhost)",
    ],
    [{ ...upstreamBody, label: "" }, "label must be 1-100 characters"],
    [{ ...upstreamBody, label: "x".repeat(101) }, "label must be 1-100 characters"],
    [{ ...upstreamBody, models: "m1" }, "models must be an array of model IDs"],
    [{ ...upstreamBody, models: ["m1", 3] }, "models must be an array of model IDs"],
    [
      { ...upstreamBody, models: Array.from({ length: 501 }, (_, index) => `m${index}`) },
      "at most 500 declared models",
    ],
    [{ ...upstreamBody, auth: "cookie" }, "auth must be one of api_key, plan_signin_a, plan_signin_b"],
    [{ ...upstreamBody, model_wires: [] }, "model_wires must be an object of model ID to wire"],
    [{ ...upstreamBody, model_wires: { "gpt-x": "fax" } }, "model_wires.gpt-x is not a wire"],
    [
      { ...upstreamBody, credential_ref: "vault:1" },
      "credential_ref must be null, api_account:<id> or profile:<directory>",
    ],
    [
      { ...upstreamBody, credential_ref: "profile:relative" },
      "profile:<directory> must name an absolute or ~/ directory",
    ],
    [{ ...upstreamBody, credential_ref: "api_account:nope" }, "no saved account nope"],
    [{ ...upstreamBody, key: 42 }, "key must be a string (or null to remove it)"],
    [{ ...upstreamBody, key: "k".repeat(8193) }, "key must be a string (or null to remove it)"],
    [{ ...upstreamBody, enabled: "yes" }, "enabled must be true or false"],
    [{ ...upstreamBody, enabled: null }, "enabled must be true or false"],
    [
      { ...upstreamBody, key: "", credential_ref: null, label: "Beta", models: ["m1", "m1"], enabled: true },
      "accepted",
    ],
  ];
  it.each(upstreamCases)("upstream %j: %s", (body, message) => {
    expect(messageOf(() => config.saveUpstream(body))).toBe(message);
  });

  const routeCases: [Record<string, unknown>, string][] = [
    [{ ...routeBody, weight: 1 }, "unknown route field: weight"],
    [{ ...routeBody, name: "a/b" }, "name must be 1-64 letters, digits, dots, dashes or underscores"],
    [{ ...routeBody, name: "x".repeat(65) }, "name must be 1-64 letters, digits, dots, dashes or underscores"],
    [{ ...routeBody, kind: "fallback" }, "kind must be alias or combo"],
    [{ ...routeBody, targets: "alpha/m1" }, "targets must be an array of provider/model strings"],
    [{ ...routeBody, targets: ["m1"] }, "targets must be an array of provider/model strings"],
    [{ ...routeBody, kind: "alias", targets: ["alpha/m1", "alpha/m2"] }, "an alias has exactly one target"],
    [{ ...routeBody, targets: [] }, `a combo has 1-${MAX_COMBO_TARGETS} targets`],
    [
      { ...routeBody, targets: Array.from({ length: MAX_COMBO_TARGETS + 1 }, (_, index) => `alpha/m${index}`) },
      `a combo has 1-${MAX_COMBO_TARGETS} targets`,
    ],
    [{ ...routeBody, targets: ["gamma/m1"] }, "target gamma/m1: no upstream with slug gamma"],
    [{ ...routeBody, enabled: 1 }, "enabled must be true or false"],
    [{ ...routeBody, targets: Array.from({ length: MAX_COMBO_TARGETS }, (_, index) => `alpha/m${index}`) }, "accepted"],
  ];
  it.each(routeCases)("route %j: %s", (body, message) => {
    expect(messageOf(() => config.saveRoute(body))).toBe(message);
  });

  it("a route name is unique, a patch keeps what it does not send", () => {
    const route = config.saveRoute(routeBody);
    expect(messageOf(() => config.saveRoute(routeBody))).toBe("a route named fast already exists");
    expect(config.saveRoute({ enabled: false }, route.id)).toMatchObject({
      name: "fast",
      kind: "combo",
      enabled: false,
    });
    expect(messageOf(() => config.saveRoute({ kind: "alias", targets: [] }, route.id))).toBe(
      "an alias has exactly one target",
    );
  });

  const settingsCases: [Record<string, unknown>, string][] = [
    [{ strategy: "off" }, "unknown settings field: strategy"],
    [{ default_route: "" }, "default_route must be a provider/model, an alias or combo name, or null"],
    [{ native_fallback_route: 7 }, "native_fallback_route must be a provider/model, an alias or combo name, or null"],
    [{ switch_strategy: "random" }, "switch_strategy must be one of off, ordered, sticky, round_robin"],
    [{ default_route: null, switch_strategy: "sticky" }, "accepted"],
  ];
  it.each(settingsCases)("settings %j: %s", (body, message) => {
    expect(messageOf(() => config.saveSettings(body))).toBe(message);
  });
});

describe("the contract's schemas are the router's rules", () => {
  // What the schema alone decides; clashes, the destination rule, accounts and upstream lookups are the store's.
  const shapeOnly = (message: string) =>
    !/already exists|no upstream with slug|no saved account|loopback|accepted/.test(message);

  it("an upstream the router refuses for its shape, the contract refuses with the same message", () => {
    const bodies: [Record<string, unknown>, string][] = [
      [{ ...upstreamBody, slug: "Beta" }, "slug must match [a-z0-9][a-z0-9-]{0,31}"],
      [{ ...upstreamBody, models: ["m1", ""] }, "models must be an array of model IDs"],
      [{ ...upstreamBody, model_wires: { m: "fax" } }, "model_wires.m is not a wire"],
      [{ ...upstreamBody, label: "ok", extra: 1 }, "unknown upstream field: extra"],
    ];
    for (const [body, message] of bodies) {
      expect(shapeOnly(message)).toBe(true);
      expect(messageOf(() => config.saveUpstream(body))).toBe(message);
      const parsed = RouterUpstreamInput.safeParse({
        label: "beta",
        models: [],
        auth: "api_key",
        model_wires: {},
        ...body,
      });
      expect(parsed.success).toBe(false);
      const issues = parsed.error?.issues ?? [];
      expect((issues.find((issue) => issue.code === "unrecognized_keys") ?? issues[0])?.message).toBe(message);
    }
  });

  it("routes: the page's schema accepts exactly the shapes the router accepts", () => {
    const bodies: Record<string, unknown>[] = [
      { ...routeBody, enabled: true },
      { ...routeBody, enabled: true, name: "with space" },
      { ...routeBody, enabled: true, name: "a/b" },
      { ...routeBody, enabled: true, targets: ["no-slash"] },
      { ...routeBody, enabled: true, kind: "alias", targets: ["alpha/m1", "alpha/m2"] },
      { ...routeBody, enabled: true, targets: Array.from({ length: MAX_COMBO_TARGETS + 1 }, (_, i) => `alpha/m${i}`) },
    ];
    for (const body of bodies) {
      const router = messageOf(() => config.saveRoute({ ...body, name: `${String(body.name)}` }));
      config = new RouterConfig(new DatabaseSync(":memory:"), sealer);
      config.saveUpstream({ slug: "alpha", wire: "chat_wire", base_url: "https://alpha.example/v1" });
      expect({ body, accepted: RouterRouteInput.safeParse(body).success }).toEqual({
        body,
        accepted: router === "accepted",
      });
    }
  });

  it("settings: the contract refuses what the router refuses", () => {
    for (const body of [{ switch_strategy: "random" }, { default_route: "" }, { other: 1 }]) {
      expect(messageOf(() => config.saveSettings(body))).not.toBe("accepted");
      expect(RouterRoutingSettingsInput.safeParse(body).success).toBe(false);
    }
  });
});
