// Issue 36, item 3, from the phone: a Claude Code PermissionRequest offers every decision Claude Code takes, and the
// two that need words (a reason, an edited command) are answered on the phone, in Chromium against the real relay
// (in-process, loopback) and a real broker. The hook input is posted to the broker's http hook route as Claude Code
// 2.1.330 posts it (docs/hooks.md); the broker holds that request until the decision, and its response is Claude
// Code's own decision JSON. The words go in a second, text question that comes to the phone as a card of its own
// (docs/hooks.md, "How a reason or an edited command is carried"), answered as a keyboard user would: the decision's
// button, then the "Your answer" box and Send.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rotateHookToken } from "@notify/broker";
import { SqliteStore } from "@notify/relay";
import { tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { addRelayProvider, type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
/** A wait across the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;

/** Every decision Claude Code takes on a Bash PermissionRequest (broker src/hooks/decisions.ts), in the card's order. */
const CLAUDE_CODE_DECISIONS = [
  "Allow",
  "Always allow (this session)",
  "Always allow (this project)",
  "Deny",
  "Deny with a reason…",
  "Edit the command…",
];

function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  console.warn(`\n*** SKIPPING phone browser tests: ${CHROMIUM} not found (apt-get install -y chromium) ***\n`);
  return false;
}

describe.runIf(chromiumAvailable())("a decision that needs words, answered on the phone (issue 36, item 3)", () => {
  let browser: Browser;
  let page: Page;
  let relay: RelayHarness;
  let relayUrl = "";
  let live: LiveBroker;
  let hookToken = "";
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("decisions-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const installation = await relay.enroll("laptop");
    live = await liveBroker(tempDir("decisions-broker-"));
    hookToken = rotateHookToken(live.dataDir);
    await addRelayProvider(live, relayUrl, installation);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    await page.goto((await relay.pairCode(installation)).link);
    await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await live?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  /** Claude Code's http hook: the PermissionRequest input for a Bash command, held by the broker until decided. */
  function permissionRequest(session: string, command: string): Promise<Response> {
    return fetch(`${live.broker.url}/v1/hooks/claude-code`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${hookToken}` },
      // Claude Code's PermissionRequest input (its hooks reference, "PermissionRequest input"), as 2.1.330 posts it.
      body: JSON.stringify({
        session_id: session,
        transcript_path: `/home/dev/.claude/projects/service/${session}.jsonl`,
        cwd: "/home/dev/service",
        permission_mode: "default",
        hook_event_name: "PermissionRequest",
        tool_name: "Bash",
        tool_input: { command, description: "Clean up" },
        permission_suggestions: [{ type: "toolAlwaysAllow", tool: "Bash" }],
      }),
    });
  }

  /** The permission card for `command`, once its decisions show; they are exactly Claude Code's. */
  async function decisionCard(command: string): Promise<Locator> {
    const card = page
      .getByRole("article", { name: "Question from claude-code" })
      .filter({ hasText: `Claude Code wants to run a shell command (Clean up) in service: ${command}` });
    await card.getByRole("button", { name: "Allow", exact: true }).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await card.getByRole("listitem").getByRole("button").allTextContents()).toEqual(CLAUDE_CODE_DECISIONS);
    return card;
  }

  /** Types `words` in the words card that shows `prompt`, and sends them. */
  async function answerWords(prompt: string | RegExp, words: string): Promise<void> {
    const card = page.getByRole("article", { name: "Question from claude-code" }).filter({ hasText: prompt });
    const box = card.getByRole("textbox", { name: "Your answer" });
    await box.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    await box.fill(words);
    await card.getByRole("button", { name: "Send" }).press("Enter");
  }

  it("Deny with a reason: the reason typed on the phone goes back as Claude Code's deny message", async () => {
    const reply = permissionRequest("phone-reason", "rm -rf node_modules");
    const card = await decisionCard("rm -rf node_modules");
    await card.getByRole("button", { name: "Deny with a reason…" }).press("Enter");
    await answerWords("Claude Code is told it was denied, with your reason.", "Keep node_modules; run npm ci instead.");

    const response = await reply;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: {
          behavior: "deny",
          message: "Keep node_modules; run npm ci instead.\n(Denied in Notify (answered from relay))",
        },
      },
    });
    expect(problems).toEqual([]);
  });

  it("Edit the command: the command typed on the phone is allowed in place of the agent's", async () => {
    const reply = permissionRequest("phone-edit", "git clean -fdx");
    const card = await decisionCard("git clean -fdx");
    await card.getByRole("button", { name: "Edit the command…" }).press("Enter");
    // The words card shows the agent's command, so the person edits knowing what it was.
    await answerWords(/The command Claude Code asked to run:\s+git clean -fdx/, "git clean -fdX");

    const response = await reply;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "allow", updatedInput: { command: "git clean -fdX", description: "Clean up" } },
      },
    });
    expect(problems).toEqual([]);
  });
});
