// Issue 24 item 5: the Outbound page edits a route's delivery options (when, delay, quiet hours) in Chromium
// against a real broker: by keyboard alone, with one plain-language line per route that says what
// `notify outbound list` says; a refused value is shown at its field in the broker's words and changes nothing.
import type { Locator, Page } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../cli/cli-harness.js";
import type { Json } from "../helpers.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();

/** Presses Tab until `target` has the focus: what a keyboard user does to reach it. */
async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (let step = 0; step < limit; step++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`${limit} presses of Tab never reached ${target}`);
}

const focused = (target: Locator) => target.evaluate((element) => element === document.activeElement);

/** The text an input's aria-describedby points at (its hint, and its error once refused). */
const description = (target: Locator) =>
  target.evaluate((element) =>
    (element.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .map((id: string) => document.getElementById(id)?.textContent ?? "")
      .join(" | "),
  );

describe.skipIf(!run)("the Outbound page's Delivery options in Chromium", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  let route: Json;

  beforeEach(async () => {
    ui = await startUiBroker();
    const provider = await ui.ui("POST", "/outbound/providers", {
      kind: "webhook",
      name: "hook",
      settings: { url: "http://127.0.0.1:9/hook" },
    });
    expect(provider.status).toBe(201);
    const created = await ui.ui<Json>("POST", "/outbound/routes", { name: "Phone", provider: "hook" });
    expect(created.status).toBe(201);
    route = created.body;
  });
  afterEach(async () => {
    await ui.close();
  });

  const stored = async (): Promise<Json> => ((await ui.ui<Json[]>("GET", "/outbound/routes")).body as Json[])[0];

  it("edits when, delay and quiet hours by keyboard; the summary line, the broker and `notify outbound list` agree", async () => {
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/outbound`);
    const line = page.locator(".route-delivery").filter({ hasText: "route Phone" });
    expect(await line.textContent()).toBe("Delivery of route Phone: at once");

    // Open the route's form from the keyboard.
    const summary = page.locator("details.edit-form > summary").filter({ hasText: "route Phone" });
    await tabTo(page, summary);
    await page.keyboard.press("Enter");
    const form = page.locator("details.edit-form[open] form");
    const always = form.getByRole("radio", { name: "Always" });
    await always.waitFor();
    expect(await always.isChecked()).toBe(true);
    const away = form.getByRole("radio", { name: "Only when I'm away" });
    expect(await description(away)).toMatch(/^Sent while the screen is locked or idle;/);
    expect(await description(form.getByRole("radio", { name: "Only when I'm at this computer" }))).toMatch(
      /^Sent while you use this computer;/,
    );

    // When: the arrow keys move through the radios.
    await tabTo(page, always);
    await page.keyboard.press("ArrowDown");
    expect(await away.isChecked()).toBe(true);
    // Delay: 2 minutes.
    const delay = form.getByRole("textbox", { name: "Delay" });
    await tabTo(page, delay);
    await page.keyboard.type("2");
    expect(await form.getByRole("combobox", { name: "Delay unit" }).inputValue()).toBe("minutes");
    expect(await description(delay)).toContain("Empty: at once.");
    // Quiet hours on: 22:00 to 06:30 on weekdays, critical still comes through.
    await tabTo(page, form.getByRole("checkbox", { name: "Quiet hours" }));
    await page.keyboard.press("Space");
    const from = form.getByRole("textbox", { name: "From" });
    await from.waitFor();
    expect(await from.inputValue()).toBe("22:00");
    const to = form.getByRole("textbox", { name: "To" });
    await tabTo(page, to);
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("06:30");
    for (const day of ["Sat", "Sun"]) {
      await tabTo(page, form.getByRole("checkbox", { name: day, exact: true }));
      await page.keyboard.press("Space");
    }
    await tabTo(page, form.getByRole("checkbox", { name: "Critical still comes through" }));
    await page.keyboard.press("Space");
    const words = "when away, or after 2 min; quiet 22:00-06:30 Mon-Fri except critical";
    expect(await form.locator(".delivery-preview").textContent()).toBe(`Summary: ${words}`);
    expect(await axeViolations(page)).toEqual([]);
    await tabTo(page, form.getByRole("button", { name: "Save route" }));
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Saved route Phone" }).waitFor();

    // After a reload the line is read from the broker.
    await page.reload();
    await line.filter({ hasText: "when away" }).waitFor();
    expect(await line.textContent()).toBe(`Delivery of route Phone: ${words}`);
    expect(await stored()).toMatchObject({
      delay_seconds: 120,
      when: "away",
      quiet_hours: { start: "22:00", end: "06:30", days: ["mon", "tue", "wed", "thu", "fri"], allow_critical: true },
    });
    const listed = await runCli(["outbound", "list", "--port", String(ui.broker.port), "--data-dir", ui.dataDir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")).toContain(`  Phone: ${words}`);

    // The form opens with what is stored; putting every option back to its default clears them in the broker.
    await page.getByText("Edit route Phone").click();
    expect(await away.isChecked()).toBe(true);
    expect(await delay.inputValue()).toBe("2");
    expect(await to.inputValue()).toBe("06:30");
    expect(await form.getByRole("checkbox", { name: "Sat", exact: true }).isChecked()).toBe(false);
    expect(await form.getByRole("checkbox", { name: "Fri", exact: true }).isChecked()).toBe(true);
    expect(await form.getByRole("checkbox", { name: "Critical still comes through" }).isChecked()).toBe(true);
    await always.check();
    await delay.fill("");
    await form.getByRole("checkbox", { name: "Quiet hours" }).uncheck();
    expect(await form.locator(".delivery-preview").textContent()).toBe("Summary: at once");
    await form.getByRole("button", { name: "Save route" }).click();
    await line.filter({ hasText: "at once" }).waitFor();
    const cleared = await stored();
    for (const field of ["delay_seconds", "when", "quiet_hours"]) expect(cleared).not.toHaveProperty(field);

    // A new route takes the options too: 30 seconds, only while at this computer.
    await page.getByText("Add a route").click();
    const add = page.locator("details.add-form[open] form");
    await add.getByRole("textbox", { name: "Route name" }).fill("Pager");
    await add.getByRole("radio", { name: "Only when I'm at this computer" }).check();
    await add.getByRole("textbox", { name: "Delay" }).fill("30");
    await add.getByRole("combobox", { name: "Delay unit" }).selectOption("seconds");
    await add.getByRole("button", { name: "Add route" }).click();
    const pager = page.locator(".route-delivery").filter({ hasText: "route Pager" });
    await pager.waitFor();
    expect(await pager.textContent()).toBe("Delivery of route Pager: when present, or after 30 s");
    const routes = (await ui.ui<Json[]>("GET", "/outbound/routes")).body as Json[];
    expect(routes.find((one) => one.name === "Pager")).toMatchObject({ delay_seconds: 30, when: "present" });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows an end time left out or a negative delay at its field, in the broker's words, and changes nothing", async () => {
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/outbound`);
    await page.getByText("Edit route Phone").click();
    const form = page.locator("details.edit-form[open] form");
    const save = form.getByRole("button", { name: "Save route" });
    const alert = form.getByRole("alert");

    // End missing.
    await form.getByRole("checkbox", { name: "Quiet hours" }).check();
    const to = form.getByRole("textbox", { name: "To" });
    await to.fill("");
    await save.click();
    await alert.waitFor();
    const api = await ui.ui<Json>("PATCH", `/outbound/routes/${route.id}`, {
      quiet_hours: { start: "22:00", end: "" },
    });
    expect(api.status).toBe(400);
    expect(api.body.error).toBe("quiet_hours.end: must be HH:MM, 00:00-23:59");
    expect(await alert.textContent()).toBe(api.body.error);
    expect(await to.getAttribute("aria-invalid")).toBe("true");
    expect(await description(to)).toContain(api.body.error);
    await expect.poll(() => focused(to)).toBe(true);
    expect(await stored()).toEqual(route);

    // Delay negative.
    await to.fill("07:00");
    const delay = form.getByRole("textbox", { name: "Delay" });
    await delay.fill("-1");
    await save.click();
    await alert.filter({ hasText: "delay_seconds" }).waitFor();
    const negative = await ui.ui<Json>("PATCH", `/outbound/routes/${route.id}`, { delay_seconds: -60 });
    expect(negative.body.error).toBe("delay_seconds: must be 0-86400 seconds (at most 24 h)");
    expect(await alert.allTextContents()).toEqual([negative.body.error]);
    expect(await delay.getAttribute("aria-invalid")).toBe("true");
    expect(await to.getAttribute("aria-invalid")).toBeNull();
    await expect.poll(() => focused(delay)).toBe(true);
    expect(await stored()).toEqual(route);

    // Not a number at all: JSON cannot carry it, so the page says what the broker says of a non-number.
    await delay.fill("soon");
    await save.click();
    await alert.filter({ hasText: "whole number" }).waitFor();
    const word = await ui.ui<Json>("PATCH", `/outbound/routes/${route.id}`, { delay_seconds: "soon" });
    expect(await alert.allTextContents()).toEqual([word.body.error]);
    expect(await stored()).toEqual(route);
    expect(await page.locator(".route-delivery").textContent()).toBe("Delivery of route Phone: at once");

    // The refusals' 400s are the only console errors.
    expect(problems.filter((problem) => !problem.includes("status of 400"))).toEqual([]);
    await context.close();
  });
});
