import { type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { type RouterBroker, raw, startRouterBroker } from "./harness.js";

/** /ui/api/router: the web-interface rules, write-only secrets, the config rules as 400s, the key, the ledger. */

let router: RouterBroker;
let mock: ModelMock;

beforeAll(async () => {
  router = await startRouterBroker();
  mock = await startModelMock("chat");
});

afterAll(async () => {
  await router?.close();
  await mock?.close();
});

describe("/ui/api/router", () => {
  it("needs X-Notify-UI: 1 for every change and a loopback Host for everything", async () => {
    const url = `${router.broker.url}/ui/api/router/settings`;
    const noHeader = await raw(url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ enabled: false }),
    });
    expect(noHeader.status).toBe(403);
    const foreign = await raw(`${router.broker.url}/ui/api/router/status`, { headers: { host: "evil.example" } });
    expect(foreign.status).toBe(403);
    expect((await router.ui("GET", "/router/status")).body).toMatchObject({ enabled: true, has_key: true });
  });

  it("never returns an upstream key, and reports each config rule as a 400", async () => {
    const created = await router.addUpstream({ slug: "local", wire: "chat", base_url: mock.url, key: "sk-never-back" });
    expect(created).toMatchObject({ slug: "local", wire: "chat_wire", has_key: true, enabled: true });
    const listed = await router.ui("GET", "/router/upstreams");
    expect(listed.text).not.toContain("sk-never-back");
    expect(JSON.stringify(created)).not.toContain("sk-never-back");

    const bad = [
      { slug: "Upper", wire: "chat_wire", base_url: "https://a.example" },
      { slug: "ok", wire: "chat_wire", base_url: "http://a.example/v1" },
      { slug: "ok", wire: "chat_wire", base_url: "https://user:pass@a.example" },
      { slug: "ok", wire: "chat_wire", base_url: "https://a.example/v1?x=1" },
      { slug: "ok", wire: "fax_wire", base_url: "https://a.example" },
      { slug: "local", wire: "chat_wire", base_url: "https://a.example" },
      {
        slug: "ok",
        wire: "chat_wire",
        base_url: "https://a.example",
        models: Array.from({ length: 501 }, (_, i) => `m${i}`),
      },
      { slug: "ok", wire: "chat_wire", base_url: "https://a.example", surprise: true },
    ];
    for (const fields of bad) {
      const reply = await router.ui("POST", "/router/upstreams", fields);
      expect(reply.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
      expect(reply.body).toEqual({ error: expect.any(String) });
    }
    const alias = await router.ui("POST", "/router/routes", {
      name: "two",
      kind: "alias",
      targets: ["local/a", "local/b"],
    });
    expect(alias.status).toBe(400);
    expect((await router.ui("PATCH", "/router/upstreams/nope", { enabled: false })).status).toBe(404);
    expect((await router.ui("DELETE", "/router/routes/nope")).status).toBe(404);
  });

  it("keeps a key with its host: moving base_url to another host needs the key again", async () => {
    await router.addUpstream({ slug: "moving", wire: "chat", base_url: "https://one.example/v1", key: "sk-one" });
    const moved = await router.ui("PATCH", "/router/upstreams/moving", { base_url: "https://two.example/v1" });
    expect(moved.status).toBe(400);
    const samePlace = await router.ui("PATCH", "/router/upstreams/moving", { base_url: "https://one.example/v2" });
    expect(samePlace.status).toBe(200);
    const withKey = await router.ui("PATCH", "/router/upstreams/moving", {
      base_url: "https://two.example/v1",
      key: "sk-two",
    });
    expect(withKey.status).toBe(200);
    expect(withKey.body).toMatchObject({ base_url: "https://two.example/v1", has_key: true });
  });

  it("refuses to delete what a route or the default still names", async () => {
    await router.addRoute("main", "alias", ["local/model-a"]);
    expect((await router.ui("PUT", "/router/settings", { default_route: "main" })).status).toBe(200);
    expect((await router.ui("DELETE", "/router/upstreams/local")).status).toBe(400);
    expect((await router.ui("DELETE", "/router/routes/main")).status).toBe(400);

    // The default route now answers a request that names no model.
    const reply = await raw(`${router.base}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${router.key}` },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(reply.status).toBe(200);
    expect(mock.hits.at(-1)?.body.model).toBe("model-a");
    expect((await router.activity(1))[0]).toMatchObject({ route_kind: "default", route_name: "main" });

    expect((await router.ui("PUT", "/router/settings", { default_route: null })).status).toBe(200);
    expect((await router.ui("DELETE", "/router/routes/main")).status).toBe(204);
    expect((await router.ui("DELETE", "/router/upstreams/local")).status).toBe(204);
  });

  it("validates settings and regenerates the router key, which takes effect at once", async () => {
    expect((await router.ui("PUT", "/router/settings", { enabled: "yes" })).status).toBe(400);
    expect((await router.ui("PUT", "/router/settings", { switch_strategy: "random" })).status).toBe(400);
    expect((await router.ui("PUT", "/router/settings", { max_request_body_bytes: 0 })).status).toBe(400);
    expect((await router.ui("GET", "/router/activity?limit=0")).status).toBe(400);

    const oldKey = router.key;
    const regenerated = await router.ui("POST", "/router/key/regenerate", {});
    expect(regenerated.status).toBe(200);
    expect(regenerated.text).not.toContain("nrk_");
    const newKey = String(readConfigFile(router.dataDir).RouterKey);
    expect(newKey).toMatch(/^nrk_/);
    expect(newKey).not.toBe(oldKey);
    const models = (key: string) => raw(`${router.base}/models`, { headers: { "x-notify-router-key": key } });
    expect((await models(oldKey)).status).toBe(401);
    expect((await models(newKey)).status).toBe(200);
    router.key = newKey;
  });
});
