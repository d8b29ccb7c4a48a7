import type { RouteOptions } from "fastify";
import { describe, expect, it } from "vitest";
import { TOKEN, testBroker } from "./helpers.js";

/**
 * Issue 23 item 3: each prefix is one fastify plugin whose guard is its own onRequest hook (http/plugins/), so a route
 * group added under a prefix is guarded without being named anywhere else. Every route the app registers is listed
 * here (fastify's onRoute hook, before the plugins load) and asked without what its prefix's guard wants.
 */
function registeredRoutes(): { broker: ReturnType<typeof testBroker>; routes: { method: string; url: string }[] } {
  const broker = testBroker();
  const routes: { method: string; url: string }[] = [];
  broker.app.addHook("onRoute", (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url });
  });
  return { broker, routes };
}

/** A concrete path for a route pattern: every parameter and wildcard filled in. */
const pathOf = (url: string): string => url.replace(/:\w+/g, "x").replace(/\*$/, "x");

const PREFIXES = ["/health", "/v1/", "/router/v1", "/ui/api/", "/ui"];

describe("every route is behind its prefix's guard (http/plugins/)", () => {
  it("registers routes only under the known prefixes", async () => {
    const { broker, routes } = registeredRoutes();
    await broker.app.ready();
    expect(routes.length).toBeGreaterThan(60);
    const outside = routes.filter((route) => !PREFIXES.some((prefix) => route.url.startsWith(prefix)));
    expect(outside).toEqual([]);
    // /health is the one route without a guard (docs/api.md, "GET /health": unauthenticated liveness).
    expect(routes.filter((route) => route.url.startsWith("/health")).map((route) => route.url)).toEqual([
      "/health",
      "/health",
    ]);
  });

  it("/v1: every route answers 401 without the bearer token, before its body is read", async () => {
    const { broker, routes } = registeredRoutes();
    await broker.app.ready();
    const v1 = routes.filter((route) => route.url.startsWith("/v1/"));
    expect(v1.length).toBeGreaterThan(10);
    for (const route of v1) {
      const reply = await broker.app.inject({
        method: route.method as "GET",
        url: pathOf(route.url),
        headers: { authorization: "Bearer wrong", "content-type": "application/json" },
        ...(route.method === "GET" || route.method === "HEAD" ? {} : { payload: "{not json" }),
      });
      expect([route.method, route.url, reply.statusCode]).toEqual([route.method, route.url, 401]);
      if (route.method !== "HEAD") expect(reply.json()).toEqual({ error: "unauthorized" });
    }
  });

  it("/ui/api: every route answers 403 to a foreign Host, 403 to a change without X-Notify-UI, 401 without a session", async () => {
    const { broker, routes } = registeredRoutes();
    await broker.app.ready();
    const api = routes.filter((route) => route.url.startsWith("/ui/api/"));
    expect(api.length).toBeGreaterThan(30);
    for (const route of api) {
      const url = pathOf(route.url);
      const ask = (headers: Record<string, string>) =>
        broker.app.inject({
          method: route.method as "GET",
          url,
          headers: { host: "127.0.0.1:47821", "content-type": "application/json", ...headers },
          ...(route.method === "GET" || route.method === "HEAD" ? {} : { payload: "{not json" }),
        });
      const foreign = await ask({ host: "evil.example", authorization: `Bearer ${TOKEN}`, "x-notify-ui": "1" });
      expect([route.method, route.url, foreign.statusCode]).toEqual([route.method, route.url, 403]);
      if (route.method !== "GET" && route.method !== "HEAD") {
        const noHeader = await ask({ authorization: `Bearer ${TOKEN}` });
        expect([route.method, route.url, noHeader.statusCode]).toEqual([route.method, route.url, 403]);
        expect(noHeader.json()).toEqual({ error: "missing X-Notify-UI: 1" });
      }
      const noSession = await ask({ "x-notify-ui": "1" });
      expect([route.method, route.url, noSession.statusCode]).toEqual([route.method, route.url, 401]);
      if (route.method !== "HEAD") expect(noSession.json()).toEqual({ error: "unauthorized" });
    }
  });

  it("/ui: every page route answers 403 to a foreign Host", async () => {
    const { broker, routes } = registeredRoutes();
    await broker.app.ready();
    const pages = routes.filter((route) => route.url === "/ui" || route.url.startsWith("/ui/"));
    const pageRoutes = pages.filter((route) => !route.url.startsWith("/ui/api/"));
    expect(pageRoutes.length).toBeGreaterThanOrEqual(3);
    for (const route of pageRoutes) {
      const reply = await broker.app.inject({
        method: route.method as "GET",
        url: pathOf(route.url),
        headers: { host: "evil.example" },
      });
      expect([route.method, route.url, reply.statusCode]).toEqual([route.method, route.url, 403]);
    }
  });
});
