// docs/phone.md, "Phone app": the relay serves the phone PWA under /app. Its files get a CSP of their own (self only,
// nothing inline); the API keeps `default-src 'none'`; nothing outside the app's directory is reachable.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RelayHarness, tempDir } from "./helpers.js";

const harnesses: RelayHarness[] = [];
afterEach(async () => {
  while (harnesses.length > 0) await harnesses.pop()?.close();
});

function appDir(): string {
  const dir = tempDir("relay-app-").path;
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>Notify</title>");
  writeFileSync(join(dir, "assets", "main-abc.js"), "console.log(1)");
  writeFileSync(join(dir, "sw.js"), "self.addEventListener('push', () => {})");
  writeFileSync(join(dir, "manifest.webmanifest"), '{"name":"Notify"}');
  return dir;
}

describe("phone app under /app", () => {
  it("serves the page, hashed assets, the service worker and the manifest with their types and caching", async () => {
    const relay = RelayHarness.sqlite({ appDir: appDir() });
    harnesses.push(relay);
    const page = await relay.request({ url: "/app/" });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toMatch(/^default-src 'self'; script-src 'self'/);
    expect(page.headers["cache-control"]).toBe("no-cache");
    const asset = await relay.request({ url: "/app/assets/main-abc.js" });
    expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(asset.headers["cache-control"]).toContain("immutable");
    expect((await relay.request({ url: "/app/sw.js" })).headers["cache-control"]).toBe("no-cache");
    expect((await relay.request({ url: "/app/manifest.webmanifest" })).headers["content-type"]).toBe(
      "application/manifest+json",
    );
    // A path without an extension is the page (the app routes by hash); a missing file is a 404.
    expect((await relay.request({ url: "/app/inbox" })).text).toContain("<title>Notify</title>");
    expect((await relay.request({ url: "/app/missing.js" })).status).toBe(404);
    expect((await relay.request({ url: "/app" })).status).toBe(308);
  });

  it("never serves a file outside the app directory", async () => {
    const relay = RelayHarness.sqlite({ appDir: appDir() });
    harnesses.push(relay);
    for (const url of ["/app/../relay.db", "/app/%2e%2e/%2e%2e/etc/passwd", "/app/..%2f..%2fetc%2fpasswd"]) {
      const reply = await relay.request({ url });
      expect(reply.text).not.toContain("root:");
      expect([400, 404]).toContain(reply.status);
    }
  });

  it("answers 404 on /app when the app is off, and the API keeps its own headers", async () => {
    const relay = RelayHarness.sqlite({ appDir: false });
    harnesses.push(relay);
    const reply = await relay.request({ url: "/app/" });
    expect(reply.status).toBe(404);
    expect(reply.json()).toEqual({ error: { code: "not_found", message: "the phone app is off" } });
    expect((await relay.request({ url: "/healthz" })).headers["content-security-policy"]).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
  });
});
