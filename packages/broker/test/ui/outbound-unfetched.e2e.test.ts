// Issue 37 item 3, "Receipts": a relay route whose phone never fetches is flagged on the Outbound page after
// receipts.warnAfterSeconds (1 s here), under its route, with what to do; once the phone fetches, the flag goes. The
// page in Chromium against a real broker and a real relay (in-process, loopback) with a simulated phone.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Envelope } from "@notify/contracts/relay-envelope";
import type { UnfetchedRoutes } from "@notify/contracts/ui";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { pairPhone, startRelay } from "../relay/relay-harness.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();

describe.skipIf(!run)("the Outbound page flags a route whose phones fetch nothing (Chromium)", () => {
  const browser = useBrowser();
  let ui: UiBroker | undefined;
  afterEach(async () => {
    await ui?.close();
  });

  it("says so under the route after the threshold, accessibly, and not once the phone fetched", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll("laptop");
    const phone = await pairPhone(relay, installation);
    const dataDir = tempDir("notify-ui-unfetched-");
    writeFileSync(join(dataDir, "config.json"), JSON.stringify({ receipts: { warnAfterSeconds: 1 } }));
    ui = await startUiBroker(dataDir);
    const broker = ui;
    expect(
      (
        await broker.ui("POST", "/outbound/providers", {
          kind: "relay",
          name: "phone",
          enabled: true,
          settings: { url: relay.url, installationId: installation.installation_id },
          secrets: { installationToken: installation.token },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await broker.ui("POST", "/outbound/routes", {
          name: "questions",
          provider: "phone",
          includeMessage: true,
          enabled: true,
        })
      ).status,
    ).toBe(201);
    expect((await broker.v1("POST", "/interactions/request", { agent: "claude", prompt: "Ship it?" })).status).toBe(
      201,
    );
    await untilValue(
      "the route flagged",
      async () => {
        const read = (await broker.ui<UnfetchedRoutes>("GET", "/relay/unfetched")).body;
        return read.routes.length > 0 ? read : undefined;
      },
      { timeoutMs: 30_000, everyMs: 200 },
    );

    const { page, problems } = await signedInPage(browser(), broker);
    await page.goto(`${broker.broker.url}/ui/outbound`);
    const flag = page.getByRole("alert").filter({ hasText: "route questions" });
    await flag.waitFor();
    expect(await flag.textContent()).toMatch(
      /^Not fetched: no phone has fetched 2 deliveries of route questions after 1 s \(the oldest was sent at .+\)\. Open the Notify app on the phone and turn its notifications on\.$/,
    );
    expect(await axeViolations(page)).toEqual([]);

    // The phone fetches, and sends the cursor back: the page no longer flags the route.
    let cursor: string | undefined;
    for (let polls = 0; polls < 3; polls++) {
      const page = (await relay.envelopes(phone, cursor)).json() as {
        envelopes: { envelope: Envelope }[];
        next_cursor: string;
      };
      cursor = page.next_cursor;
    }
    await untilValue(
      "the flag gone",
      async () =>
        (await broker.ui<UnfetchedRoutes>("GET", "/relay/unfetched")).body.routes.length === 0 ? true : undefined,
      { timeoutMs: 30_000, everyMs: 200 },
    );
    await page.reload();
    await page.locator(".route-delivery").filter({ hasText: "route questions" }).waitFor();
    expect(await page.getByRole("alert").filter({ hasText: "route questions" }).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);
});
