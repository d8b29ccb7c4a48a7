// Issue 37, item 4 ("Less noise"; docs/outbound.md): the Outbound page edits a route's digest window and its
// "finished replaces finished" switch, in Chromium against a real broker: the summary line says the digest, the
// broker stores both, a value out of range is refused at its field in the broker's words, and both go back to
// their defaults.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();

describe.skipIf(!run)("the Outbound page's digest option in Chromium", () => {
  const browser = useBrowser();
  let ui: UiBroker;

  beforeEach(async () => {
    ui = await startUiBroker();
    const provider = await ui.ui("POST", "/outbound/providers", {
      kind: "webhook",
      name: "hook",
      settings: { url: "http://127.0.0.1:9/hook" },
    });
    expect(provider.status).toBe(201);
    expect((await ui.ui("POST", "/outbound/routes", { name: "Chat", provider: "hook" })).status).toBe(201);
  });
  afterEach(async () => {
    await ui.close();
  });

  const stored = async (): Promise<Json> => ((await ui.ui<Json[]>("GET", "/outbound/routes")).body as Json[])[0];

  it("sets a 2 minute digest and turns replacing off; a refused window shows at its field; both clear again", async () => {
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/outbound`);
    const line = page.locator(".route-delivery").filter({ hasText: "route Chat" });
    expect(await line.textContent()).toBe("Delivery of route Chat: at once");
    await page.getByText("Edit route Chat").click();
    const form = page.locator("details.edit-form[open] form");
    const digest = form.getByRole("textbox", { name: "Digest (seconds)" });
    const replace = form.getByRole("checkbox", { name: /next “finished” replaces its last/ });
    expect(await digest.inputValue()).toBe("");
    expect(await replace.isChecked()).toBe(true);

    // Out of range: the broker's words at the field, nothing stored.
    await digest.fill("5000");
    await form.getByRole("button", { name: "Save route" }).click();
    const refusal = form.getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe("digest_seconds: must be 0-3600 seconds (0: one message per item)");
    expect(await digest.getAttribute("aria-invalid")).toBe("true");
    expect(await stored()).not.toHaveProperty("digest_seconds");

    await digest.fill("120");
    await replace.uncheck();
    expect(await form.locator(".delivery-preview").textContent()).toBe("Summary: at once; digest every 2 min");
    expect(await axeViolations(page)).toEqual([]);
    // NOTIFY_SCREENSHOTS=<dir>: the open route form with its digest field, at desktop and phone sizes.
    const out = process.env.NOTIFY_SCREENSHOTS;
    if (out !== undefined) {
      await form.locator(".digest-field").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, "outbound-digest-1280x800.png") });
      await page.setViewportSize({ width: 390, height: 844 });
      await form.locator(".digest-field").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, "outbound-digest-390x844.png") });
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await form.getByRole("button", { name: "Save route" }).click();
    await line.filter({ hasText: "digest" }).waitFor();
    expect(await line.textContent()).toBe("Delivery of route Chat: at once; digest every 2 min");
    expect(await stored()).toMatchObject({ digest_seconds: 120, replace_finished: false });

    // The form opens with what is stored; emptied and checked again, both go back to their defaults.
    await page.reload();
    await page.getByText("Edit route Chat").click();
    expect(await digest.inputValue()).toBe("120");
    expect(await replace.isChecked()).toBe(false);
    await digest.fill("");
    await replace.check();
    await form.getByRole("button", { name: "Save route" }).click();
    await line.filter({ hasText: /^Delivery of route Chat: at once$/ }).waitFor();
    const cleared = await stored();
    expect(cleared).not.toHaveProperty("digest_seconds");
    expect(cleared).not.toHaveProperty("replace_finished");
    // The browser's own line for the refused save, and nothing else.
    expect(problems).toEqual([
      "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    await context.close();
  });
});
