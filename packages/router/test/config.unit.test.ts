import { DatabaseSync } from "node:sqlite";
import { beforeEach, describe, expect, it } from "vitest";
import { destinationProblem, type KeySealer, RouterConfig, RouterConfigError } from "../src/index.js";

/** docs/router.md, "Records and rules": upstreams, routes, settings, the destination rule and the deletion rules. */

/** Seals by wrapping; enough to see that the store keeps only what the sealer gave it. */
const sealer: KeySealer = {
  seal: (recordId, secrets) => `sealed:${recordId}:${Buffer.from(JSON.stringify(secrets)).toString("base64")}`,
  open: (recordId, sealed) => {
    const [, id, payload] = sealed.split(":");
    if (id !== recordId) throw new Error("sealed for another record");
    return JSON.parse(Buffer.from(payload ?? "", "base64").toString("utf8")) as Record<string, string>;
  },
};

let db: DatabaseSync;
let config: RouterConfig;

beforeEach(() => {
  db = new DatabaseSync(":memory:");
  config = new RouterConfig(db, sealer);
});

const upstream = (fields: Record<string, unknown> = {}) =>
  config.saveUpstream({ slug: "alpha", wire: "chat_wire", base_url: "https://alpha.example/v1", ...fields });

function refused(work: () => unknown, message: RegExp): void {
  expect(work).toThrow(RouterConfigError);
  expect(work).toThrow(message);
}

describe("upstreams", () => {
  it("accept slugs of [a-z0-9][a-z0-9-]{0,31} and refuse others", () => {
    for (const slug of ["a", "0", "open-router", "a1-b2", `a${"b".repeat(31)}`]) {
      expect(upstream({ slug }).slug).toBe(slug);
    }
    for (const slug of ["", "-a", "A", "a_b", "a.b", "a/b", `a${"b".repeat(32)}`, "ä"]) {
      refused(() => upstream({ slug }), /slug/);
    }
  });

  it("keep slugs unique", () => {
    upstream();
    refused(() => upstream(), /already exists/);
  });

  it("declare up to 500 models, deduplicated", () => {
    const models = Array.from({ length: 500 }, (_, index) => `model-${index}`);
    expect(upstream({ models: [...models, "model-0"] }).models).toHaveLength(500);
    refused(() => upstream({ slug: "beta", models: [...models, "model-500"] }), /at most 500/);
    refused(() => upstream({ slug: "beta", models: ["ok", 3] }), /models/);
  });

  it("know only the three record wires and model_wires of those", () => {
    refused(() => upstream({ wire: "grpc_wire" }), /wire/);
    refused(() => upstream({ model_wires: { m: "fax" } }), /model_wires/);
    expect(upstream({ model_wires: { m: "messages_wire" } }).model_wires).toEqual({ m: "messages_wire" });
  });

  it("refuse unknown fields", () => {
    refused(() => upstream({ color: "red" }), /unknown upstream field/);
  });

  it("seal the key, return only has_key, and open it only on request", () => {
    const saved = upstream({ key: "sk-secret" });
    expect(saved.has_key).toBe(true);
    expect(JSON.stringify(saved)).not.toContain("sk-secret");
    expect(JSON.stringify(config.snapshot())).not.toContain("sk-secret");
    const stored = db.prepare("SELECT sealed_key FROM upstreams").get() as { sealed_key: string };
    expect(stored.sealed_key).toMatch(/^sealed:/);
    expect(config.openKey(saved)).toBe("sk-secret");

    // Kept on an edit without `key`, removed by null.
    expect(config.saveUpstream({ label: "Alpha" }, "alpha").has_key).toBe(true);
    expect(config.saveUpstream({ key: null }, "alpha").has_key).toBe(false);
    expect(config.openKey(config.findUpstream("alpha") ?? saved)).toBeUndefined();
  });

  it("keep a key with its host: another origin needs the key again", () => {
    upstream({ key: "sk-secret" });
    refused(() => config.saveUpstream({ base_url: "https://elsewhere.example/v1" }, "alpha"), /another host/);
    expect(config.saveUpstream({ base_url: "https://alpha.example/v2" }, "alpha").base_url).toBe(
      "https://alpha.example/v2",
    );
    const moved = config.saveUpstream({ base_url: "https://elsewhere.example/v1", key: "sk-other" }, "alpha");
    expect(config.openKey(moved)).toBe("sk-other");
  });

  it("are disabled unless switched on, and lose a trailing slash of base_url", () => {
    const saved = upstream({ base_url: "https://alpha.example/v1//" });
    expect(saved.enabled).toBe(false);
    expect(saved.base_url).toBe("https://alpha.example/v1");
    expect(saved.auth).toBe("api_key");
  });
});

describe("the destination rule", () => {
  it.each([
    "https://api.example.com/v1",
    "https://api.example.com:8443",
    "http://127.0.0.1:11434/v1",
    "http://localhost:1234/v1",
    "http://[::1]:8080/v1",
  ])("accepts %s", (url) => {
    expect(destinationProblem(url)).toBeUndefined();
  });

  it.each([
    ["http://api.example.com/v1", /loopback/],
    ["http://192.168.1.10:8080/v1", /loopback/],
    ["http://127.0.0.2/v1", /loopback/],
    ["ftp://api.example.com", /https/],
    ["file:///etc/passwd", /https/],
    ["https://user:pass@api.example.com", /user info/],
    ["https://user@api.example.com", /user info/],
    ["https://api.example.com/v1?key=1", /query/],
    ["https://api.example.com/v1?", /query/],
    ["https://api.example.com/v1#top", /fragment/],
    ["api.example.com/v1", /absolute/],
  ])("refuses %s", (url, problem) => {
    expect(destinationProblem(url)).toMatch(problem);
    refused(() => config.saveUpstream({ slug: "x", wire: "chat_wire", base_url: url }), problem);
  });
});

describe("routes", () => {
  beforeEach(() => {
    upstream({ enabled: true });
  });

  it("an alias has exactly one target", () => {
    expect(config.saveRoute({ name: "fast", kind: "alias", targets: ["alpha/m"] }).targets).toEqual(["alpha/m"]);
    refused(() => config.saveRoute({ name: "a0", kind: "alias", targets: [] }), /exactly one/);
    refused(() => config.saveRoute({ name: "a2", kind: "alias", targets: ["alpha/m", "alpha/n"] }), /exactly one/);
  });

  it("a combo has 1-8 targets", () => {
    const eight = Array.from({ length: 8 }, (_, index) => `alpha/m${index}`);
    expect(config.saveRoute({ name: "one", kind: "combo", targets: ["alpha/m"] }).targets).toHaveLength(1);
    expect(config.saveRoute({ name: "eight", kind: "combo", targets: eight }).targets).toHaveLength(8);
    refused(() => config.saveRoute({ name: "none", kind: "combo", targets: [] }), /1-8/);
    refused(() => config.saveRoute({ name: "nine", kind: "combo", targets: [...eight, "alpha/m8"] }), /1-8/);
  });

  it("targets are provider/model strings of known upstreams, names are unique and slash-free", () => {
    refused(() => config.saveRoute({ name: "r", kind: "alias", targets: ["bare-model"] }), /provider\/model/);
    refused(() => config.saveRoute({ name: "r", kind: "alias", targets: ["nobody/m"] }), /no upstream/);
    refused(() => config.saveRoute({ name: "a/b", kind: "alias", targets: ["alpha/m"] }), /name/);
    refused(() => config.saveRoute({ name: "r", kind: "chain", targets: ["alpha/m"] }), /kind/);
    config.saveRoute({ name: "r", kind: "alias", targets: ["alpha/m"] });
    refused(() => config.saveRoute({ name: "r", kind: "alias", targets: ["alpha/n"] }), /already exists/);
  });
});

describe("settings", () => {
  it("hold a nullable default route and one of four switch strategies", () => {
    expect(config.saveSettings({ default_route: "alpha/m", switch_strategy: "sticky" })).toMatchObject({
      default_route: "alpha/m",
      switch_strategy: "sticky",
    });
    expect(config.saveSettings({ default_route: null }).default_route).toBeNull();
    refused(() => config.saveSettings({ switch_strategy: "random" }), /switch_strategy/);
    refused(() => config.saveSettings({ default_route: 5 }), /default_route/);
    refused(() => config.saveSettings({ theme: "dark" }), /unknown settings field/);
  });
});

describe("deletion rules", () => {
  beforeEach(() => {
    upstream({ enabled: true });
    config.saveUpstream({ slug: "beta", wire: "messages_wire", base_url: "https://beta.example/v1" });
  });

  it("an upstream cannot be deleted while a route names it", () => {
    config.saveRoute({ name: "chain", kind: "combo", targets: ["beta/m", "alpha/m"] });
    refused(() => config.deleteUpstream("alpha"), /still used by route chain/);
    config.deleteRoute("chain");
    config.deleteUpstream("alpha");
    expect(config.findUpstream("alpha")).toBeUndefined();
  });

  it("an upstream cannot be deleted while the default route names it", () => {
    config.saveSettings({ default_route: "beta/some-model" });
    refused(() => config.deleteUpstream("beta"), /default_route/);
    config.saveSettings({ default_route: "alpha/m" });
    config.deleteUpstream("beta");
  });

  it("the default route cannot be deleted until the default changes", () => {
    config.saveRoute({ name: "main", kind: "combo", targets: ["alpha/m"] });
    config.saveSettings({ default_route: "combo/main" });
    refused(() => config.deleteRoute("main"), /default_route/);
    config.saveSettings({ default_route: "main" });
    refused(() => config.deleteRoute("main"), /default_route/);
    config.saveSettings({ default_route: null });
    config.deleteRoute("main");
    expect(config.findRoute("main")).toBeUndefined();
  });

  it("a slug or route name still in use cannot be renamed away", () => {
    config.saveRoute({ name: "main", kind: "alias", targets: ["alpha/m"] });
    config.saveSettings({ default_route: "main" });
    refused(() => config.saveUpstream({ slug: "alpha2" }, "alpha"), /still used/);
    refused(() => config.saveRoute({ name: "main2" }, "main"), /still used/);
  });

  it("a failed change leaves the store as it was", () => {
    config.saveRoute({ name: "main", kind: "alias", targets: ["alpha/m"] });
    const before = JSON.stringify(config.snapshot());
    refused(() => config.deleteUpstream("alpha"), /still used/);
    expect(JSON.stringify(new RouterConfig(db, sealer).snapshot())).toBe(before);
  });
});
