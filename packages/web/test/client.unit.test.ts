import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, call, onUnauthorized } from "../src/api/client.js";

interface Sent {
  url: string;
  init: RequestInit;
}

/** A fetch that records each request and answers with `reply` (the broker is outside this tier). */
function stubFetch(reply: () => Response): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return reply();
  });
  return sent;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the web app's /ui/api client", () => {
  it("a read carries no X-Notify-UI and no body; a change carries the header and JSON", async () => {
    const sent = stubFetch(() => json(200, { ok: true }));
    await call("GET", "/types");
    await call("PUT", "/types", [{ name: "done" }]);
    const [read, change] = sent;
    expect(read?.url).toBe("/ui/api/types");
    expect(read?.init.headers).toEqual({ accept: "application/json" });
    expect(read?.init.body).toBeUndefined();
    expect(read?.init.credentials).toBe("same-origin");
    expect(change?.init.headers).toEqual({
      accept: "application/json",
      "x-notify-ui": "1",
      "content-type": "application/json",
    });
    expect(change?.init.body).toBe('[{"name":"done"}]');
  });

  it("a Blob goes as its raw bytes (a sound file), ids are URL-encoded", async () => {
    const sent = stubFetch(() => json(201, {}));
    const file = new File([new Uint8Array([1, 2, 3])], "bell ding.wav");
    await api.sounds.import(file);
    expect(sent[0]?.url).toBe("/ui/api/sounds/files/bell%20ding.wav");
    expect(sent[0]?.init.body).toBe(file);
    expect(sent[0]?.init.headers).toMatchObject({ "content-type": "application/octet-stream" });
  });

  it("204 is undefined; a refusal throws ApiError with the broker's error text and body", async () => {
    stubFetch(() => new Response(null, { status: 204 }));
    await expect(call("DELETE", "/session")).resolves.toBeUndefined();
    stubFetch(() => json(400, { error: "name is required" }));
    const error = await call("POST", "/outbound/routes", {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, message: "name is required", body: { error: "name is required" } });
  });

  it("a refusal that names its option carries it as `field`; one that does not has none (docs/api.md, Errors)", async () => {
    const text = "quiet_hours.end: must be HH:MM, 00:00-23:59";
    stubFetch(() => json(400, { error: text, field: "quiet_hours.end" }));
    const named = await call("PATCH", "/outbound/routes/r", {}).catch((caught: unknown) => caught);
    expect(named).toMatchObject({ status: 400, message: text, field: "quiet_hours.end" });
    // The text alone says nothing to the page: no field is made up from it.
    stubFetch(() => json(400, { error: text }));
    const unnamed = await call("PATCH", "/outbound/routes/r", {}).catch((caught: unknown) => caught);
    expect((unnamed as ApiError).field).toBeUndefined();
  });

  it("a body that is not JSON falls back to the status text", async () => {
    stubFetch(() => new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
    await expect(call("GET", "/inbox")).rejects.toMatchObject({ status: 502, message: "Bad Gateway" });
  });

  it("a 401 tells every listener and carries the command that prints a login link", async () => {
    stubFetch(() => json(401, { error: "sign in" }, { "x-notify-open-command": "notify open" }));
    const heard: string[] = [];
    const stop = onUnauthorized(() => heard.push("gone"));
    await expect(call("GET", "/session")).rejects.toMatchObject({ status: 401, openCommand: "notify open" });
    stop();
    await expect(call("GET", "/session")).rejects.toBeInstanceOf(ApiError);
    expect(heard).toEqual(["gone"]);
  });
});
