import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brokerApi } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { axeViolations, chromiumAvailable, signedInPage, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();
const CODEX_BEFORE = '# mine\nmodel = "gpt-owner"\n';

/**
 * The Agents page (docs/router.md, "Web pages"; docs/connectors.md, "Agent connectors"): connect and disconnect from
 * the browser.
 */
describe.skipIf(!run)("Agents page in Chromium", () => {
  const browser = useBrowser();
  let root: string;
  let home: string;
  let ui: UiBroker;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "notify-agents-page-"));
    home = join(root, "home");
    mkdirSync(join(home, ".codex"), { recursive: true });
    writeFileSync(join(home, ".codex", "config.toml"), CODEX_BEFORE);
    const dataDir = join(root, "data");
    mkdirSync(dataDir);
    // Claude Code is not installed in this HOME: its card must say so and create nothing.
    const broker = await startBroker({ dataDir, port: 0, env: { HOME: home } });
    const api = brokerApi(broker.url, broker.settings.authToken);
    ui = {
      broker,
      dataDir,
      token: broker.settings.authToken,
      loginLink: () => `${broker.url}/ui/login?t=${broker.uiSessions.createLinkToken().token}`,
      v1: () => Promise.reject(new Error("unused")),
      ui: api.ui,
      close: () => broker.close(),
    };
    await api.ui("PUT", "/router/settings", { enabled: true });
    await api.ui("POST", "/router/upstreams", {
      slug: "local",
      wire: "chat_wire",
      base_url: "http://127.0.0.1:9/v1",
      models: ["qwen3-coder", "llama-4"],
      enabled: true,
    });
  });

  afterEach(async () => {
    await ui.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("shows each agent's state; Connect writes Codex's config, Disconnect puts it back; screenshots", async () => {
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/router/agents`);
    const codex = page.getByRole("region", { name: "Codex CLI" });
    const claude = page.getByRole("region", { name: "Claude Code" });
    await codex.getByText("Not connected").waitFor();
    await claude.getByText("Not installed", { exact: true }).waitFor();
    expect(await claude.getByRole("button", { name: "Connect Claude Code" }).isDisabled()).toBe(true);

    await codex.getByLabel("Model for Codex CLI").selectOption("local/llama-4");
    await codex.getByLabel("Reasoning effort").selectOption("high");
    await codex.getByRole("button", { name: "Connect Codex CLI" }).click();
    await page.getByRole("status").filter({ hasText: "Codex CLI connected" }).waitFor();
    await codex.getByText("Connected", { exact: true }).waitFor();
    const toml = readFileSync(join(home, ".codex", "config.toml"), "utf8");
    expect(toml).toContain('model = "local/llama-4"');
    expect(toml).toContain('model_reasoning_effort = "high"');
    expect(toml).toContain('#notify-router-owner# model = "gpt-owner"');
    await page
      .getByRole("button", { name: /^Restore .*config\.toml/ })
      .first()
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const out = process.env.NOTIFY_SCREENSHOTS;
    if (out) {
      await page.getByRole("heading", { name: "Agents" }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, "agents-1280x800.png") });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole("heading", { name: "Agents" }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, "agents-390x844.png") });
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    await codex.getByRole("button", { name: "Disconnect Codex CLI" }).click();
    await page.getByRole("status").filter({ hasText: "Codex CLI disconnected" }).waitFor();
    await codex.getByText("Not connected").waitFor();
    expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toBe(CODEX_BEFORE);
    expect(problems).toEqual([]);
    await context.close();
  });
});
