// Issue 37, item 5, Must show: `notify test` against a working and a broken route of each kind, each on a loopback
// fake of its service (HTTP for webhook, ntfy, Gotify, Pushover, Slack and Discord webhooks, the Bot API for
// Telegram, SMTP for email): the working one passes, the broken one fails with its fixed code and the fix that names
// the service, and the report carries no secret. One `notify test --json` run over all sixteen routes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TelegramServer } from "../chat/telegram-server.js";
import { type LoopbackSmtp, loopbackSmtp } from "../outbox/providers/loopback-smtp.js";
import { recordingServer } from "../outbox/webhook-server.js";
import { type CliBroker, runCli, startCliBroker } from "./cli-harness.js";
import { type Json, uiSend } from "./outbound-helpers.js";

let cli: CliBroker;
let good: Awaited<ReturnType<typeof recordingServer>>;
let refusing: Awaited<ReturnType<typeof recordingServer>>;
let telegram: TelegramServer;
let smtpOk: LoopbackSmtp;
let smtpAuth: LoopbackSmtp;

const GOOD_TOKEN = "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_current";
const SECRETS = {
  gotify: "AgotifyAppToken.123",
  pushoverToken: "azGDORePK8gMaC0QOYAMyEEuzJnyUi",
  pushoverUser: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG",
  password: "smtp-password-not-this-one",
};

beforeAll(async () => {
  cli = await startCliBroker();
  good = await recordingServer();
  refusing = await recordingServer(Array.from({ length: 40 }, () => 401));
  telegram = await new TelegramServer(GOOD_TOKEN).start();
  smtpOk = await loopbackSmtp();
  smtpAuth = await loopbackSmtp({ auth: ["PLAIN"], credentials: { username: "me", password: "the-right-one" } });
  const origin = (server: { url: string }) => new URL(server.url).origin;
  const pair = async (kind: string, settings: (ok: boolean) => Json, secrets: (ok: boolean) => Json) => {
    for (const ok of [true, false]) {
      const name = `${kind}-${ok ? "ok" : "broken"}`;
      await uiSend(cli, "POST", "/outbound/providers", {
        kind,
        name,
        enabled: true,
        settings: settings(ok),
        secrets: secrets(ok),
      });
      await uiSend(cli, "POST", "/outbound/routes", { name, provider: name, enabled: true, minimumPriority: "low" });
    }
  };
  const server = (ok: boolean) => (ok ? good : refusing);
  await pair(
    "webhook",
    (ok) => ({ url: server(ok).url }),
    () => ({}),
  );
  await pair(
    "ntfy",
    (ok) => ({ serverUrl: origin(server(ok)), topic: "agents" }),
    () => ({}),
  );
  await pair(
    "gotify",
    (ok) => ({ serverUrl: origin(server(ok)) }),
    () => ({ appToken: SECRETS.gotify }),
  );
  await pair(
    "pushover",
    (ok) => ({ apiUrl: `${origin(server(ok))}/1/messages.json` }),
    () => ({ apiToken: SECRETS.pushoverToken, userKey: SECRETS.pushoverUser }),
  );
  await pair(
    "slack",
    () => ({}),
    (ok) => ({ webhookUrl: `${origin(server(ok))}/services/T0/B0/slack` }),
  );
  await pair(
    "discord",
    () => ({}),
    (ok) => ({ webhookUrl: `${origin(server(ok))}/api/webhooks/1/discord` }),
  );
  await pair(
    "telegram",
    () => ({ chatId: 42, apiBaseUrl: telegram.url }),
    (ok) => ({ botToken: ok ? GOOD_TOKEN : "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_revoked" }),
  );
  await pair(
    "email",
    (ok) => ({
      host: "127.0.0.1",
      port: ok ? smtpOk.port : smtpAuth.port,
      startTls: false,
      from: "notify@example.com",
      to: ["me@example.com"],
    }),
    (ok) => (ok ? {} : { username: "me", password: SECRETS.password }),
  );
}, 90_000);

afterAll(async () => {
  await cli?.close();
  await good?.close();
  await refusing?.close();
  await telegram?.close();
  await smtpOk?.close();
  await smtpAuth?.close();
});

describe("notify test: a working and a broken route of each kind (issue 37, item 5)", () => {
  it("passes each working route, fails each broken one with its code and the service's fix; exit 1", async () => {
    const result = await runCli(["test", "--json", ...cli.target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("8 of 16 routes failed");
    const routes = new Map(
      (JSON.parse(result.stdout) as { routes: Json[] }).routes.map((route) => [route.route, route]),
    );
    const send = (name: string) => routes.get(name)?.hops.find((hop: Json) => hop.hop === "send");
    for (const kind of ["webhook", "ntfy", "gotify", "pushover", "slack", "discord", "telegram", "email"]) {
      expect(routes.get(`${kind}-ok`), kind).toMatchObject({ kind, status: "ok" });
      expect(routes.get(`${kind}-broken`), kind).toMatchObject({ kind, status: "fail" });
    }
    const refused = (service: string) => `${service} refused the credentials (401): set the provider's secrets again`;
    expect(send("webhook-broken")).toMatchObject({ detail: "http_401", fix: refused("The webhook") });
    expect(send("ntfy-broken")).toMatchObject({ detail: "http_401", fix: refused("ntfy") });
    expect(send("gotify-broken")).toMatchObject({ detail: "http_401", fix: refused("Gotify") });
    expect(send("pushover-broken")).toMatchObject({ detail: "http_401", fix: refused("Pushover") });
    expect(send("slack-broken")).toMatchObject({ detail: "http_401", fix: refused("Slack") });
    expect(send("discord-broken")).toMatchObject({ detail: "http_401", fix: refused("Discord") });
    expect(send("telegram-broken")).toMatchObject({
      detail: "http_401",
      fix: "Telegram 401: the bot token was revoked or is wrong: set a new botToken",
    });
    expect(send("email-broken")).toMatchObject({
      detail: "smtp_535",
      fix: "the SMTP server refused the login: check the username and password",
    });
    // The working fakes got the test message: one per provider.
    expect(good.received.length).toBe(6);
    expect(smtpOk.messages).toHaveLength(1);
    expect(telegram.sent().length).toBeGreaterThanOrEqual(1);
    // No secret in the report.
    for (const secret of [SECRETS.gotify, SECRETS.pushoverToken, SECRETS.pushoverUser, SECRETS.password, GOOD_TOKEN]) {
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
    }
  });
});
