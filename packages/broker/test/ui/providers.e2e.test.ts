// Issue 17, Build item 1: the Providers page in Chromium against a real broker and a model server on loopback:
// pick a preset, fetch its model list, tick, save, and find the provider in the list and in GET /router/v1/models.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();
const PROVIDER_KEY = "sk-local-provider-key-7f3a";

describe.skipIf(!run)("the Providers page in Chromium", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  const seen: IncomingHttpHeaders[] = [];
  // A chat-wire provider on loopback that lists three models, one of them an embedding model.
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    if (request.method === "GET" && request.url === "/v1/models") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          object: "list",
          data: [{ id: "local-coder-7b" }, { id: "local-chat-3b" }, { id: "gpt-5.2" }],
        }),
      );
      return;
    }
    response.writeHead(404).end();
  });
  let providerUrl = "";

  beforeEach(async () => {
    ui = await startUiBroker();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    providerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    expect((await ui.ui("PUT", "/router/settings", { enabled: true })).status).toBe(200);
  });
  afterEach(async () => {
    await ui.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("picks a preset, fetches and ticks models, saves, and the provider routes", async () => {
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/router`);
    await page.getByRole("heading", { name: "Providers", level: 2 }).waitFor();
    await page.getByText("No providers yet: pick one below.").waitFor();
    // Fifteen presets and the custom provider.
    await expect.poll(() => page.locator(".preset-card").count()).toBe(16);
    expect(await axeViolations(page)).toEqual([]);

    // A per-token preset needs a key and can use the one Codex holds; its base URL is prefilled.
    await page.getByRole("button", { name: /^OpenAI/ }).click();
    expect(await page.getByRole("textbox", { name: "Base URL" }).inputValue()).toBe("https://api.openai.com/v1");
    await page.getByRole("checkbox", { name: /Use the key Codex holds/ }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();

    // The OpenCode Go flat plan at the loopback server: its prefix rules give gpt-5.2 the responses wire.
    await page.getByRole("button", { name: /^OpenCode Go/ }).click();
    await page.getByRole("textbox", { name: "Slug" }).fill("local-go");
    await page.getByRole("textbox", { name: "Base URL" }).fill(providerUrl);
    await page.getByLabel("API key").fill(PROVIDER_KEY);
    await page.getByRole("button", { name: "Fetch models" }).click();
    // Every fetched model starts ticked (issue 21, item 18): saving untouched never saves 0 models.
    const picker = page.getByRole("group", { name: /Models \(3 of 3 ticked\)/ });
    await picker.waitFor();
    expect(await picker.getByRole("listitem").allTextContents()).toEqual([
      "local-coder-7b chat",
      "local-chat-3b chat",
      "gpt-5.2 responses",
    ]);
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(await axeViolations(page)).toEqual([]);

    for (const name of ["local-coder-7b chat", "local-chat-3b chat", "gpt-5.2 responses"])
      await page.getByRole("checkbox", { name }).uncheck();
    await page.getByText("No model ticked: this provider would be saved with no models").waitFor();
    await page.getByRole("checkbox", { name: "local-coder-7b chat" }).check();
    await page.getByRole("checkbox", { name: "gpt-5.2 responses" }).check();
    await page.getByRole("group", { name: /Models \(2 of 3 ticked\)/ }).waitFor();
    await page.getByRole("button", { name: "Add provider" }).click();

    await page.getByRole("status").filter({ hasText: "Added OpenCode Go" }).waitFor();
    const row = page.getByRole("listitem").filter({ hasText: "local-go" });
    await row.getByText(/key set · 2 models/).waitFor();
    const toggle = row.getByRole("switch");
    expect(await toggle.isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    const upstreams = (await ui.ui("GET", "/router/upstreams")).body as {
      slug: string;
      models: string[];
      model_wires: Record<string, string>;
    }[];
    expect(upstreams).toHaveLength(1);
    expect(upstreams[0]).toMatchObject({
      slug: "local-go",
      models: ["local-coder-7b", "gpt-5.2"],
      model_wires: { "gpt-5.2": "responses_wire" },
    });
    const routerKey = String(readConfigFile(ui.dataDir).RouterKey);
    const listed = await fetch(`${ui.broker.url}/router/v1/models`, {
      headers: { authorization: `Bearer ${routerKey}` },
    });
    const ids = ((await listed.json()) as { data: { id: string }[] }).data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(["local-go/local-coder-7b", "local-go/gpt-5.2"]));
    expect(ids).not.toContain("local-go/local-chat-3b");

    // The per-provider switch: off, and the provider's models leave the model list.
    await toggle.uncheck();
    await page.getByRole("status").filter({ hasText: "OpenCode Go off" }).waitFor();
    const after = await fetch(`${ui.broker.url}/router/v1/models`, {
      headers: { authorization: `Bearer ${routerKey}` },
    });
    expect(JSON.stringify(await after.json())).not.toContain("local-go/");

    expect(await page.content()).not.toContain(PROVIDER_KEY);
    expect(problems).toEqual([]);
    await context.close();
  });
});
