// Issue 36, item 3, from the web page: a Claude Code PermissionRequest offers every decision Claude Code takes, and
// the two that need words (a reason, an edited command) are answered in the page, in Chromium against a real broker.
// The hook input is posted to the broker's http hook route as Claude Code 2.1.330 posts it (docs/hooks.md); the
// broker holds that request until the decision, and its response is Claude Code's own decision JSON. The words go
// in a second, text question (docs/hooks.md, "How a reason or an edited command is carried"), answered as a
// keyboard user would: the decision's button, then the "Your answer" box and Send.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rotateHookToken } from "../../src/hooks/hook-token.js";
import { claude } from "../hooks/fixtures.js";
import { chromiumAvailable, startUiBroker, type UiBroker, useBrowser, useSharedPage } from "./browser.js";

/** Every decision Claude Code takes on a Bash PermissionRequest (src/hooks/decisions.ts), in the card's order. */
const CLAUDE_CODE_DECISIONS = [
  "Allow",
  "Always allow (this session)",
  "Always allow (this project)",
  "Deny",
  "Deny with a reason…",
  "Edit the command…",
];

const run = chromiumAvailable();

describe.runIf(run)("a decision that needs words, answered on the web page (issue 36, item 3)", () => {
  const browser = useBrowser();
  const shared = useSharedPage(browser);
  let ui: UiBroker;
  let hookToken: string;

  beforeAll(async () => {
    ui = await startUiBroker();
    hookToken = rotateHookToken(ui.dataDir);
  });

  afterAll(async () => {
    await ui?.close();
  });

  /** Claude Code's http hook: the PermissionRequest input for a Bash command, held by the broker until decided. */
  function permissionRequest(session: string, command: string): Promise<Response> {
    return fetch(`${ui.broker.url}/v1/hooks/claude-code`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${hookToken}` },
      body: JSON.stringify({
        ...claude.permissionRequestBash.input,
        session_id: session,
        tool_input: { command, description: "Clean up" },
      }),
    });
  }

  /** The page and `command`'s permission card, once its decisions show; they are exactly Claude Code's. */
  async function decisionCard(command: string) {
    const opened = await shared.open(ui);
    const name = `Claude Code wants to run a shell command (Clean up) in my-project: ${command}`;
    const card = opened.page.getByRole("article", { name, exact: true });
    await card.getByRole("button", { name: "Allow", exact: true }).waitFor();
    expect(await card.getByRole("listitem").getByRole("button").allTextContents()).toEqual(CLAUDE_CODE_DECISIONS);
    return { ...opened, card };
  }

  it("Deny with a reason: the reason typed in the page goes back as Claude Code's deny message", async () => {
    const reply = permissionRequest("web-reason", "rm -rf node_modules");
    const { page, problems, card } = await decisionCard("rm -rf node_modules");

    await card.getByRole("button", { name: "Deny with a reason…" }).press("Enter");
    const words = page.getByRole("article", { name: "Claude Code is told it was denied, with your reason." });
    const box = words.getByRole("textbox", { name: "Your answer" });
    await box.fill("Keep node_modules; run npm ci instead.");
    await words.getByRole("button", { name: "Send" }).press("Enter");

    const response = await reply;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: {
          behavior: "deny",
          message: "Keep node_modules; run npm ci instead.\n(Denied in Notify (answered from desktop))",
        },
      },
    });
    expect(problems).toEqual([]);
  });

  it("Edit the command: the command typed in the page is allowed in place of the agent's", async () => {
    const reply = permissionRequest("web-edit", "git clean -fdx");
    const { page, problems, card } = await decisionCard("git clean -fdx");

    await card.getByRole("button", { name: "Edit the command…" }).press("Enter");
    // The words question shows the agent's command, so the person edits knowing what it was.
    const words = page.getByRole("article", { name: /^The command Claude Code asked to run:\s+git clean -fdx$/ });
    await words.getByRole("textbox", { name: "Your answer" }).fill("git clean -fdX");
    await words.getByRole("button", { name: "Send" }).press("Enter");

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
