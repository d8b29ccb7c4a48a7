// Issue 36, item 1 (approve with the whole picture): a permission question's context on the web page, in Chromium
// against a real broker. Posted as a hook posts it (POST /v1/contexts, then the question's ARC event naming it with
// x-notify-context), the diff shows per file its path, badge, "+N -M" counts and the changed-on-disk warning, then its
// hunks with the file's old and new line numbers and the +/- sign beside the highlight; each file is a focusable,
// labelled region the keyboard reaches and scrolls; a long diff folds behind a native details. A command shows whole
// with its directory and reason, a URL as text (docs/hooks.md, "Approvals with context: what you see").
import type { Json } from "@notify/test-kit";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const DB_DIFF = [
  "@@ -10,4 +10,5 @@ export function connect() {",
  "   const pool = createPool();",
  "-  pool.max = 4;",
  "+  pool.max = 16;",
  "+  pool.idleMs = 30_000;",
  "   return pool;",
  "@@ -40,3 +41,2 @@",
  " }",
  "-// old",
  " export default connect;",
].join("\n");

const RETRY_DIFF = [
  "@@ -0,0 +1,3 @@",
  "+export const RETRIES = 3;",
  `+export const STATUS_URL = "https://status.example.net/${"v1/".repeat(30)}health";`,
  '+const label = "invoice\u202Etxt.exe";',
].join("\n");

/** 60 lines inserted after line 5: more than the 40 shown before "Show more". */
const BIG_DIFF = ["@@ -5,0 +6,60 @@", ...Array.from({ length: 60 }, (_, index) => `+row ${index + 1}`)].join("\n");

/** Each row of a file's table as `old | new | sign | text` (a hunk header as itself), as the page shows them. */
async function rowsOf(page: Page, id: string, file: number): Promise<string[]> {
  return page
    .locator(`article[data-item-id="${id}"] section.diff-file`)
    .nth(file)
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

const pageWidths = (page: Page) =>
  page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));

const run = chromiumAvailable();

describe.runIf(run)("a tool call's context on the web page (issue 36, item 1)", () => {
  const browser = useBrowser();
  let ui: UiBroker;

  beforeAll(async () => {
    ui = await startUiBroker();
  });

  afterAll(async () => {
    await ui?.close();
  });

  /** A permission question as the hook asks it: its context first, then the event that names it. */
  async function ask(eventId: string, message: string, context: Json): Promise<string> {
    const posted = await ui.v1<Json>("POST", "/contexts", context);
    expect(posted.status).toBe(201);
    const created = await ui.v1<Json>("POST", "/events", {
      arc_version: "0.2",
      event_id: eventId,
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "claude-code" },
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

  it("shows the diff with line numbers, signs, counts and badges; the keyboard reaches and scrolls each file", async () => {
    const id = await ask("tool-context-diff", "Claude Code wants to change 3 files with MultiEdit", {
      kind: "diff",
      files: [
        { path: "src/db.ts", status: "modified", added: 2, removed: 2, diff: DB_DIFF },
        { path: "src/retry.ts", status: "added", added: 3, removed: 0, diff: RETRY_DIFF },
        { path: "docs/big.md", status: "modified", added: 60, removed: 0, diff: BIG_DIFF, changed_on_disk: true },
      ],
    });
    const { page, context, problems } = await signedInPage(browser(), ui);
    const item = page.locator(`article[data-item-id="${id}"]`);
    await item.locator("section.diff-file").first().waitFor();
    expect(await item.locator(".diff-summary").textContent()).toBe("3 files: +65 -2");
    expect(await rowsOf(page, id, 0)).toEqual([
      "@@ -10,4 +10,5 @@ export function connect() {",
      "10 | 10 |   |   const pool = createPool();",
      "11 |  | - |   pool.max = 4;",
      " | 11 | + |   pool.max = 16;",
      " | 12 | + |   pool.idleMs = 30_000;",
      "12 | 13 |   |   return pool;",
      "@@ -40,3 +41,2 @@",
      "40 | 41 |   | }",
      "41 |  | - | // old",
      "42 | 42 |   | export default connect;",
    ]);
    const files = item.locator("section.diff-file");
    expect(await files.locator(".diff-path").allTextContents()).toEqual(["src/db.ts", "src/retry.ts", "docs/big.md"]);
    expect(await files.locator(".diff-stat").allTextContents()).toEqual(["+2 -2", "+3 -0", "+60 -0"]);
    expect(await files.nth(1).locator(".diff-badge").textContent()).toBe("new file");
    expect(await files.nth(0).locator(".diff-badge").count()).toBe(0);
    expect(await files.nth(2).locator(".diff-warning").textContent()).toContain(
      "changed on disk since the agent read it",
    );
    expect(await item.locator(".diff-warning").count()).toBe(1);
    // The agent's text is inert: the bidi control is a token, nothing is a link.
    expect(await files.nth(1).locator(".bidi-control").textContent()).toBe("<U+202E>");
    expect(await item.locator("a[href^='https://status'], img").count()).toBe(0);

    // A long diff: 40 rows shown, the rest behind "Show 21 more lines", numbered on from where the first table ends.
    const big = files.nth(2);
    expect(await big.locator("table").first().locator("tr.diff-line").count()).toBe(39);
    expect(await big.locator("details.diff-more tr.diff-line").first().isVisible()).toBe(false);
    expect(await big.locator("details.diff-more > summary").textContent()).toBe("Show 21 more lines");

    // Tab from the card's Details link: each file's region, the long one's "Show more", then the answers.
    await item.getByRole("link", { name: "Question details" }).focus();
    const order: string[] = [];
    for (let step = 0; step < 5; step++) {
      await page.keyboard.press("Tab");
      order.push(await focused(page));
    }
    expect(order).toEqual([
      "src/db.ts: 2 lines added, 2 removed",
      "src/retry.ts (new file): 3 lines added, 0 removed",
      "docs/big.md: 60 lines added, 0 removed",
      "Show 21 more lines",
      "Allow",
    ]);
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await big.locator("details.diff-more tr.diff-line").first().waitFor({ state: "visible" });
    expect((await rowsOf(page, id, 2)).slice(40, 42)).toEqual([" | 45 | + | row 40", " | 46 | + | row 41"]);
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });

    // At a phone's width: nothing wider than the screen; the long line scrolls inside its file, by keyboard too.
    await page.setViewportSize({ width: 390, height: 844 });
    const retry = files.nth(1);
    await expect
      .poll(() => retry.evaluate((element) => element.scrollWidth > element.clientWidth), { timeout: 10_000 })
      .toBe(true);
    expect((await pageWidths(page)).page).toBeLessThanOrEqual(390);
    await retry.focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => retry.evaluate((element) => element.scrollLeft), { timeout: 10_000 }).toBeGreaterThan(0);
    // The header stays in view while the lines scroll.
    expect(await retry.locator(".diff-path").isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    await item.getByRole("button", { name: "Allow" }).click();
    await expect
      .poll(async () => (await ui.v1<Json>("GET", `/interactions/${id}`)).body, { timeout: 20_000 })
      .toMatchObject({ status: "answered", response: { choice_id: "allow" } });
    expect(problems).toEqual([]);
    await context.close();
    // 7.6 s alone; light and dark, two sizes and axe for each took over the 30 s default at a load average of 8 to 10.
  }, 90_000);

  it("shows a command whole with where and why, and a URL as text", async () => {
    const command = "rm -rf build && \\\n  npm run build -- --mode=\u202Eproduction";
    const commandId = await ask("tool-context-command", "Claude Code wants to run a command with Bash", {
      kind: "command",
      command,
      cwd: "/home/dev/shop-api",
      reason: "Rebuild from scratch after the config change",
    });
    const urlId = await ask("tool-context-url", "Claude Code wants to fetch a URL with WebFetch", {
      kind: "url",
      url: "https://docs.example.net/api?q=<script>alert(1)</script>",
    });
    const { page, context, problems } = await signedInPage(browser(), ui, { width: 390, height: 844 });
    const commandItem = page.locator(`article[data-item-id="${commandId}"]`);
    await commandItem.locator("pre.ctx-command").waitFor();
    expect(await commandItem.locator("pre.ctx-command").textContent()).toBe(
      "rm -rf build && \\\n  npm run build -- --mode=<U+202E>production",
    );
    expect(await commandItem.locator(".ctx-facts dt, .ctx-facts dd").allTextContents()).toEqual([
      "Working directory",
      "/home/dev/shop-api",
      "Reason",
      "Rebuild from scratch after the config change",
    ]);
    const urlItem = page.locator(`article[data-item-id="${urlId}"]`);
    await urlItem.locator(".ctx-url").waitFor();
    expect(await urlItem.locator(".ctx-url").textContent()).toBe(
      "https://docs.example.net/api?q=<script>alert(1)</script>",
    );
    expect(await urlItem.locator(".tool-context a, .tool-context script").count()).toBe(0);
    expect((await pageWidths(page)).page).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
