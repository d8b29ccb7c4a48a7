import { ModelMock as MockUpstream } from "@notify/test-kit";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import type { Json } from "../helpers.js";
import {
  chromiumAvailable,
  pageAxeViolations,
  startUiBroker,
  type UiBroker,
  useBrowser,
  useSharedPage,
} from "./browser.js";

const run = chromiumAvailable();

/** What Chromium logs for each refused /ui/api call (a 4xx answer); the tests count them. */
const REFUSED = "console: Failed to load resource: the server responded with a status of 400 (Bad Request)";

/**
 * The Router area's Routing and Effort mapping pages in Chromium (docs/router.md, "Web pages"): what the page
 * saves is checked through the broker's own /ui/api/router, and routes made in the page carry real /router/v1
 * requests to loopback providers.
 */
describe.skipIf(!run)("Router pages in Chromium: Routing and Effort mapping", () => {
  const browser = useBrowser();
  // One page for the file: each test signs it in to its own broker and loads the page it is about.
  const shared = useSharedPage(browser);
  let ui: UiBroker;
  let alpha: MockUpstream;
  let beta: MockUpstream;
  let routerKey: string;

  beforeEach(async () => {
    ui = await startUiBroker();
    alpha = await new MockUpstream("chat").start();
    beta = await new MockUpstream("chat").start();
    expect((await ui.ui("PUT", "/router/settings", { enabled: true })).status).toBe(200);
    routerKey = String(readConfigFile(ui.dataDir).RouterKey);
    for (const [slug, mock, models] of [
      ["alpha", alpha, ["coder", "gpt-5"]],
      ["beta", beta, ["chat"]],
    ] as const) {
      const created = await ui.ui("POST", "/router/upstreams", {
        slug,
        wire: "chat_wire",
        base_url: mock.url,
        models,
        enabled: true,
      });
      expect(created.status).toBe(201);
    }
  });
  afterEach(async () => {
    await ui.close();
    await alpha.close();
    await beta.close();
  });

  const client = () => new OpenAI({ baseURL: `${ui.broker.url}/router/v1`, apiKey: routerKey, maxRetries: 0 });
  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    client().chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], ...extra });
  const routes = async () => (await ui.ui<Json[]>("GET", "/router/routes")).body;
  const status = async () => (await ui.ui<Json>("GET", "/router/status")).body;
  const effort = async () => (await ui.ui<Json>("GET", "/router/effort")).body;
  const statusLine = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text });

  it("makes an alias and a combo (targets reordered) that real requests resolve through, then edits, disables and refuses a delete", async () => {
    const { page, problems } = await shared.open(ui, { path: "/ui/router/routing" });
    const subNav = page.getByRole("navigation", { name: "Router pages" });
    expect(await subNav.getByRole("link", { name: "Routing" }).getAttribute("aria-current")).toBe("page");
    expect(await subNav.getByRole("link", { name: "Providers" }).getAttribute("aria-current")).toBeNull();

    // The target picker offers the enabled upstreams' provider/model pairs.
    const offered = () =>
      page
        .locator("#router-target-choices option")
        .evaluateAll((options) => options.map((option) => (option as { value: string }).value));
    await expect.poll(offered).toEqual(["alpha/coder", "alpha/gpt-5", "beta/chat"]);

    const add = page.getByRole("form", { name: "Add an alias or combo" });
    await page.getByText("Add an alias or combo", { exact: true }).click();
    await add.getByRole("textbox", { name: "Name" }).fill("fast");
    await add.getByRole("combobox", { name: "Target 1" }).fill("alpha/coder");
    await add.getByRole("button", { name: "Add route" }).click();
    await statusLine(page, "Added alias fast").waitFor();

    await add.getByRole("textbox", { name: "Name" }).fill("pair");
    await add.getByRole("combobox", { name: "Kind" }).selectOption("combo");
    await add.getByRole("combobox", { name: "Target 1" }).fill("beta/chat");
    await add.getByRole("button", { name: "Add target" }).click();
    await add.getByRole("combobox", { name: "Target 2" }).fill("alpha/coder");
    // Typed beta first; moved alpha up, so alpha is tried first.
    expect(await add.getByRole("button", { name: "Move target 1 up" }).isDisabled()).toBe(true);
    await add.getByRole("button", { name: "Move target 2 up" }).click();
    expect(await add.getByRole("combobox", { name: "Target 1" }).inputValue()).toBe("alpha/coder");
    await add.getByRole("button", { name: "Add route" }).click();
    await statusLine(page, "Added combo pair").waitFor();

    expect((await routes()).map(({ name, kind, targets, enabled }) => ({ name, kind, targets, enabled }))).toEqual([
      { name: "fast", kind: "alias", targets: ["alpha/coder"], enabled: true },
      { name: "pair", kind: "combo", targets: ["alpha/coder", "beta/chat"], enabled: true },
    ]);

    // A real request by the alias's name reaches alpha with the native model.
    const viaAlias = await chat("fast");
    expect(viaAlias.choices[0]?.message.content).toBe(alpha.text);
    expect(alpha.hits.at(-1)?.body.model).toBe("coder");
    // The combo fails over in the page's order: alpha refuses, beta answers.
    alpha.script.push({ kind: "status", status: 503, body: { error: { message: "busy" } } });
    const viaCombo = await chat("combo/pair");
    expect(viaCombo.choices[0]?.message.content).toBe(beta.text);
    expect(alpha.hits.at(-1)?.body.model).toBe("coder");
    expect(beta.hits.map((hit) => hit.body.model)).toEqual(["chat"]);

    // Edit the combo: beta moved back to first.
    await page.getByText("Edit pair").click();
    const edit = page.getByRole("form", { name: "Edit combo pair" });
    await edit.getByRole("button", { name: "Move target 2 up" }).click();
    await edit.getByRole("button", { name: "Save route" }).click();
    await statusLine(page, "Saved pair").waitFor();
    expect((await routes()).find((route) => route.name === "pair")?.targets).toEqual(["beta/chat", "alpha/coder"]);
    await chat("combo/pair");
    expect(beta.hits).toHaveLength(2);

    // Disable the alias: the broker stores it and the name no longer routes.
    await page.getByRole("button", { name: "Disable fast" }).click();
    await statusLine(page, "Disabled fast").waitFor();
    expect((await routes()).find((route) => route.name === "fast")?.enabled).toBe(false);
    await expect(chat("fast")).rejects.toMatchObject({ status: 404 });
    await page.getByRole("button", { name: "Enable fast" }).click();
    await statusLine(page, "Enabled fast").waitFor();

    // The default route names the combo: deleting it is refused with the broker's own message.
    const defaultRoute = page.getByRole("form", { name: "Default route" });
    await defaultRoute.getByRole("combobox", { name: "Default route" }).fill("pair");
    await defaultRoute.getByRole("button", { name: "Save default route" }).click();
    await statusLine(page, "Saved the default route").waitFor();
    expect((await status()).default_route).toBe("pair");
    await page.getByRole("button", { name: "Delete pair" }).click();
    const refusal = await ui.ui<Json>("DELETE", "/router/routes/pair");
    expect(refusal.status).toBe(400);
    await statusLine(page, refusal.body.error).waitFor();
    expect((await routes()).map((route) => route.name)).toEqual(["fast", "pair"]);
    // A request with no model goes to the default route (beta first since the edit).
    await client().chat.completions.create({ messages: [{ role: "user", content: "hi" }] } as never);
    expect(beta.hits).toHaveLength(3);
    // Nothing names the alias: it is deleted.
    await page.getByRole("button", { name: "Delete fast" }).click();
    await statusLine(page, "Deleted fast").waitFor();
    expect((await routes()).map((route) => route.name)).toEqual(["pair"]);

    expect(problems).toEqual([REFUSED]);
  });

  it("saves the smart switching strategy and the cross-model fallback, and shows a refused fallback", async () => {
    const { page, problems } = await shared.open(ui, { path: "/ui/router/routing" });
    const off = page.getByRole("radio", { name: "off" });
    await off.waitFor();
    expect(await off.isChecked()).toBe(true);
    // Every strategy explains itself in one line, tied to its radio.
    for (const strategy of ["off", "ordered", "sticky", "round robin"]) {
      const radio = page.getByRole("radio", { name: strategy, exact: true });
      expect((await radio.getAttribute("aria-describedby")) ?? "").not.toBe("");
    }
    await page.getByRole("radio", { name: "round robin" }).check();
    await statusLine(page, "Smart switching: round robin").waitFor();
    expect((await status()).switch_strategy).toBe("round_robin");
    await page.getByRole("radio", { name: "sticky" }).check();
    await statusLine(page, "Smart switching: sticky").waitFor();
    expect((await status()).switch_strategy).toBe("sticky");

    const fallback = page.getByRole("form", { name: "Fallback route for native models" });
    const input = fallback.getByRole("combobox", { name: "Fallback route for native models" });
    const tooLong = `beta/${"x".repeat(300)}`;
    await input.fill(tooLong);
    await fallback.getByRole("button", { name: "Save fallback route for native models" }).click();
    const refusal = await ui.ui<Json>("PUT", "/router/settings", { native_fallback_route: tooLong });
    expect(refusal.status).toBe(400);
    await statusLine(page, refusal.body.error).waitFor();
    expect((await status()).native_fallback_route).toBeNull();

    await input.fill("beta/chat");
    await fallback.getByRole("button", { name: "Save fallback route for native models" }).click();
    await statusLine(page, "Saved the fallback route").waitFor();
    expect((await status()).native_fallback_route).toBe("beta/chat");
    // Still there after a reload, and Clear removes it.
    await page.reload();
    expect(await input.inputValue()).toBe("beta/chat");
    expect(await page.getByRole("radio", { name: "sticky" }).isChecked()).toBe(true);
    await fallback.getByRole("button", { name: "Clear fallback route for native models" }).click();
    await page.waitForFunction(async () => {
      const body = (await (await fetch("/ui/api/router/status")).json()) as { native_fallback_route: unknown };
      return body.native_fallback_route === null;
    });
    expect(problems).toEqual([REFUSED]);
  });

  it("saves a family override that real requests follow, shows the broker's monotonic refusal, and resets", async () => {
    const { page, problems } = await shared.open(ui, { path: "/ui/router/effort" });
    const tab = page.getByRole("tab", { name: "Families" });
    expect(await tab.getAttribute("aria-selected")).toBe("true");
    await page.getByText("GPT-5 (gpt-5, -mini, -nano, -codex)").click();
    // All ten families are listed.
    expect(await page.locator("details.family").count()).toBe(10);
    const form = page.getByRole("form", { name: "Overrides for gpt-5" });
    // Rows low, medium, high, xhigh, max, default; cells: automatic, override, what requests get.
    const row = (level: string) =>
      form.locator("tbody tr").nth(["low", "medium", "high", "xhigh", "max", "default"].indexOf(level));
    expect(await row("max").getByRole("cell").first().textContent()).toBe("high"); // automatic: collapsed on top
    await form.getByRole("combobox", { name: "Override for low" }).selectOption("minimal");
    await form.getByRole("combobox", { name: "Override for the default" }).selectOption("(omit)");
    await form.getByRole("button", { name: "Save gpt-5 overrides" }).click();
    await statusLine(page, "gpt-5: saved").waitFor();
    const family = async () => ((await effort()).families as Json[]).find((item) => item.id === "gpt-5");
    expect((await family()).override).toEqual({ levels: { low: "minimal" }, default: null });
    await expect.poll(() => row("low").getByRole("cell").last().textContent()).toBe("minimal");
    // A real request asking for low now gets minimal at a gpt-5 model.
    await chat("alpha/gpt-5", { reasoning_effort: "low" });
    expect(alpha.hits.at(-1)?.body.reasoning_effort).toBe("minimal");

    // high below medium: refused by the broker, shown as it says it, nothing stored.
    await form.getByRole("combobox", { name: "Override for high" }).selectOption("low");
    await form.getByRole("button", { name: "Save gpt-5 overrides" }).click();
    const refusal = await ui.ui<Json>("PUT", "/router/effort/families/gpt-5", {
      levels: { low: "minimal", high: "low" },
      default: null,
    });
    expect(refusal.status).toBe(400);
    expect(refusal.body.error).toMatch(/not monotonic/);
    await form.getByRole("alert").filter({ hasText: refusal.body.error }).waitFor();
    expect((await family()).override).toEqual({ levels: { low: "minimal" }, default: null });

    await form.getByRole("button", { name: "Reset gpt-5 to automatic" }).click();
    await statusLine(page, "gpt-5: back to automatic").waitFor();
    expect((await family()).override).toBeNull();
    expect(await form.getByRole("combobox", { name: "Override for low" }).inputValue()).toBe("");
    expect(problems).toEqual([REFUSED]);
  });

  it("adds a per-model override (choices from the model's family) and removes it", async () => {
    const { page, problems } = await shared.open(ui, { path: "/ui/router/effort" });
    await page.getByRole("tab", { name: "Per model" }).click();
    const form = page.getByRole("form", { name: "Per-model override" });
    await form.getByRole("combobox", { name: "Model (provider/model)" }).fill("alpha/gpt-5");
    await form.getByText("Family gpt-5").waitFor();
    const highChoices = await form
      .getByRole("combobox", { name: "Override for high" })
      .locator("option")
      .evaluateAll((options) => options.map((option) => (option as { value: string }).value));
    expect(highChoices).toEqual(["", "(omit)", "minimal", "low", "medium", "high"]);
    await form.getByRole("combobox", { name: "Override for low" }).selectOption("(omit)");
    await form.getByRole("combobox", { name: "Override for max" }).selectOption("high");
    await form.getByRole("button", { name: "Save override" }).click();
    await statusLine(page, "Saved the override of alpha/gpt-5").waitFor();
    expect((await effort()).models).toEqual({ "alpha/gpt-5": { levels: { low: null, max: "high" } } });
    const listed = page.getByRole("row", { name: /alpha\/gpt-5/ });
    await listed.waitFor();
    expect((await listed.getByRole("cell").allTextContents()).slice(0, 6)).toEqual([
      "omit",
      "–",
      "–",
      "–",
      "high",
      "–",
    ]);
    await chat("alpha/gpt-5", { reasoning_effort: "low" });
    expect(alpha.hits.at(-1)?.body).not.toHaveProperty("reasoning_effort");
    // Edit loads the stored set into the form.
    await page.getByRole("button", { name: "Edit alpha/gpt-5" }).click();
    expect(await form.getByRole("combobox", { name: "Model (provider/model)" }).inputValue()).toBe("alpha/gpt-5");
    expect(await form.getByRole("combobox", { name: "Override for low" }).inputValue()).toBe("(omit)");
    expect(await form.getByRole("combobox", { name: "Override for max" }).inputValue()).toBe("high");
    expect(await form.getByRole("combobox", { name: "Override for medium" }).inputValue()).toBe("");

    await page.getByRole("button", { name: "Remove alpha/gpt-5" }).click();
    await statusLine(page, "Removed the override of alpha/gpt-5").waitFor();
    expect((await effort()).models).toEqual({});
    await page.getByText("No per-model overrides").waitFor();
    expect(problems).toEqual([]);
  });

  it("uses the effort tabs with the keyboard alone", async () => {
    const { page, problems } = await shared.open(ui, { path: "/ui/router/effort" });
    const families = page.getByRole("tab", { name: "Families" });
    const perModel = page.getByRole("tab", { name: "Per model" });
    await families.waitFor();
    // Tab from the top of the page until the selected tab has focus; the other tab is not a Tab stop.
    const focusedTab = () =>
      page.evaluate(() => (document.activeElement?.getAttribute("role") === "tab" ? document.activeElement.id : ""));
    let presses = 0;
    while ((await focusedTab()) === "" && presses < 40) {
      await page.keyboard.press("Tab");
      presses++;
    }
    expect(await focusedTab()).toBe("effort-tab-families");
    expect(await perModel.getAttribute("tabindex")).toBe("-1");

    await page.keyboard.press("ArrowRight");
    expect(await focusedTab()).toBe("effort-tab-models");
    expect(await perModel.getAttribute("aria-selected")).toBe("true");
    await page.getByRole("tabpanel", { name: "Per model" }).waitFor();
    await page.locator("#effort-panel-families").waitFor({ state: "hidden" });
    await page.keyboard.press("ArrowRight"); // wraps
    expect(await focusedTab()).toBe("effort-tab-families");
    await page.keyboard.press("End");
    expect(await focusedTab()).toBe("effort-tab-models");
    await page.keyboard.press("Home");
    expect(await focusedTab()).toBe("effort-tab-families");
    await page.keyboard.press("ArrowLeft"); // wraps backwards
    expect(await focusedTab()).toBe("effort-tab-models");
    await page.keyboard.press("ArrowLeft");

    // Tab leaves the tablist for the panel: the first family opens with Enter.
    await page.keyboard.press("Tab");
    expect(await focusedTab()).toBe("");
    await page.keyboard.press("Enter");
    await page.getByRole("form", { name: "Overrides for claude-xhigh" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("has no serious or critical accessibility violation on either page, at both sizes", async () => {
    await ui.ui("POST", "/router/routes", { name: "pair", kind: "combo", targets: ["alpha/coder", "beta/chat"] });
    await ui.ui("PUT", "/router/effort/families/gpt-5", { levels: { low: "minimal" } });
    await ui.ui("PUT", "/router/effort/models", { model: "alpha/coder", levels: { low: null } });
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const { page, problems } = await shared.open(ui, { path: "/ui/router/routing", viewport });
      await page.getByText("Edit pair").click();
      await page.getByText("Add an alias or combo", { exact: true }).click();
      await page.getByRole("form", { name: "Edit combo pair" }).waitFor();
      expect(await pageAxeViolations(page), `routing ${viewport.width}`).toEqual([]);
      // The open forms fit the screen: nothing wider than the viewport.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

      await page.goto(`${ui.broker.url}/ui/router/effort`);
      await page.getByText("GPT-5 (gpt-5, -mini, -nano, -codex)").click();
      await page.getByRole("form", { name: "Overrides for gpt-5" }).waitFor();
      expect(await pageAxeViolations(page), `effort families ${viewport.width}`).toEqual([]);
      await page.getByRole("tab", { name: "Per model" }).click();
      await page.getByRole("row", { name: /alpha\/coder/ }).waitFor();
      expect(await pageAxeViolations(page), `effort per model ${viewport.width}`).toEqual([]);
      // Nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      // The other sub-pages, reached through the sub-navigation.
      for (const [link, heading] of [
        ["Activity", "Activity"],
        ["Providers", "Providers"],
      ] as const) {
        await page.getByRole("navigation", { name: "Router pages" }).getByRole("link", { name: link }).click();
        await page.getByRole("heading", { name: heading, level: 2 }).waitFor();
        expect(await pageAxeViolations(page), `${link} ${viewport.width}`).toEqual([]);
      }
      expect(problems).toEqual([]);
    }
    // Eight axe runs over two sizes: more than the default 30 s on a loaded two-core machine.
  }, 120_000);
});
