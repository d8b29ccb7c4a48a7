// Issue 37, item 5: `notify test [ROUTE] [--json]` sends a test notification through every enabled route (or one)
// and reports each hop with its time; a failure says the cause and the fix. Loopback fakes: a webhook that accepts,
// one that refuses the credentials, a port where nothing listens, a Telegram Bot API whose bot token was revoked.
import { createServer } from "node:net";
import { untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TelegramServer } from "../chat/telegram-server.js";
import { recordingServer } from "../outbox/webhook-server.js";
import { type CliBroker, runCli, startCliBroker } from "./cli-harness.js";
import { type Json, uiGet, uiSend } from "./outbound-helpers.js";

let cli: CliBroker;
let good: Awaited<ReturnType<typeof recordingServer>>;
let refusing: Awaited<ReturnType<typeof recordingServer>>;
let telegram: TelegramServer;
let closedPort: number;

/** A port that was free a moment ago: nothing listens there. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  cli = await startCliBroker();
  good = await recordingServer();
  refusing = await recordingServer([401, 401, 401]);
  telegram = await new TelegramServer("123456:AAbbCCddEEffGGhhIIjjKKllMMnn_current").start();
  closedPort = await freePort();
  const provider = (name: string, kind: string, settings: Json, secrets: Json, enabled = true) =>
    uiSend(cli, "POST", "/outbound/providers", { kind, name, settings, secrets, enabled });
  const route = (name: string, providerName: string, enabled = true) =>
    uiSend(cli, "POST", "/outbound/routes", { name, provider: providerName, enabled, minimumPriority: "low" });
  await provider("hook-ok", "webhook", { url: good.url }, {});
  await provider("hook-401", "webhook", { url: refusing.url }, {});
  await provider("ntfy-down", "ntfy", { serverUrl: `http://127.0.0.1:${closedPort}`, topic: "agents" }, {});
  await provider(
    "tg",
    "telegram",
    { chatId: 42, apiBaseUrl: telegram.url },
    { botToken: "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_revoked" },
  );
  await provider(
    "tg-answers",
    "telegram",
    { chatId: 42, apiBaseUrl: telegram.url, answers: true, allowedUserIds: [7] },
    { botToken: "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_revoked" },
  );
  await provider("off", "webhook", { url: good.url }, {}, false);
  await route("works", "hook-ok");
  // A second route on the same provider: one test message per provider, both routes report it.
  await route("works-too", "hook-ok");
  await route("answers-revoked", "tg-answers");
  // Its answer loop starts once the broker read the new provider, and fails on the revoked token: wait for that.
  await untilValue(
    "the revoked bot's answer loop failing",
    async () => {
      const providers = await uiGet<Json[]>(cli, "/outbound/providers");
      const tg = providers.find((provider) => provider.name === "tg-answers");
      return tg?.connection?.lastCode === "http_401" ? true : undefined;
    },
    { timeoutMs: 30_000, everyMs: 100 },
  );
  await route("refused", "hook-401");
  await route("down", "ntfy-down");
  await route("revoked", "tg");
  await route("disabled-provider", "off");
  await route("not-enabled", "hook-ok", false);
}, 60_000);
afterAll(async () => {
  await cli?.close();
  await good?.close();
  await refusing?.close();
  await telegram?.close();
});

const notify = (...args: string[]) => runCli([...args, ...cli.target]);

describe("notify test (issue 37, item 5)", () => {
  it("--json: every enabled route with its hops, times, causes and fixes; exit 1 when one fails", async () => {
    const result = await notify("test", "--json");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("notify: testing every enabled route");
    expect(result.stderr).toContain("5 of 7 routes failed");
    const { routes } = JSON.parse(result.stdout) as { routes: Json[] };
    const byName = new Map(routes.map((route) => [route.route, route]));
    expect([...byName.keys()].sort()).toEqual([
      "answers-revoked",
      "disabled-provider",
      "down",
      "refused",
      "revoked",
      "works",
      "works-too",
    ]);
    expect(byName.get("works-too")).toMatchObject({ status: "ok", hops: byName.get("works")?.hops });
    const tests = good.received.filter((request) => JSON.parse(request.body).notification?.title === "Notify test");
    expect(tests).toHaveLength(1);
    // The answer loop of a revoked bot: the fix names Telegram's refusal, not a generic provider.
    expect(byName.get("answers-revoked")?.hops.find((hop: Json) => hop.hop === "answers")).toMatchObject({
      status: "fail",
      detail: "retrying: http_401",
      fix: "Telegram 401: the bot token was revoked or is wrong: set a new botToken",
    });

    expect(byName.get("works")).toMatchObject({
      kind: "webhook",
      status: "ok",
      hops: [
        { hop: "provider", status: "ok" },
        { hop: "send", status: "ok", detail: "accepted (HTTP 200)" },
      ],
    });
    expect(byName.get("works")?.hops[1].ms).toBeTypeOf("number");
    // The test notification reached the webhook.
    expect(good.received.some((request) => JSON.parse(request.body).notification?.title === "Notify test")).toBe(true);

    expect(byName.get("refused")?.hops[1]).toMatchObject({
      status: "fail",
      detail: "http_401",
      fix: "The webhook refused the credentials (401): set the provider's secrets again",
    });
    expect(byName.get("down")?.hops[1]).toMatchObject({
      status: "fail",
      detail: "connection_refused",
      fix: expect.stringContaining("nothing listens at the provider's address"),
    });
    expect(byName.get("revoked")?.hops[1]).toMatchObject({
      status: "fail",
      detail: "http_401",
      fix: "Telegram 401: the bot token was revoked or is wrong: set a new botToken",
    });
    expect(byName.get("disabled-provider")?.hops).toEqual([
      {
        hop: "provider",
        status: "fail",
        ms: 0,
        detail: "provider_disabled",
        fix: "enable the provider off (the Outbound page, or `notify apply`)",
      },
    ]);
    // Never a secret in the report.
    expect(result.stdout).not.toContain("AAbbCCddEEffGGhhIIjjKKllMMnn_revoked");
  });

  it("one route by name: its lines on stdout, exit 0 when it works; an unknown route is an error", async () => {
    const works = await notify("test", "works");
    expect(works.code).toBe(0);
    expect(works.stdout).toMatch(/^works\s+webhook\s+provider\s+ok\s+0 ms {2}hook-ok \(webhook\)$/m);
    expect(works.stdout).toMatch(/^works\s+webhook\s+send\s+ok\s+\d+ ms {2}accepted \(HTTP 200\)$/m);

    // A route that is not enabled is tested when named.
    expect((await notify("test", "not-enabled")).code).toBe(0);

    const down = await notify("test", "down");
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^\s+fix: nothing listens at the provider's address/m);

    const unknown = await notify("test", "no-such-route");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("route not found");
  });
});
