// Issue 21, item 17: a used or expired login link showed an unstyled page. In Chromium (CSP enforced), the page
// has the app's colours in light and dark, fits a phone's width, passes axe, and names the command to run.
// SCREENSHOTS=1 also saves docs/screenshots/login-link-used-{desktop,phone}{,-dark}.png.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumAvailable, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const available = chromiumAvailable();
const SHOTS = fileURLToPath(new URL("../../../../docs/screenshots/", import.meta.url));

describe.runIf(available)("the page of a login link that no longer works (issue 21, item 17)", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  beforeAll(async () => {
    ui = await startUiBroker();
  });
  afterAll(async () => {
    await ui?.close();
  });

  for (const [name, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    for (const scheme of ["light", "dark"] as const) {
      it(`${name}, ${scheme}: the app's colours, no sideways scroll, the command to run`, async () => {
        const link = ui.loginLink();
        expect((await fetch(link, { redirect: "manual" })).status).toBe(303);
        const context = await browser().newContext({ viewport, colorScheme: scheme });
        const page = await context.newPage();
        const problems: string[] = [];
        // The page itself answers 401 (Chromium logs that); anything else, a refused style above all, is a problem.
        page.on("console", (message) => {
          if (!message.text().includes("status of 401")) problems.push(`console: ${message.text()}`);
        });
        try {
          const response = await page.goto(link);
          expect(response?.status()).toBe(401);
          await page.getByRole("heading", { name: "This login link does not work any more" }).waitFor();
          const looks = await page.evaluate(() => {
            const style = (selector: string) => window.getComputedStyle(document.querySelector(selector));
            return {
              background: style("html").backgroundColor,
              card: style("section").backgroundColor,
              text: style("h1").color,
              overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
              command: document.querySelector("pre")?.textContent,
            };
          });
          expect(looks).toEqual({
            background: scheme === "light" ? "rgb(246, 247, 249)" : "rgb(17, 20, 24)",
            card: scheme === "light" ? "rgb(255, 255, 255)" : "rgb(26, 31, 37)",
            text: scheme === "light" ? "rgb(27, 31, 36)" : "rgb(230, 233, 237)",
            overflow: 0,
            command: "npx notify open",
          });
          expect(problems).toEqual([]);
          expect(await axeViolations(page)).toEqual([]);
          if (process.env.SCREENSHOTS === "1") {
            const file = `login-link-used-${name}${scheme === "dark" ? "-dark" : ""}.png`;
            await page.screenshot({ path: join(SHOTS, file) });
          }
        } finally {
          await context.close();
        }
      });
    }
  }
});
