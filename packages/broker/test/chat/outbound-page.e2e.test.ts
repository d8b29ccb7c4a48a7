// Issue 25, item 3: the Outbound page shows each chat provider's answer loop as connected, or retrying with the
// last error code; its form adds a slack_app provider with the settings and both secrets. Chromium, a real
// broker, the loopback Bot API and Slack.

import { until } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import {
  axeViolations,
  chromiumAvailable,
  signedInPage,
  startUiBroker,
  type UiBroker,
  useBrowser,
} from "../ui/browser.js";
import { SlackServer } from "./slack-server.js";
import { TelegramServer } from "./telegram-server.js";

const TG_TOKEN = "555555:AApageTESTpageTESTpageTEST_tok";
const APP_TOKEN = "xapp-1-A0PAGE01-1-pageappsecretpageapp";
const BOT_TOKEN = "xoxb-1-2-pagebotsecretpagebot";
const SHOTS = process.env.NOTIFY_CHAT_SHOTS;

describe.skipIf(!chromiumAvailable())("Outbound page: chat providers (issue 25)", { timeout: 90_000 }, () => {
  const browser = useBrowser();
  let ui: UiBroker;
  let tg: TelegramServer;
  let slack: SlackServer;
  beforeEach(async () => {
    ui = await startUiBroker();
    tg = await new TelegramServer(TG_TOKEN).start();
    slack = await new SlackServer(APP_TOKEN, BOT_TOKEN).start();
  });
  afterEach(async () => {
    await ui.close();
    await tg.close();
    await slack.close();
  });

  it("shows Connected and Retrying with the last error code, and adds a slack_app provider from the form", async () => {
    expect(
      (
        await ui.ui("POST", "/outbound/providers", {
          kind: "telegram",
          name: "phone-bot",
          enabled: true,
          settings: { chatId: 4242, answers: true, allowedUserIds: ["7"], apiBaseUrl: tg.url },
          secrets: { botToken: TG_TOKEN },
        })
      ).status,
    ).toBe(201);
    // Slack refuses the app token for a while: the loop retries and the page says why.
    slack.fail("apps.connections.open", { error: "invalid_auth" }, 1_000);
    expect(
      (
        await ui.ui("POST", "/outbound/providers", {
          kind: "slack_app",
          name: "team-slack",
          enabled: true,
          settings: { channel: "C0AGENTS1", allowedUserIds: ["U0ANN0001"], apiBaseUrl: slack.apiBaseUrl },
          secrets: { appToken: APP_TOKEN, botToken: BOT_TOKEN },
        })
      ).status,
    ).toBe(201);
    await until(() => tg.callsOf("getUpdates").length > 0, 30_000);

    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/outbound`);
    await page.getByRole("heading", { name: "Outbound", level: 1 }).waitFor();
    const telegramRow = page.locator("li.config-row", { hasText: "phone-bot" });
    const slackRow = page.locator("li.config-row", { hasText: "team-slack" });
    // The page loads the listing once; reload until the Slack loop has failed at least once.
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((await slackRow.locator(".connection-line").textContent())?.includes("Retrying")) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await page.reload();
      await page.getByRole("heading", { name: "Outbound", level: 1 }).waitFor();
    }
    expect(await telegramRow.locator(".connection-line").textContent()).toMatch(/^Answers: Connected since/);
    expect(await slackRow.locator(".connection-line").textContent()).toMatch(
      /^Answers: Retrying · last error slack_invalid_auth since/,
    );
    expect(await axeViolations(page)).toEqual([]);
    if (SHOTS) {
      await page.screenshot({ path: `${SHOTS}/outbound-1280.png`, fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: `${SHOTS}/outbound-390.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // The form: choosing slack_app fills in an example of its settings and asks for both secrets.
    await page.getByText("Add a provider").click();
    const form = page.locator("details.add-form");
    await form.getByRole("combobox", { name: "Kind" }).selectOption("slack_app");
    const settingsField = form.getByRole("textbox", { name: "Settings (JSON)" });
    expect(JSON.parse(await settingsField.inputValue())).toEqual({
      channel: "C0123ABCD",
      allowedUserIds: ["U0123ABCD"],
    });
    await form.getByRole("textbox", { name: "Name" }).fill("second-slack");
    await settingsField.fill(
      JSON.stringify({ channel: "C0OTHER01", allowedUserIds: ["U0BOB0002"], apiBaseUrl: slack.apiBaseUrl }),
    );
    await form.getByLabel("appToken").fill(APP_TOKEN);
    await form.getByLabel("botToken").fill(BOT_TOKEN);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/outbound-form-1280.png`, fullPage: true });
    await form.getByRole("button", { name: "Add provider" }).click();
    await page
      .locator("li.config-row", { hasText: "second-slack" })
      .getByText(/appToken set, botToken set/)
      .waitFor();
    const providers = (await ui.ui<Json[]>("GET", "/outbound/providers")).body;
    const added = providers.find((provider: Json) => provider.name === "second-slack");
    expect(added).toMatchObject({ kind: "slack_app", settings: { channel: "C0OTHER01" }, enabled: false });
    // Neither token is anywhere in the page.
    const html = await page.content();
    for (const secret of [TG_TOKEN, APP_TOKEN, BOT_TOKEN]) expect(html).not.toContain(secret);
    expect(problems).toEqual([]);
    await context.close();
  });
});
