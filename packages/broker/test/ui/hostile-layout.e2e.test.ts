// Issue 21, item 13: agents' text is hostile input to the page's layout and to its reader. Long unbroken names must
// not widen the page at 390 px (a 2,947 px filter select once made the inbox 6,961 px wide), and bidi controls
// must show as visible tokens rather than reorder a prompt ("invoice<U+202E>txt.exe" read as "invoiceexe.txt").
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import { axeViolations, chromiumAvailable, signedInPage, uiBrokerPerTest, useBrowser } from "./browser.js";

const run = chromiumAvailable();

const AGENT = `agent-${"a".repeat(94)}`;
const PROJECT = `project-${"p".repeat(192)}`;
const LABEL = `Allow-${"L".repeat(120)}`;

/** What sticks out of the viewport, or scrolls sideways inside the page: [] when everything fits. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > width) found.push(`page ${document.documentElement.scrollWidth}px`);
    for (const element of document.querySelectorAll("main *")) {
      const box = element.getBoundingClientRect();
      const name = `${element.tagName.toLowerCase()}.${element.className}`;
      if (box.width > 0 && box.right > width + 1) found.push(`${name} right ${Math.round(box.right)}px`);
      const style = window.getComputedStyle(element);
      if (/auto|scroll/.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1)
        found.push(`${name} scrolls ${element.scrollWidth}px in ${element.clientWidth}px`);
    }
    return found.slice(0, 10);
  });
}

describe.skipIf(!run)("web UI with hostile agent text in Chromium", () => {
  const browser = useBrowser();
  const ui = uiBrokerPerTest();

  const seed = async () => {
    const notification = (
      await ui.v1<Json>("POST", "/notifications", {
        title: `Saved invoice\u202Etxt.exe ${"t".repeat(150)}`,
        message: `m${"m".repeat(400)}`,
        agent: AGENT,
        project: PROJECT,
      })
    ).body;
    const question = (
      await ui.v1<Json>("POST", "/interactions/request", {
        kind: "single_choice",
        prompt: "Run `mv invoice\u202Etxt.exe \u2067/tmp\u2069`?",
        choices: [
          { id: "long", label: LABEL, detail: "d".repeat(300) },
          { id: "no", label: "Deny\u202E" },
        ],
        agent: AGENT,
        project: PROJECT,
      })
    ).body;
    await ui.ui("POST", "/outbound/providers", {
      kind: "webhook",
      name: `hook-${"h".repeat(60)}`,
      settings: { url: `http://127.0.0.1:9/${"u".repeat(200)}` },
    });
    const route = await ui.ui("POST", "/outbound/routes", {
      name: `route-${"r".repeat(60)}`,
      provider: `hook-${"h".repeat(60)}`,
      project: PROJECT,
      agent: AGENT,
    });
    expect(route.status, route.text).toBe(201);
    return { notification, question };
  };

  it("nothing is wider than a 390 px viewport: inbox, details, outbound routes", async () => {
    const { notification, question } = await seed();
    const { page, context, problems } = await signedInPage(browser(), ui, { width: 390, height: 844 });
    await page.getByRole("button", { name: LABEL }).waitFor();
    expect(await overflowing(page)).toEqual([]);
    const pages: [string, string][] = [
      [`/ui/questions/${question.id}`, "Question"],
      [`/ui/notifications/${notification.id}`, "Notification"],
      ["/ui/outbound", "Outbound"],
    ];
    for (const [path, heading] of pages) {
      await page.goto(`${ui.broker.url}${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      if (path === "/ui/outbound")
        await page
          .getByText(`route-${"r".repeat(60)}`)
          .first()
          .waitFor();
      else await page.getByText(PROJECT).first().waitFor();
      expect(await overflowing(page), path).toEqual([]);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("bounds the inbox's Project and Agent filters at 1280 px", async () => {
    await seed();
    const { page, context } = await signedInPage(browser(), ui);
    await page.getByRole("button", { name: LABEL }).waitFor();
    for (const name of ["Project", "Agent"]) {
      const box = await page.getByRole("combobox", { name }).boundingBox();
      expect(box?.width, name).toBeLessThanOrEqual(260);
    }
    expect(await overflowing(page)).toEqual([]);
    await context.close();
  });

  it("shows bidi controls as marked tokens inside isolated text, and stays accessible", async () => {
    await seed();
    const { page, context, problems } = await signedInPage(browser(), ui);
    const card = page.locator("article.question");
    await card.getByRole("button", { name: LABEL }).waitFor();
    const prompt = card.locator(".prompt");
    expect(await prompt.textContent()).toBe("Run `mv invoice<U+202E>txt.exe <U+2067>/tmp<U+2069>`?");
    expect(await prompt.locator("mark.bidi-control").allTextContents()).toEqual(["<U+202E>", "<U+2067>", "<U+2069>"]);
    expect(await prompt.locator("bdi").count()).toBe(1);
    await card.getByRole("button", { name: "Deny<U+202E>", exact: true }).waitFor();
    const title = page.locator("article.notification .title").filter({ hasText: "Saved invoice" });
    expect(await title.textContent()).toContain("Saved invoice<U+202E>txt.exe");
    // No bidi control is left anywhere in the page's text.
    const raw = await page.evaluate(() =>
      /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(document.querySelector("main")?.textContent ?? ""),
    );
    expect(raw).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
