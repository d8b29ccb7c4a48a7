// Issue 37, item 3, "Receipts" (docs/relay.md, "Receipts"): the phone app in Chromium against the real relay
// (in-process, loopback) and a real broker. A question the app fetched, showed and the person tapped leaves each hop
// on the item's timeline (fetched by the relay's cursor, shown and opened reported by the app), before its answer.
// A phone that does not fetch (the app closed) flags its route after receipts.warnAfterSeconds (2 s here); opening
// the app again fetches, and the flag goes.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ItemTimeline, UnfetchedRoutes } from "@notify/contracts/ui";
import { SqliteStore } from "@notify/relay";
import { tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { addRelayProvider, type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
/** A wait across the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;

const run = existsSync(CHROMIUM) || process.env.CI === "true";

describe.runIf(run)("receipts from the phone app (Chromium, real relay and broker)", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let relay: RelayHarness;
  let relayUrl = "";
  let live: LiveBroker;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("receipts-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const brokerDir = tempDir("receipts-broker-");
    // A small threshold instead of the default 120 s: the test waits for the flag, never for a fixed time.
    writeFileSync(join(brokerDir, "config.json"), JSON.stringify({ receipts: { warnAfterSeconds: 2 } }));
    live = await liveBroker(brokerDir);
    await addRelayProvider(live, relayUrl, await relay.enroll("laptop"));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    const pairing = await live.call("POST", "/ui/api/relay/pairings");
    expect(pairing.status).toBe(201);
    await page.goto(pairing.body.link as string);
    await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await live?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  const ask = async (prompt: string): Promise<string> => {
    const asked = await live.call("POST", "/v1/interactions/request", {
      agent: "claude",
      project: "shop-api",
      prompt,
      kind: "single_choice",
      choices: [
        { id: "yes", label: "Ship it" },
        { id: "no", label: "Not yet" },
      ],
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    return asked.body.id as string;
  };
  const timeline = async (id: string): Promise<ItemTimeline> =>
    (await live.call("GET", `/ui/api/interactions/${id}/timeline`)).body as ItemTimeline;
  const unfetched = async (): Promise<UnfetchedRoutes> =>
    (await live.call("GET", "/ui/api/relay/unfetched")).body as UnfetchedRoutes;

  it("fetched, shown on the phone, opened by a tap, answered: each hop on the timeline, in order", async () => {
    const id = await ask("Ship build 1432?");
    const card = page.getByRole("article", { name: "Question from claude" });
    await card.getByRole("button", { name: "Ship it" }).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    // On screen: the app reports `shown`; its next fetch sends the cursor back, so the relay records `fetched`.
    await expect
      .poll(async () => (await timeline(id)).entries.filter((entry) => entry.event === "receipt").map((e) => e.state), {
        timeout: E2E_WAIT_MS,
        interval: 200,
      })
      .toEqual(expect.arrayContaining(["fetched", "shown"]));
    await card.getByRole("button", { name: "Ship it" }).tap();
    await expect
      .poll(async () => (await timeline(id)).entries.map((entry) => entry.event), {
        timeout: E2E_WAIT_MS,
        interval: 200,
      })
      .toContain("settled");
    await expect
      .poll(
        async () => (await timeline(id)).entries.some((entry) => entry.event === "receipt" && entry.state === "opened"),
        { timeout: E2E_WAIT_MS, interval: 200 },
      )
      .toBe(true);
    const entries = (await timeline(id)).entries;
    const at = (predicate: (entry: ItemTimeline["entries"][number]) => boolean) => entries.findIndex(predicate);
    const sent = at((entry) => entry.event === "delivery" && entry.outcome === "sent");
    const shown = at((entry) => entry.event === "receipt" && entry.state === "shown");
    const opened = at((entry) => entry.event === "receipt" && entry.state === "opened");
    const fetched = at((entry) => entry.event === "receipt" && entry.state === "fetched");
    const answered = at((entry) => entry.event === "settled" && entry.status === "answered");
    expect(sent).toBeGreaterThanOrEqual(0);
    expect(fetched).toBeGreaterThan(sent);
    expect(shown).toBeGreaterThan(fetched);
    expect(opened).toBeGreaterThan(shown);
    expect(answered).toBeGreaterThan(opened);
    expect(entries[answered]).toMatchObject({ source: "relay", choice_label: "Ship it" });
    for (const entry of entries.filter((each) => each.event === "receipt")) {
      expect(entry).toMatchObject({
        route: { name: "questions", provider_kind: "relay" },
        device_id: expect.any(String),
      });
    }
    // Each report once: the relay took one `shown` and one `opened` for the question's envelope.
    expect(entries.filter((entry) => entry.event === "receipt" && entry.state === "shown")).toHaveLength(1);
    expect(problems).toEqual([]);
  }, 90_000);

  it("a phone that never fetches flags its route after the threshold; opening the app clears it", async () => {
    expect((await unfetched()).routes).toEqual([]);
    // The app is closed: nothing fetches.
    await page.goto(`${relayUrl}/healthz`);
    const id = await ask("Roll back build 1431?");
    await expect
      .poll(async () => (await unfetched()).routes.map((route) => route.route_name), {
        timeout: E2E_WAIT_MS,
        interval: 200,
      })
      .toEqual(["questions"]);
    expect((await unfetched()).warn_after_seconds).toBe(2);
    await page.goto(`${relayUrl}/app/`);
    await page
      .getByRole("article", { name: "Question from claude" })
      .getByRole("button", { name: "Not yet" })
      .first()
      .waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    await expect.poll(async () => (await unfetched()).routes, { timeout: E2E_WAIT_MS, interval: 200 }).toEqual([]);
    const hops = (await timeline(id)).entries.filter((entry) => entry.event === "receipt").map((e) => e.state);
    expect(hops).toEqual(expect.arrayContaining(["fetched", "shown"]));
  }, 90_000);
});
