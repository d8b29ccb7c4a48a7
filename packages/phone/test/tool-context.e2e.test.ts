// Issue 36, item 1 (approve with the whole picture): a permission question's context on the phone, in Chromium
// against the real relay (in-process, loopback) and a real broker. Posted as a hook posts it (POST /v1/contexts, then
// the question's ARC event naming it), the context comes sealed in the envelope: per file its path, badge, "+N -M"
// counts, hunks with the file's old and new line numbers and the +/- sign, each file a focusable labelled region;
// a diff too large for the envelope ends "N more lines on the desktop"; a command shows whole with its directory and
// reason (docs/hooks.md, "Approvals with context: what you see").
// NOTIFY_SCREENSHOTS=1 writes docs/screenshots/diff-phone.png and diff-phone-dark.png (390x844).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { type Json, tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { addRelayProvider, type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
const SCREENSHOTS = process.env.NOTIFY_SCREENSHOTS === "1" ? join(ROOT, "docs/screenshots") : tempDir("phone-shots-");
/** A wait across the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;

/** The patch of docs/screenshots/diff-web-*.png: Codex fixing the refund rounding. */
const REFUNDS_DIFF = [
  "@@ -1,12 +1,13 @@",
  ' import type { Order } from "./orders.js";',
  '+import { toCents } from "./currency.js";',
  " ",
  " /** The refund for a share of an order, in cents. */",
  " export function refundCents(order: Order, share: number): number {",
  "-  const lines = order.lines.map((line) => Math.round(line.total * share * 100));",
  "-  const total = lines.reduce((sum, cents) => sum + cents, 0);",
  "-  return Math.round(total);",
  "+  // Round once, at the end: rounding each line first loses a cent on split orders.",
  "+  const exact = order.lines.reduce((sum, line) => sum + line.total * share, 0);",
  "+  return toCents(exact);",
  " }",
  " ",
  " export function refundAll(order: Order): number {",
  "   return refundCents(order, 1);",
  " }",
].join("\n");

const TEST_DIFF = [
  '@@ -18,4 +18,11 @@ describe("refundCents", () => {',
  '   it("refunds a whole order", () => {',
  "     expect(refundCents(order, 1)).toBe(4599);",
  "   });",
  "+",
  '+  it("rounds a split order once", () => {',
  "+    const split = orderOf([10.005, 20.005, 30.005]);",
  "+    expect(refundCents(split, 0.5)).toBe(3001);",
  "+  });",
  "+",
  '+  it("refunds nothing for a zero share", () => expect(refundCents(order, 0)).toBe(0));',
  " });",
].join("\n");

/** The two computed properties read below. */
type CSSStyle = { fontFamily: string; overflowX: string };

function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  console.warn(`\n*** SKIPPING phone browser tests: ${CHROMIUM} not found (apt-get install -y chromium) ***\n`);
  return false;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the page as it is now (as the web page's suites check). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<AxeResults> } }).axe;
    return axe.run(document);
  });
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((n) => n.target.join(" ")).join(", ")})`,
    );
}

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/** Each row of a file's table as `old | new | sign | text` (a hunk header as itself). */
function rowsOf(file: Locator): Promise<string[]> {
  return file
    .locator("tr.diff-line, tr.diff-hunk, tr.diff-note")
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(
          (row as unknown as { children: ArrayLike<{ textContent: string | null }> }).children,
          (cell) => cell.textContent ?? "",
        ).join(" | "),
      ),
    );
}

/** What has the keyboard's focus: its label, else its text. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element.getAttribute("aria-label") ?? element.textContent;
  });

describe.runIf(chromiumAvailable())("a tool call's context on the phone (issue 36, item 1)", () => {
  let browser: Browser;
  let page: Page;
  let relay: RelayHarness;
  let relayUrl = "";
  let live: LiveBroker;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("tool-context-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const installation = await relay.enroll("laptop");
    live = await liveBroker(tempDir("tool-context-broker-"));
    await addRelayProvider(live, relayUrl, installation);
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
  });

  /** A permission question as the hook asks it: its context first, then the event that names it. */
  async function ask(eventId: string, message: string, context: Json): Promise<string> {
    const posted = await live.call("POST", "/v1/contexts", context);
    expect(posted.status).toBe(201);
    const created = await live.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: eventId,
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "codex" },
      context: { project: "shop-api" },
      request: {
        key: eventId,
        kind: "permission",
        title: "Permission needed",
        message,
        response: {
          kind: "permission",
          choices: [
            { id: "allow", label: "Allow" },
            { id: "deny", label: "Deny" },
          ],
          expires_at: new Date(Date.now() + 600_000).toISOString(),
        },
      },
      extensions: { "x-notify-context": { id: posted.body.id } },
    });
    expect(created.status).toBe(201);
    return (created.body.interaction as Json).id as string;
  }

  const widths = () =>
    page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));

  it("shows the patch with line numbers and signs, every file reached by the keyboard; Allow reaches the broker", async () => {
    const id = await ask(
      "phone-diff",
      "Codex wants to apply a patch to 2 files: src/refunds.ts, test/refunds.test.ts",
      {
        kind: "diff",
        files: [
          { path: "src/refunds.ts", status: "modified", added: 4, removed: 3, diff: REFUNDS_DIFF },
          { path: "test/refunds.test.ts", status: "modified", added: 7, removed: 0, diff: TEST_DIFF },
        ],
      },
    );
    const card = page.locator("article.card", { has: page.locator(".diff-path", { hasText: "src/refunds.ts" }) });
    await card.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await card.locator(".diff-summary").textContent()).toBe("2 files: +11 -3");
    const files = card.locator("section.diff-file");
    expect(await files.locator(".diff-stat").allTextContents()).toEqual(["+4 -3", "+7 -0"]);
    expect(await rowsOf(files.nth(0))).toEqual([
      "@@ -1,12 +1,13 @@",
      '1 | 1 |   | import type { Order } from "./orders.js";',
      ' | 2 | + | import { toCents } from "./currency.js";',
      "2 | 3 |   | ",
      "3 | 4 |   | /** The refund for a share of an order, in cents. */",
      "4 | 5 |   | export function refundCents(order: Order, share: number): number {",
      "5 |  | - |   const lines = order.lines.map((line) => Math.round(line.total * share * 100));",
      "6 |  | - |   const total = lines.reduce((sum, cents) => sum + cents, 0);",
      "7 |  | - |   return Math.round(total);",
      " | 6 | + |   // Round once, at the end: rounding each line first loses a cent on split orders.",
      " | 7 | + |   const exact = order.lines.reduce((sum, line) => sum + line.total * share, 0);",
      " | 8 | + |   return toCents(exact);",
      "8 | 9 |   | }",
      "9 | 10 |   | ",
      "10 | 11 |   | export function refundAll(order: Order): number {",
      "11 | 12 |   |   return refundCents(order, 1);",
      "12 | 13 |   | }",
    ]);
    expect((await rowsOf(files.nth(1))).at(-1)).toBe("21 | 28 |   | });");
    // Monospace, and wide lines scroll inside their file: the phone's page is never wider than its screen.
    expect(
      await files.nth(0).evaluate((element) => {
        // In the page (this suite's tsconfig has no DOM lib).
        const style = (globalThis as unknown as { getComputedStyle(e: unknown): CSSStyle }).getComputedStyle(element);
        return { overflow: style.overflowX, wider: element.scrollWidth > element.clientWidth };
      }),
    ).toEqual({ overflow: "auto", wider: true });
    expect(
      await files
        .nth(0)
        .locator("table")
        .evaluate(
          (table) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): CSSStyle }).getComputedStyle(table).fontFamily,
        ),
    ).toContain("monospace");
    const shown = await widths();
    expect(shown.page).toBeLessThanOrEqual(shown.viewport);

    // The keyboard: Tab from the page's top reaches each file, then the answers.
    const order: string[] = [];
    for (let step = 0; step < 30 && order.length < 3; step++) {
      await page.keyboard.press("Tab");
      const label = await focused(page);
      if (order.length > 0 || label.startsWith("src/refunds.ts")) order.push(label);
    }
    expect(order).toEqual([
      "src/refunds.ts: 4 lines added, 3 removed",
      "test/refunds.test.ts: 7 lines added, 0 removed",
      "Allow",
    ]);
    expect(await axeViolations(page)).toEqual([]);

    // The shots without the keyboard's focus ring on Allow.
    await page.evaluate(() => document.activeElement.blur());
    await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: join(SCREENSHOTS, "diff-phone.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "diff-phone-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });

    await card.getByRole("button", { name: "Allow" }).click();
    await expect
      .poll(async () => (await live.call("GET", `/v1/interactions/${id}`)).body as Json, { timeout: E2E_WAIT_MS })
      .toMatchObject({ status: "answered", response: { choice_id: "allow", source: "relay" } });
    expect(problems).toEqual([]);
  }, 90_000);

  it("a diff larger than the envelope says how many lines are on the desktop; a command shows whole", async () => {
    const lines = Array.from(
      { length: 3000 },
      (_, index) => `+  { "id": ${index + 1}, "name": "fixture ${index + 1}" },`,
    );
    const bigId = await ask("phone-diff-big", "Codex wants to apply a patch to data/fixtures.json", {
      kind: "diff",
      files: [
        {
          path: "data/fixtures.json",
          status: "added",
          added: 3000,
          removed: 0,
          diff: `@@ -0,0 +1,3000 @@\n${lines.join("\n")}`,
        },
      ],
    });
    const card = page.locator("article.card", { has: page.locator(".diff-path", { hasText: "data/fixtures.json" }) });
    await card.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    const cut = (await card.locator(".diff-cut").textContent()) ?? "";
    const match = /^… (\d+) more lines on the desktop$/.exec(cut);
    expect(match).not.toBeNull();
    const left = Number(match?.[1]);
    // What the phone shows and what it says is on the desktop add up to the whole diff; the rest folds.
    expect((await rowsOf(card)).length + left).toBe(3001);
    expect(left).toBeGreaterThan(1000);
    expect(await card.locator(".diff-badge").textContent()).toBe("new file");
    expect(await card.locator(".diff-stat").textContent()).toBe("+3000 -0");
    expect(await card.locator("details.diff-more > summary").textContent()).toMatch(/^Show \d+ more lines$/);

    const commandId = await ask("phone-command", "Codex wants to run a command", {
      kind: "command",
      command: "rm -rf build && \\\n  npm run build -- --mode=production",
      cwd: "/home/dev/shop-api",
      reason: "Rebuild from scratch after the config change",
    });
    const commandCard = page.locator("article.card", { has: page.locator("pre.ctx-command") });
    await commandCard.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await commandCard.locator("pre.ctx-command").textContent()).toBe(
      "rm -rf build && \\\n  npm run build -- --mode=production",
    );
    expect(await commandCard.locator(".ctx-facts dt, .ctx-facts dd").allTextContents()).toEqual([
      "Working directory",
      "/home/dev/shop-api",
      "Reason",
      "Rebuild from scratch after the config change",
    ]);
    const shown = await widths();
    expect(shown.page).toBeLessThanOrEqual(shown.viewport);
    expect(await axeViolations(page)).toEqual([]);
    for (const id of [bigId, commandId]) await live.call("POST", `/v1/interactions/${id}/cancel`);
    expect(problems).toEqual([]);
  }, 90_000);
});
