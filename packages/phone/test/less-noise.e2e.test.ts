// Issue 37, item 4, "Less noise" (docs/phone.md): five open questions make ONE system notification on the phone that
// counts them ("5 questions from 3 agents"), replaced push after push rather than stacked; as they are answered the
// count follows, the last one left shows as itself, and none open closes it. The phone app in Chromium against the
// real relay (in-process, loopback) and a real broker; each push is what the relay sends (`{envelope_id, version}`),
// delivered to the service worker through the DevTools protocol; the notifications are read from the service
// worker's registration (`getNotifications()`). NOTIFY_PHONE_DIST names another build of the app to test (how the
// test was seen failing against the service worker before this change).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { type Json, tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { addRelayProvider, type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = process.env.NOTIFY_PHONE_DIST ?? join(ROOT, "packages/phone/dist");
/** A wait across the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;

const run = existsSync(CHROMIUM) || process.env.CI === "true";

describe.runIf(run)("phone pushes collapse into one notification (Chromium, real relay and broker)", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let relay: RelayHarness;
  let relayUrl = "";
  let live: LiveBroker;
  let device = { token: "", cursor: undefined as string | undefined };
  let registrationId: Promise<string>;
  const pushed = new Set<string>();

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("less-noise-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    live = await liveBroker(tempDir("less-noise-broker-"));
    await addRelayProvider(live, relayUrl, await relay.enroll("laptop"));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.grantPermissions(["notifications"], { origin: relayUrl });
    page = await context.newPage();
    const pairing = await live.call("POST", "/ui/api/relay/pairings");
    expect(pairing.status).toBe(201);
    await page.goto(pairing.body.link as string);
    await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    await page.evaluate(() => (navigator as unknown as BrowserNavigator).serviceWorker.ready.then(() => true));
    device = await page.evaluate(
      () =>
        new Promise<{ token: string; cursor: string | undefined }>((resolve) => {
          const open = indexedDB.open("notify-phone");
          open.onsuccess = () => {
            const store = open.result.transaction("kv").objectStore("kv");
            const pairing = store.get("pairing");
            const cursor = store.get("cursor");
            pairing.onsuccess = () => {
              cursor.onsuccess = () =>
                resolve({ token: (pairing.result as { token: string }).token, cursor: cursor.result as string });
            };
          };
        }),
    );
    // The app is closed (another page of the origin, outside its scope): only the pushes tell the phone.
    await page.goto(`${relayUrl}/healthz`);
    cdp = await context.newCDPSession(page);
    registrationId = new Promise<string>((resolve) => {
      cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        (event: { registrations: { registrationId: string; scopeURL: string }[] }) => {
          const found = event.registrations.find((registration) => registration.scopeURL === `${relayUrl}/app/`);
          if (found) resolve(found.registrationId);
        },
      );
    });
    await cdp.send("ServiceWorker.enable");
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await live?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  /** The phone's notifications, as its service worker's registration lists them. */
  const shown = () =>
    page.evaluate(async () => {
      const registration = await (navigator as unknown as BrowserNavigator).serviceWorker.getRegistration("/app/");
      const notifications = (await registration?.getNotifications()) ?? [];
      // A machine's sessions line (issue 37, item 1) is not a question's.
      return notifications
        .filter((notification: { tag: string }) => notification.tag !== "sessions")
        .map((notification: { title: string; tag: string }) => ({ title: notification.title, tag: notification.tag }));
    });

  /** This device's envelopes since the page's cursor (the app was closed there). */
  async function envelopeIds(): Promise<string[]> {
    const query = device.cursor ? `since=${encodeURIComponent(device.cursor)}` : "";
    const feed = (await (
      await fetch(`${relayUrl}/v1/envelopes?${query}`, { headers: { authorization: `Bearer ${device.token}` } })
    ).json()) as { envelopes: { envelope_id: string }[] };
    return feed.envelopes.map((envelope) => envelope.envelope_id);
  }

  /**
   * The notifications once they equal `expected`: meanwhile every envelope that reaches the relay for this phone
   * (status notices, sessions summaries) is pushed, as the relay would.
   */
  async function pushedUntil(expected: { title: string; tag: string }[]): Promise<void> {
    await expect
      .poll(
        async () => {
          await pushNew(await envelopeIds());
          return shown();
        },
        { timeout: E2E_WAIT_MS, interval: 250 },
      )
      .toEqual(expected);
  }

  /** Pushes every envelope not pushed yet, in order, exactly as the relay would (nothing readable). */
  async function pushNew(ids: string[]): Promise<void> {
    for (const id of ids) {
      if (pushed.has(id)) continue;
      pushed.add(id);
      await cdp.send("ServiceWorker.deliverPushMessage", {
        origin: relayUrl,
        registrationId: await registrationId,
        data: JSON.stringify({ envelope_id: id, version: "1" }),
      });
    }
  }

  it("five open questions show as ONE notification with the count; answered one by one, it follows and then closes", async () => {
    const asks: [string, string][] = [
      ["claude-code", "s-1"],
      ["claude-code", "s-1"],
      ["claude-code", "s-2"],
      ["codex", "s-3"],
      ["claude-code", "s-2"],
    ];
    const questions: Json[] = [];
    for (const [index, [agent, session]] of asks.entries()) {
      const created = await live.call("POST", "/v1/interactions/request", {
        agent,
        session_id: session,
        project: "shop",
        prompt: `Run migration ${index + 1}?`,
      });
      expect(created.status).toBe(201);
      questions.push(created.body);
    }
    // Five questions and their five companion notifications, sealed for this phone.
    let ids: string[] = [];
    await expect
      .poll(
        async () => {
          ids = await envelopeIds();
          return ids.length;
        },
        { timeout: E2E_WAIT_MS },
      )
      .toBeGreaterThanOrEqual(10);
    // The first push already counts every open question the phone can read.
    await pushNew(ids.slice(0, 1));
    const count = [{ title: "5 questions from 3 agents", tag: "questions" }];
    await expect.poll(shown, { timeout: E2E_WAIT_MS }).toEqual(count);
    // One notification, replaced push after push (a tag per question would leave five).
    await pushNew(ids);
    await expect.poll(shown, { timeout: E2E_WAIT_MS }).toEqual(count);

    for (const [index, question] of questions.entries()) {
      const answered = await live.call("POST", `/v1/interactions/${question.id}/respond`, {
        response_id: `less-noise-${index}`,
        request_digest: question.request_digest,
        nonce: question.nonce,
        choice_id: "allow",
      });
      expect(answered.status).toBe(200);
      // The settle reaches the phone as a status notice, with its push.
      const left = questions.length - index - 1;
      if (left >= 2) {
        const agents = new Set(asks.slice(index + 1).map(([agent, session]) => `${agent}/${session}`)).size;
        await pushedUntil([
          { title: `${left} questions from ${agents} ${agents === 1 ? "agent" : "agents"}`, tag: "questions" },
        ]);
      } else if (left === 1) {
        // The one left shows as itself.
        await pushedUntil([{ title: "shop · claude-code", tag: questions.at(-1)?.id }]);
      }
    }
    // None open: no question's notification is left.
    await pushedUntil([]);
  }, 120_000);

  it("a pushed question shown on the lock screen is a `shown` receipt on its timeline (issue 37, item 3)", async () => {
    const created = await live.call("POST", "/v1/interactions/request", {
      agent: "codex",
      project: "shop",
      prompt: "Deploy to staging?",
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await pushedUntil([{ title: "shop · codex", tag: id }]);
    // The app stays closed: only the service worker, showing the notification, can have reported it.
    await expect
      .poll(
        async () => {
          const timeline = (await live.call("GET", `/ui/api/interactions/${id}/timeline`)).body as {
            entries: { event: string; state?: string }[];
          };
          return timeline.entries.filter((entry) => entry.event === "receipt").map((entry) => entry.state);
        },
        { timeout: E2E_WAIT_MS, interval: 250 },
      )
      .toContain("shown");
  }, 60_000);
});
