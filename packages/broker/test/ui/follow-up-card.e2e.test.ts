// Issue 35, item 4 (reading the turn before replying): the web page's item for a follow-up, in Chromium against a
// real broker. The agent's last message shows as safe Markdown (a code block, a list, inline code, emphasis; raw HTML
// as text, an image never loaded, a link as text, bidi controls as tokens), the reply box says where the reply goes,
// and the reply reaches the broker as the question's text answer (docs/hooks.md, "Follow-ups").
import { createServer, type Server } from "node:http";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

/** The follow-up's key: a session's own item, `<agent>:session:<32 hex>` (hooks/mapping.ts, sessionKey). */
const SESSION_KEY = `claude-code:session:${"5e".repeat(16)}`;

const SUMMARY = `Done. The refund rounding bug is fixed and \`npm test\` passes (412 tests).

**What changed**

- \`src/refunds.ts\`: amounts are rounded once, in cents, at the end
- \`src/currency.ts\`: falls back to the order's currency
- two new tests in \`test/refunds.test.ts\`

\`\`\`ts
export function refundCents(order: Order, share: number): number {
  return Math.round(order.totalCents * share);
}
\`\`\`

Shall I update the changelog and open the PR, or do you want to review the diff first?`;

/** The two computed properties read below. */
type CSSStyle = { fontFamily: string; overflowX: string };

const run = chromiumAvailable();

describe.runIf(run)("a follow-up on the web page (issue 35, item 4)", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  // A loopback server an image or a link would reach if the page loaded or followed it.
  let bait: Server;
  let baitUrl = "";
  const baitRequests: string[] = [];

  beforeAll(async () => {
    ui = await startUiBroker();
    bait = createServer((request, response) => {
      baitRequests.push(request.url ?? "");
      response.end();
    });
    await new Promise<void>((resolve) => bait.listen(0, "127.0.0.1", resolve));
    baitUrl = `http://127.0.0.1:${(bait.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await ui?.close();
    await new Promise((resolve) => bait?.close(resolve));
  });

  it("shows the last message as safe Markdown, and the reply reaches the broker", async () => {
    const hostile =
      `\n\nSee ![pixel](${baitUrl}/markdown.png) and <img src="${baitUrl}/html.png"> ` +
      `<script>document.title="owned"</script> [the docs](${baitUrl}/docs) in invoice\u202Etxt.exe`;
    const created = await ui.v1<Json>("POST", "/interactions/request", {
      kind: "text",
      key: SESSION_KEY,
      agent: "claude-code",
      project: "shop-api",
      prompt: SUMMARY + hostile,
      text_max_length: 2000,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const { page, context, problems } = await signedInPage(browser(), ui);
    const item = page.locator(`article[data-item-id="${id}"]`);
    await item.waitFor();
    expect(await item.locator(".badge").first().textContent()).toBe("Follow-up");
    expect(await item.locator(".follow-up-title").textContent()).toBe("Claude Code finished a turn");
    await item.getByText("shop-api").waitFor();

    const message = item.locator(".follow-up-message");
    expect(await message.locator("pre.md-code code").textContent()).toBe(
      "export function refundCents(order: Order, share: number): number {\n" +
        "  return Math.round(order.totalCents * share);\n}",
    );
    // Monospace and scrollable: a long line scrolls inside the block, not the page.
    expect(
      await message.locator("pre.md-code").evaluate((pre) => {
        // In the page (this suite's tsconfig has no DOM lib).
        const style = (globalThis as unknown as { getComputedStyle(e: unknown): CSSStyle }).getComputedStyle(pre);
        return { font: style.fontFamily.includes("monospace"), overflow: style.overflowX };
      }),
    ).toEqual({ font: true, overflow: "auto" });
    expect(await message.locator("ul > li").count()).toBe(3);
    expect(await message.locator("ul > li").first().locator("code").textContent()).toBe("src/refunds.ts");
    expect(await message.locator("strong").first().textContent()).toBe("What changed");
    // Nothing that loads or runs: no img, no anchor, no script; the HTML is text; the link's URL is shown.
    expect(await item.locator("img, a[href^='http://127'], script, iframe").count()).toBe(0);
    await message.getByText(`<img src="${baitUrl}/html.png">`, { exact: false }).waitFor();
    await message.getByText("[image: pixel]").waitFor();
    await message.getByText(`(${baitUrl}/docs)`).waitFor();
    expect(await message.locator(".bidi-control").textContent()).toBe("<U+202E>");
    expect(await page.title()).not.toBe("owned");

    const box = item.getByRole("textbox", { name: "Reply to Claude Code (sent as its next instruction)" });
    const reply = "Update the changelog, then open the PR as a draft.";
    await box.fill(reply);
    expect(await axeViolations(page)).toEqual([]);
    await item.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(async () => (await ui.v1<Json>("GET", `/interactions/${id}`)).body, { timeout: 20_000 })
      .toMatchObject({ status: "answered", response: { text: reply, source: "web" } });
    await item
      .getByRole("status")
      .filter({ hasText: `Answered “${reply}” from this computer's web page` })
      .waitFor();
    expect(baitRequests).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("its turn: how long it took, and the messages before behind a keyboard-usable Show more", async () => {
    // As the Stop hook sends it: the turn's context first, then the question's event naming it.
    const turn = await ui.v1<Json>("POST", "/contexts", {
      kind: "turn",
      duration_ms: 45_400,
      messages: [
        { role: "user", text: "Why do refunds round twice?" },
        { role: "assistant", text: "Each line is rounded, then the total:\n\n```ts\nround(round(a) + round(b))\n```" },
      ],
    });
    expect(turn.status).toBe(201);
    const created = await ui.v1<Json>("POST", "/events", {
      arc_version: "0.2",
      event_id: "web-follow-up-turn",
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "codex" },
      context: { project: "shop-api" },
      request: {
        key: `codex:session:${"6f".repeat(16)}`,
        kind: "completion",
        title: "Codex finished in shop-api",
        message: "Fixed: amounts are rounded once.",
        response: { kind: "text", text_max_length: 2000, expires_at: new Date(Date.now() + 900_000).toISOString() },
      },
      extensions: { "x-notify-context": { id: turn.body.id } },
    });
    expect(created.status).toBe(201);
    const id = (created.body.interaction as Json).id as string;
    const { page, context, problems } = await signedInPage(browser(), ui);
    const item = page.locator(`article[data-item-id="${id}"]`);
    await item.locator(".turn-took").waitFor();
    expect(await item.locator(".turn-took").textContent()).toBe("The turn took 45 s");
    const more = item.locator("details.turn-tail");
    expect(await more.locator("summary").textContent()).toBe("Show more: 2 earlier messages");
    expect(await more.locator(".turn-messages").isVisible()).toBe(false);
    await more.locator("summary").focus();
    await page.keyboard.press("Enter");
    await more.locator(".turn-messages").waitFor({ state: "visible" });
    expect(await more.locator(".turn-role").allTextContents()).toEqual(["You", "Codex CLI"]);
    expect(await more.locator("pre.md-code code").textContent()).toBe("round(round(a) + round(b))");
    expect(await axeViolations(page)).toEqual([]);
    // A question without a context shows no turn, and the page does not ask for one (no 404 in its console).
    const plain = await ui.v1<Json>("POST", "/interactions/request", {
      kind: "text",
      key: `claude-code:session:${"7a".repeat(16)}`,
      agent: "claude-code",
      prompt: "Finished.",
      text_max_length: 2000,
    });
    const plainItem = page.locator(`article[data-item-id="${plain.body.id}"]`);
    await plainItem.waitFor();
    await plainItem.locator(".follow-up-message").waitFor();
    expect(await plainItem.locator(".turn").count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
