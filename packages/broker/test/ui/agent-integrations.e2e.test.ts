import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brokerApi, type Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { cliEnv, runCli } from "../cli/cli-harness.js";
import { axeViolations, chromiumAvailable, signedInPage, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();

/**
 * Issue 38, item 3 (DESIGN.md, "More agents"): the web page's agents list shows all five agents with what `notify
 * hooks install` and `notify mcp install` wrote into the person's own files (the broker's HOME), read at each load.
 * In the HOME here: Gemini CLI with Notify's hooks, Copilot CLI with Notify's MCP server, OpenCode with Notify's
 * plugin, Codex with a hooks file Notify cannot parse, Claude Code not installed at all.
 */
describe.skipIf(!run)("the agents list in Chromium", () => {
  const browser = useBrowser();
  let root: string;
  let home: string;
  let ui: UiBroker;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "notify-agent-integrations-"));
    home = join(root, "home");
    for (const dir of [".gemini", ".copilot", ".codex", ".config/opencode"])
      mkdirSync(join(home, dir), { recursive: true });
    writeFileSync(join(home, ".codex", "hooks.json"), "{ not json");
    const dataDir = join(root, "data");
    mkdirSync(dataDir);
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
    const target = ["--port", String(new URL(broker.url).port), "--data-dir", dataDir];
    for (const [what, agent] of [
      ["hooks", "gemini"],
      ["hooks", "opencode"],
      ["mcp", "copilot"],
    ] as const) {
      const installed = await runCli([what, "install", agent, ...target], cliEnv({ HOME: home }));
      expect(installed.code, installed.stderr).toBe(0);
    }
  });

  afterAll(async () => {
    await ui?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("lists every agent with its hooks and MCP state, and the command for what is missing", async () => {
    const listed = (await ui.ui<{ agents: Json[] }>("GET", "/agents/integrations")).body.agents;
    expect(listed.map((agent) => agent.agent)).toEqual(["claude-code", "codex", "copilot", "gemini", "opencode"]);

    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/router/agents`);
    const list = page.getByRole("region", { name: "Hooks and MCP" });
    const row = (name: string) => list.getByRole("row", { name });
    const cell = async (name: string, column: string) =>
      ((await row(name).locator(`td[data-label="${column}"]`).textContent()) ?? "").replace(/\s+/g, " ").trim();
    await row("OpenCode").waitFor();

    expect(await cell("Claude Code", "On this computer")).toBe("Not installed");
    expect(await cell("Claude Code", "Hooks")).toBe("Not installed");
    expect(await cell("Codex CLI", "Hooks")).toBe("Cannot read the file notify hooks install codex");
    expect(await cell("Gemini CLI", "On this computer")).toBe("Installed");
    expect(await cell("Gemini CLI", "Hooks")).toContain("Installed BeforeTool");
    expect(await cell("Gemini CLI", "MCP")).toBe("Not installed notify mcp install gemini");
    expect(await cell("GitHub Copilot CLI", "Hooks")).toBe("Not installed notify hooks install copilot");
    expect(await cell("GitHub Copilot CLI", "MCP")).toBe("Installed");
    expect(await cell("OpenCode", "Hooks")).toContain("tool.execute.before");
    expect(await axeViolations(page)).toEqual([]);

    // Read at each load: an uninstall shows on the next visit.
    const target = ["--port", String(new URL(ui.broker.url).port), "--data-dir", ui.dataDir];
    const removed = await runCli(["hooks", "uninstall", "opencode", ...target], cliEnv({ HOME: home }));
    expect(removed.code, removed.stderr).toBe(0);
    await page.reload();
    await row("OpenCode").waitFor();
    expect(await cell("OpenCode", "Hooks")).toBe("Not installed notify hooks install opencode");
    expect(problems).toEqual([]);
    await context.close();
  });
});
