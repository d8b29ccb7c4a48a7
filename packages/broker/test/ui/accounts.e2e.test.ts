// docs/router.md, "Saved accounts", seen from the Providers page in Chromium: a saved account's key is typed once,
// never shown again, chosen as a provider's key ("Key from"), used by real /router/v1 requests, and its removal
// fails the attempt with provider_key_unreadable. An admin-only key is never offered.
import { readFileSync } from "node:fs";
import { type ModelMock as MockUpstream, startModelMock as startMock } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { filesContaining } from "../cli/outbound-helpers.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();
const ACCOUNT_KEY = "sk-saved-account-9d2c7e41";
const ADMIN_KEY = "sk-admin-only-5b1f0a88";

describe.skipIf(!run)("saved accounts on the Providers page", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  let mock: MockUpstream;

  beforeEach(async () => {
    ui = await startUiBroker();
    mock = await startMock("chat");
    expect((await ui.ui("PUT", "/router/settings", { enabled: true })).status).toBe(200);
    const made = await ui.ui("POST", "/router/upstreams", {
      slug: "work",
      label: "Work gateway",
      wire: "chat_wire",
      base_url: mock.url,
      models: ["m1"],
      enabled: true,
    });
    expect(made.status).toBe(201);
  });
  afterEach(async () => {
    await ui.close();
    await mock.close();
  });

  const chat = async () => {
    const key = String(readConfigFile(ui.dataDir).RouterKey);
    const response = await fetch(`${ui.broker.url}/router/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "work/m1", messages: [{ role: "user", content: "hi" }] }),
    });
    return { status: response.status, body: (await response.json()) as { error?: { code?: string } } };
  };

  it("saves an account, uses it as a provider's key, and a removed account fails the attempt", async () => {
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/router/providers`);
    const card = page.getByRole("region", { name: "Saved accounts" });
    await card.getByText("No saved accounts.").waitFor();

    const save = async (provider: string, label: string, key: string, admin: boolean) => {
      await card.getByRole("textbox", { name: /Provider/ }).fill(provider);
      await card.getByRole("textbox", { name: "Label" }).fill(label);
      await card.getByLabel("Account key").fill(key);
      if (admin) await card.getByRole("checkbox", { name: /Admin-only key/ }).check();
      await card.getByRole("button", { name: "Save account" }).click();
      await card
        .getByRole("status")
        .filter({ hasText: `Saved ${label}` })
        .waitFor();
      expect(await card.getByLabel("Account key").inputValue()).toBe("");
    };
    await save("openai", "Team OpenAI", ACCOUNT_KEY, false);
    await save("openai", "Billing admin", ADMIN_KEY, true);
    await card.getByRole("listitem").filter({ hasText: "Billing admin" }).getByText("Admin key").waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const accounts = await ui.ui<{ id: string; label: string }[]>("GET", "/router/accounts");
    expect(accounts.text).not.toContain(ACCOUNT_KEY);
    const team = accounts.body.find((account) => account.label === "Team OpenAI");
    expect(team).toBeDefined();

    // Edit the provider: "Key from" offers the usable account only.
    const row = page.getByRole("listitem").filter({ hasText: "Work gateway" });
    await row.getByText("Edit").click();
    const keyFrom = row.getByRole("combobox", { name: "Key from" });
    await keyFrom.locator("option", { hasText: "Team OpenAI" }).waitFor({ state: "attached" });
    expect(await keyFrom.locator("option").allTextContents()).toEqual([
      "The API key field above",
      "Saved account: Team OpenAI (openai)",
    ]);
    await keyFrom.selectOption({ label: "Saved account: Team OpenAI (openai)" });
    await row.getByRole("button", { name: "Save upstream" }).click();
    await expect
      .poll(async () => (await ui.ui<{ credential_ref: string | null }[]>("GET", "/router/upstreams")).body[0])
      .toMatchObject({ credential_ref: `api_account:${team?.id}` });

    // A real request carries the account's key to the provider, and only there.
    expect((await chat()).status).toBe(200);
    expect(mock.hits.at(-1)?.headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);
    expect(await axeViolations(page)).toEqual([]);

    // Removing the account: the next attempt cannot open a key.
    await card
      .getByRole("listitem")
      .filter({ hasText: "Team OpenAI" })
      .getByRole("button", { name: /Remove/ })
      .click();
    await card.getByRole("status").filter({ hasText: "Removed" }).waitFor();
    const failed = await chat();
    expect(failed.body.error?.code).toBe("provider_key_unreadable");

    // Keys are write-only: not in the page, not in any reply, and sealed in the data dir (no file holds them).
    const content = await page.content();
    expect(content).not.toContain(ACCOUNT_KEY);
    expect(content).not.toContain(ADMIN_KEY);
    expect(filesContaining(ui.dataDir, ACCOUNT_KEY)).toEqual([]);
    expect(filesContaining(ui.dataDir, ADMIN_KEY)).toEqual([]);
    expect(readFileSync(`${ui.dataDir}/config.json`, "utf8")).not.toContain("sk-");
    expect(problems.filter((problem) => !problem.includes("status of 4"))).toEqual([]);
    await context.close();
  });
});
