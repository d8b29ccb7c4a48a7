import { describe, expect, it } from "vitest";
import { formatText, TELEGRAM_API_BASE_URL, telegramAdapter } from "../../../src/surfaces/telegram/send.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { closedPort, expectPost, jsonBody, loopbackHttpPerTest } from "./loopback-http.js";

const SECRETS = { botToken: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" };

describe("telegram adapter (https://core.telegram.org/bots/api#sendmessage)", () => {
  const server = loopbackHttpPerTest();

  const settings = (extra: Record<string, unknown> = {}) =>
    telegramAdapter.parseSettings({ apiBaseUrl: server.origin, chatId: "-1001234567890", ...extra });

  it("POSTs {chat_id, text, link_preview_options} to /bot<token>/sendMessage", async () => {
    const result = await telegramAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = server.requests;
    expectPost(request, `/bot${SECRETS.botToken}/sendMessage`);
    expect(jsonBody(request)).toEqual({
      chat_id: "-1001234567890",
      text: `Build done\n\n${MESSAGE}`,
      // Bot API 7.0 replaced disable_web_page_preview with link_preview_options.
      link_preview_options: { is_disabled: true },
    });
    expectNoSecrets(result, SECRETS);
  });

  it("sends parse_mode HTML with a bold, escaped title", async () => {
    await telegramAdapter.send(
      samplePayload({ title: "a<b", message: "x & y" }),
      settings({ parseMode: "HTML", disableLinkPreview: false, chatId: 42 }),
      SECRETS,
      deliveryContext(),
    );
    expect(jsonBody(server.requests[0])).toEqual({
      chat_id: 42,
      text: "<b>a&lt;b</b>\n\nx &amp; y",
      parse_mode: "HTML",
      link_preview_options: { is_disabled: false },
    });
  });

  it("escapes MarkdownV2's reserved characters", () => {
    expect(formatText("v1.2 (beta)!", "a_b*c", "MarkdownV2")).toBe("*v1\\.2 \\(beta\\)\\!*\n\na\\_b\\*c");
  });

  it("sends the title alone when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await telegramAdapter.send(titleOnly(), settings(), SECRETS, deliveryContext());
    expect(server.requests[0]?.body).not.toContain(MESSAGE);
    expect((jsonBody(server.requests[0]) as { text: string }).text).toBe("Build done");
  });

  it("cuts the text to Telegram's 4096 characters", async () => {
    await telegramAdapter.send(samplePayload({ message: "m".repeat(5000) }), settings(), SECRETS, deliveryContext());
    expect((jsonBody(server.requests[0]) as { text: string }).text).toHaveLength(4096);
  });

  it("never lets the bot token (which is in the URL path) reach a result, on any outcome", async () => {
    server.respond((_request, response) =>
      response.writeHead(401).end(`{"ok":false,"error_code":401,"description":"Unauthorized ${SECRETS.botToken}"}`),
    );
    const unauthorized = await telegramAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(unauthorized).toEqual({ ok: false, retryable: false, code: "http_401", status: 401 });
    expectNoSecrets(unauthorized, SECRETS);

    const refused = telegramAdapter.parseSettings({
      apiBaseUrl: `http://127.0.0.1:${await closedPort()}`,
      chatId: "1",
    });
    const network = await telegramAdapter.send(samplePayload(), refused, SECRETS, deliveryContext());
    expect(network).toEqual({ ok: false, retryable: true, code: "connection_refused" });
    expectNoSecrets(network, SECRETS);

    server.respond(() => {
      // Never answers.
    });
    const timedOut = await telegramAdapter.send(
      samplePayload(),
      settings(),
      SECRETS,
      deliveryContext(AbortSignal.timeout(100)),
    );
    expect(timedOut).toEqual({ ok: false, retryable: true, code: "timeout" });
    expectNoSecrets(timedOut, SECRETS);
  });

  it("honours a 429's parameters.retry_after", async () => {
    server.respond((_request, response) =>
      response
        .writeHead(429, { "content-type": "application/json" })
        .end(
          '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5","parameters":{"retry_after":5}}',
        ),
    );
    expect(await telegramAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "http_429",
      status: 429,
      retryAfterMs: 5000,
    });
  });

  it("refuses a malformed bot token before building a URL from it", async () => {
    const bad = { botToken: "123:abc/../../evil" };
    const result = await telegramAdapter.send(samplePayload(), settings(), bad, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "provider_secret_invalid" });
    expectNoSecrets(result, bad);
    expect(server.requests).toHaveLength(0);
  });

  it("checks settings and defaults the API base URL", () => {
    expect(telegramAdapter.parseSettings({ chatId: "@notify_channel" })).toEqual({
      chatId: "@notify_channel",
      apiBaseUrl: TELEGRAM_API_BASE_URL,
    });
    expect(TELEGRAM_API_BASE_URL).toBe("https://api.telegram.org");
    expect(() => telegramAdapter.parseSettings({ chatId: "not a chat" })).toThrow(/chatId/);
    expect(() => telegramAdapter.parseSettings({ chatId: "1", parseMode: "Markdown" })).toThrow(/parseMode/);
  });
});
