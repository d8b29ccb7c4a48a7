// Issue 14, Build item 1: the web UI's Relay page against a real relay (in-process, SQLite, loopback): enroll with
// the operator's token, pair a simulated phone by the code the page shows (its QR image is there), see the device
// listed, revoke it. The enrollment token never comes back in any /ui/api reply or the page.
import { generateKeyPairSync } from "node:crypto";
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { startRelay } from "../relay/relay-harness.js";
import { axeViolations, chromiumAvailable, signedInPage, uiBrokerPerTest, useBrowser } from "./browser.js";

const run = chromiumAvailable();

describe.skipIf(!run)("the Relay page in Chromium", () => {
  const browser = useBrowser();
  const ui = uiBrokerPerTest();

  it("enrolls, shows a pairing QR code and code a phone can claim, lists the device and revokes it", async () => {
    const relay = await startRelay();
    const { page, context, problems } = await signedInPage(browser(), ui);
    const replies: string[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname.startsWith("/ui/api/")) {
        void response.text().then(
          (text) => replies.push(text),
          () => undefined,
        );
      }
    });

    await page.getByRole("link", { name: "Relay" }).click();
    await page.getByRole("heading", { name: "Relay", level: 1 }).waitFor();
    await page.getByText("Not enrolled").waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel("Relay URL").fill(relay.url);
    await page.getByLabel("Enrollment token").fill("nre_wrong-token");
    await page.getByRole("button", { name: "Enroll" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("the relay answered HTTP 401");

    await page.getByLabel("Enrollment token").fill(ENROLLMENT_TOKEN);
    await page.getByRole("button", { name: "Enroll" }).click();
    await page.getByText(`Enrolled at ${relay.url}`).first().waitFor();
    // Enrolled: the form folds into "Enroll again", its token field emptied.
    await page.getByText("Enroll again (replaces this installation)").waitFor();
    expect(await page.locator('input[name="enrollment-token"]').inputValue()).toBe("");

    await page.getByRole("button", { name: "Pair a phone" }).click();
    const qr = page.getByRole("img", { name: /QR code for the pairing link/ });
    await qr.waitFor();
    const src = (await qr.getAttribute("src")) ?? "";
    expect(src).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(src.split(",")[1] ?? "", "base64").toString()).toMatch(/^<svg[^>]*>.*<path/s);
    // The image really decodes (a broken data: URL or a CSP refusal leaves naturalWidth at 0).
    expect(await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(
      0,
    );
    const code = ((await page.locator(".pairing-code").textContent()) ?? "").trim();
    expect(code).not.toBe("");
    await page.getByText(/^in \d+:\d\d$/).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const { publicKey } = generateKeyPairSync("x25519");
    const jwk = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string };
    const claim = await relay.request({
      url: "/v1/pairings/claim",
      body: { code, device_name: "Pixel 9", public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } },
    });
    expect(claim.status).toBe(201);
    const deviceId = (claim.json() as { device_id: string }).device_id;

    // No click: while the code is live the page re-reads the device list, announces the phone and drops the code.
    await page.getByRole("status").filter({ hasText: "Pixel 9 paired" }).waitFor();
    await page.getByRole("listitem").filter({ hasText: "Pixel 9" }).waitFor();
    expect(await page.locator(".pairing-code").count()).toBe(0);
    await page.getByText(deviceId).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Revoke Pixel 9" }).click();
    await page.getByText("Revoked Pixel 9").waitFor();
    await page.getByText("No phone is paired yet.").waitFor();
    expect((await ui.ui<{ devices: unknown[] }>("GET", "/relay/devices")).body.devices).toEqual([]);

    // The enrollment token is write-only: in no /ui/api reply and not in the page.
    const providers = await ui.ui("GET", "/outbound/providers");
    expect(providers.text).not.toContain(ENROLLMENT_TOKEN);
    expect(replies.length).toBeGreaterThan(3);
    for (const text of replies) expect(text).not.toContain(ENROLLMENT_TOKEN);
    expect(await page.content()).not.toContain(ENROLLMENT_TOKEN);
    // The one console line is the browser logging the refused enrollment's 502 (the wrong token above).
    expect(problems).toEqual([
      "console: Failed to load resource: the server responded with a status of 502 (Bad Gateway)",
    ]);
    await context.close();
  }, 60_000);
});
