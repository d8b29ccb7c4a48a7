// Issue 35, item 4 (reading the turn before replying): the phone card of a follow-up, in Chromium against the real
// relay (in-process, loopback) and a real broker. The agent's last message shows as safe Markdown (a code block, a
// list, inline code, emphasis; raw HTML as text, an image never loaded, a link as text, bidi controls as tokens), the
// card says the project and where the reply goes, and the reply reaches the broker through the relay (docs/hooks.md,
// "Follow-ups"); its turn (how long it took, the messages before behind "Show more") comes sealed in the envelope.
// NOTIFY_SCREENSHOTS=1 writes docs/screenshots/follow-up-phone.png (390x844).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { type Json, tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { addRelayProvider, type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
const SCREENSHOTS = process.env.NOTIFY_SCREENSHOTS === "1" ? join(ROOT, "docs/screenshots") : tempDir("phone-shots-");
/** A wait across the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;

/** The follow-up's key: a session's own item, `<agent>:session:<32 hex>` (hooks/mapping.ts, sessionKey). */
const SESSION_KEY = `claude-code:session:${"c0".repeat(16)}`;

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

function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  console.warn(`\n*** SKIPPING phone browser tests: ${CHROMIUM} not found (apt-get install -y chromium) ***\n`);
  return false;
}

describe.runIf(chromiumAvailable())("a follow-up on the phone (issue 35, item 4)", () => {
  let browser: Browser;
  let page: Page;
  let relay: RelayHarness;
  let relayUrl = "";
  let live: LiveBroker;
  // A loopback server an image or a link would reach if the card loaded or followed it.
  let bait: Server;
  let baitUrl = "";
  const baitRequests: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("follow-up-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const installation = await relay.enroll("laptop");
    live = await liveBroker(tempDir("follow-up-broker-"));
    await addRelayProvider(live, relayUrl, installation);
    bait = createServer((request, response) => {
      baitRequests.push(request.url ?? "");
      response.end();
    });
    await new Promise<void>((resolve) => bait.listen(0, "127.0.0.1", resolve));
    baitUrl = `http://127.0.0.1:${(bait.address() as { port: number }).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
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
    await new Promise((resolve) => bait?.close(resolve));
  });

  it("shows the last message as safe Markdown, and the reply reaches the broker through the relay", async () => {
    const hostile =
      `\n\nSee ![pixel](${baitUrl}/markdown.png) and <img src="${baitUrl}/html.png"> ` +
      `<script>document.title="owned"</script> [the docs](${baitUrl}/docs) in invoice\u202Etxt.exe`;
    const created = await live.call("POST", "/v1/interactions/request", {
      kind: "text",
      key: SESSION_KEY,
      agent: "claude-code",
      project: "shop-api",
      prompt: SUMMARY + hostile,
      text_max_length: 2000,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const card = page.getByRole("article", { name: "Claude Code finished a turn" });
    const box = card.getByRole("textbox", { name: "Reply to Claude Code (sent as its next instruction)" });
    await box.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await card.locator(".project").textContent()).toBe("shop-api");
    const message = card.locator(".follow-up-message");
    expect(await message.locator("pre.md-code code").textContent()).toBe(
      "export function refundCents(order: Order, share: number): number {\n" +
        "  return Math.round(order.totalCents * share);\n}",
    );
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
    expect(await card.locator("img, a, script, iframe").count()).toBe(0);
    await message.getByText(`<img src="${baitUrl}/html.png">`, { exact: false }).waitFor();
    await message.getByText("[image: pixel]").waitFor();
    await message.getByText(`(${baitUrl}/docs)`).waitFor();
    expect(await message.locator(".bidi-control").textContent()).toBe("<U+202E>");
    expect(await page.title()).not.toBe("owned");
    // Nothing wider than the phone: the code block scrolls inside itself.
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);

    const reply = "Update the changelog, then open the PR as a draft.";
    await box.fill(reply);
    await card.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(async () => (await live.call("GET", `/v1/interactions/${id}`)).body as Json, { timeout: E2E_WAIT_MS })
      .toMatchObject({ status: "answered", response: { text: reply, source: "phone" } });
    await expect.poll(() => card.getByRole("status").textContent(), { timeout: E2E_WAIT_MS }).toBe(`Sent: ${reply}`);
    expect(baitRequests).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);

  it("a realistic follow-up with its turn: how long it took, and the messages before behind Show more", async () => {
    // As the Stop hook sends it: the turn's context first, then the question's event naming it.
    const context = await live.call("POST", "/v1/contexts", {
      kind: "turn",
      duration_ms: 252_000,
      truncated: true,
      messages: [
        { role: "user", text: "Refunds are off by a cent on split orders. Find out why and fix it." },
        { role: "assistant", text: "The share is rounded per line and again on the total; I'll round once, in cents." },
        { role: "user", text: "Also make sure `npm test` passes." },
      ],
    });
    expect(context.status).toBe(201);
    const created = await live.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "phone-follow-up-turn",
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "claude-code" },
      context: { project: "shop-api" },
      request: {
        key: `claude-code:session:${"d1".repeat(16)}`,
        kind: "completion",
        title: "Claude Code finished in shop-api",
        message: SUMMARY,
        response: { kind: "text", text_max_length: 2000, expires_at: new Date(Date.now() + 900_000).toISOString() },
      },
      extensions: { "x-notify-context": { id: context.body.id } },
    });
    expect(created.status).toBe(201);
    const id = (created.body.interaction as Json).id as string;
    // The open one: the first test's card (answered, with the hostile lines) stays in the list.
    const card = page.locator("article.follow-up:not(.card-closed)");
    await card.locator("pre.md-code").waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await card.locator(".turn-took").textContent()).toBe("The turn took 4 min 12 s");
    const more = card.locator("details.turn-tail");
    expect(await more.locator("summary").textContent()).toBe("Show more: 3 earlier messages (older ones not shown)");
    // Closed until asked: the messages are not shown; the summary opens with the keyboard.
    expect(await more.locator(".turn-messages").isVisible()).toBe(false);
    await more.locator("summary").focus();
    await page.keyboard.press("Enter");
    await more.locator(".turn-messages").waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await more.locator(".turn-role").allTextContents()).toEqual(["You", "Claude Code", "You"]);
    expect(await more.locator(".turn-message").nth(2).locator("code").textContent()).toBe("npm test");
    await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: join(SCREENSHOTS, "follow-up-phone.png") });
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    await live.call("POST", `/v1/interactions/${id}/cancel`);
    expect(problems).toEqual([]);
  }, 60_000);
});
