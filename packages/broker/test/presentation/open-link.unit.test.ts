import { describe, expect, it } from "vitest";
import { testBroker } from "../helpers.js";

// A toast's Open button (the `default` action) opens a one-time login link whose `next` is the item's place in the
// web UI (docs/desktop.md, "The D-Bus calls"). Only page paths under /ui are followed.
describe("login link with next", () => {
  it.each([
    ["/ui/#ntf_0123456789abcdef01234567", "/ui/#ntf_0123456789abcdef01234567"],
    ["/ui/#int_0123456789abcdef01234567", "/ui/#int_0123456789abcdef01234567"],
    ["https://evil.example/", "/ui/"],
    ["//evil.example/ui/", "/ui/"],
    ["/ui/\r\nset-cookie: x=1", "/ui/"],
    ["/v1/notifications", "/ui/"],
  ])("next=%j lands on %s", async (next, location) => {
    const broker = testBroker();
    const { token } = broker.uiSessions.createLinkToken();
    const response = await broker.app.inject({
      method: "GET",
      url: `/ui/login?t=${token}&next=${encodeURIComponent(next)}`,
      headers: { host: "127.0.0.1:47821" },
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(location);
  });
});
