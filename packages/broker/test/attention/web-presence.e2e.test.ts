import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { PresenceActivityBody, PresenceResponse } from "@notify/contracts";
import { type Json, tempDir } from "@notify/test-kit";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import { recordingServer } from "../outbox/webhook-server.js";
import { chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "../ui/browser.js";

// Issue 24, "Must show": presence from a real /ui page in Chromium, visible vs hidden. Headless Chromium keeps every
// page visible whatever is in front (another tab, Target.activateTarget, a minimized window, Page.setWebLifecycleState
// and focus emulation were all tried): hidden is made the way the page reads it, document.visibilityState overridden
// and visibilitychange dispatched.

const run = chromiumAvailable();

async function setVisibility(page: Page, state: "visible" | "hidden"): Promise<void> {
  await page.evaluate((value) => {
    Object.defineProperty(document, "visibilityState", { value, configurable: true });
    Object.defineProperty(document, "hidden", { value: value === "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  }, state);
}

/** Every activity report a page sends, in the order it sends them. */
function reportsOf(page: Page): PresenceActivityBody[] {
  const reports: PresenceActivityBody[] = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/ui/api/presence/activity") && request.method() === "POST") {
      reports.push(JSON.parse(request.postData() ?? "{}") as PresenceActivityBody);
    }
  });
  return reports;
}

async function until(ui: UiBroker, check: (presence: PresenceResponse) => boolean): Promise<PresenceResponse> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await ui.ui<PresenceResponse>("GET", "/presence");
    if (check(body)) return body;
    if (Date.now() > deadline) throw new Error(`presence never matched: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const web = (presence: PresenceResponse) => presence.sources.find((source) => source.name === "web");

describe.skipIf(!run)("presence from a /ui page in Chromium", () => {
  const browser = useBrowser();
  let ui: UiBroker | undefined;
  afterEach(async () => {
    await ui?.close();
    ui = undefined;
  });

  // The first two wait out the hidden page grace (PAGE_HIDDEN_GRACE_MS, 10 s, not configurable) three times between
  // them, the third awayAfterSeconds: each has its own broker and browser context, so they wait side by side.
  it.concurrent("a visible page is presence; hidden it stops vouching after the grace and reports no input; another tab still does", async ({
    expect,
  }) => {
    const broker = await startUiBroker();
    try {
      expect((await broker.ui<PresenceResponse>("GET", "/presence")).body).toMatchObject({ state: "unknown" });

      const { page, context, problems } = await signedInPage(browser(), broker);
      const reports = reportsOf(page);
      const present = await until(broker, (presence) => presence.state === "present");
      expect(web(present)).toEqual({
        name: "web",
        state: "present",
        detail: expect.stringMatching(/^a visible page reported activity \d+ s ago$/),
      });

      // A second tab, visible: two pages vouch.
      const second = await context.newPage();
      await second.goto(`${broker.broker.url}/ui/settings`);
      await until(broker, (presence) => web(presence)?.detail.startsWith("2 visible pages") === true);

      // The first is hidden: it says so at once, and counts for the grace (a reload says the same); the second vouches.
      const before = reports.length;
      await setVisibility(page, "hidden");
      await until(broker, (presence) => /^a visible page .*; a page hidden/.test(web(presence)?.detail ?? ""));
      await until(broker, (presence) => web(presence)?.detail.includes("hidden") === false);
      expect((await broker.ui<PresenceResponse>("GET", "/presence")).body.state).toBe("present");

      // The second closes (it stops reporting; here it is hidden first as a closing tab is): nobody vouches.
      await setVisibility(second, "hidden");
      await second.close();
      const unknown = await until(broker, (presence) => presence.state === "unknown");
      expect(web(unknown)).toEqual({ name: "web", state: "unknown", detail: "no visible page has reported activity" });

      // Input on the hidden page is not activity; shown again, it reports at once.
      await page.keyboard.press("Shift");
      await page.mouse.move(10, 10);
      await setVisibility(page, "visible");
      await until(broker, (presence) => presence.state === "present");
      expect(reports.slice(before)).toEqual([
        { page: reports[0]?.page, visible: false },
        { page: reports[0]?.page, visible: true },
      ]);
      expect(reports[0]?.page).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await broker.close();
    }
  }, 60_000);

  it.concurrent("a reload or a move to another page keeps a `when: away` item held; a hidden page releases it (issue 31, item 11)", async ({
    expect,
  }) => {
    // startUiBroker gives the broker no session bus, so no screen saver: the page is the only presence there is.
    const broker = await startUiBroker();
    const hook = await recordingServer();
    try {
      const provider = await broker.ui("POST", "/outbound/providers", {
        kind: "webhook",
        name: "hook",
        settings: { url: hook.url },
        enabled: true,
      });
      expect(provider.status).toBe(201);
      const route = await broker.ui("POST", "/outbound/routes", {
        name: "Phone when away",
        provider: "hook",
        enabled: true,
        when: "away",
      });
      expect(route.status).toBe(201);

      const { page, context, problems } = await signedInPage(browser(), broker);
      const reports = reportsOf(page);
      const present = await until(broker, (presence) => presence.state === "present");
      const created = await broker.v1<Json>("POST", "/notifications", { title: "Approve deploy?", message: "m" });
      const id = String(created.body.id);
      const stateOf = (): string | undefined => {
        const db = new DatabaseSync(join(broker.dataDir, DATABASE_FILE_NAME), { readOnly: true });
        try {
          const row = db.prepare("SELECT state FROM routed_deliveries WHERE subject = 'notification'").get() as
            | { state: string }
            | undefined;
          return row?.state;
        } finally {
          db.close();
        }
      };
      await expect.poll(stateOf).toBe("held");

      // Each way of moving: a link inside the app (no page load), then page loads, which unload the page before.
      const moves: [string, boolean, () => Promise<unknown>][] = [
        ["a link inside the app", false, () => page.getByRole("link", { name: "Details of Approve deploy?" }).click()],
        ["a page load of the inbox", true, () => page.goto(`${broker.broker.url}/ui/`)],
        ["a page load of the item", true, () => page.goto(`${broker.broker.url}/ui/notifications/${id}`)],
        ["a reload", true, () => page.reload()],
      ];
      for (const [name, loads, move] of moves) {
        const before = new Set(reports.map((report) => report.page));
        await move();
        await page.getByText("Approve deploy?").first().waitFor();
        if (loads) {
          // The new page reported itself, and the broker took it.
          await expect.poll(() => reports.some((report) => !before.has(report.page) && report.visible)).toBe(true);
          await until(broker, (presence) => web(presence)?.detail.startsWith("a visible page") === true);
        }
        const now = (await broker.ui<PresenceResponse>("GET", "/presence")).body;
        expect({ name, state: now.state, since: now.since }).toEqual({ name, state: "present", since: present.since });
        expect({ name, delivery: stateOf() }).toEqual({ name, delivery: "held" });
        if (loads) {
          // The page that unloaded did say it was hidden: it counts for the grace, so the new page takes over.
          await expect
            .poll(async () => web((await broker.ui<PresenceResponse>("GET", "/presence")).body)?.detail)
            .toMatch(/; (a page|\d+ pages) hidden \d+ s ago still counts? for \d+ s$/);
        }
      }
      expect(new Set(reports.map((report) => report.page)).size).toBe(4);
      expect(hook.received).toHaveLength(0);

      // Hidden for real (the person went to another tab): once the grace is over, unknown, and the item goes.
      await setVisibility(page, "hidden");
      await until(broker, (presence) => presence.state === "unknown");
      await expect.poll(() => hook.received.length).toBe(1);
      expect(JSON.parse(hook.received[0]?.body ?? "{}").notification.id).toBe(id);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await hook.close();
      await broker.close();
    }
  }, 60_000);

  it.concurrent("with awayAfterSeconds 2 a page left alone goes stale, and the next input makes it presence again", async ({
    expect,
  }) => {
    const dataDir = tempDir("notify-ui-");
    writeFileSync(join(dataDir, "config.json"), JSON.stringify({ awayAfterSeconds: 2 }));
    const broker = await startUiBroker(dataDir);
    try {
      const { page, context, problems } = await signedInPage(browser(), broker);
      const answers: unknown[] = [];
      page.on("response", (response) => {
        // The page may close before a late report's body is read: such a body is simply not counted.
        if (response.url().endsWith("/ui/api/presence/activity")) {
          response.json().then(
            (body) => answers.push(body),
            () => {},
          );
        }
      });
      await until(broker, (presence) => presence.state === "present");
      // Nothing happens on the page: its activity is older than awayAfterSeconds, so it no longer vouches.
      await until(broker, (presence) => presence.state === "unknown");
      // A key press is activity (the broker asked for reports every second with awayAfterSeconds 2).
      await page.keyboard.press("Shift");
      await until(broker, (presence) => presence.state === "present");
      await expect.poll(() => answers).toContainEqual({ report_every_seconds: 1 });
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await broker.close();
    }
  });

  it("POST /ui/api/presence/activity: the /ui/api guard and a checked body", async () => {
    ui = await startUiBroker();
    const url = `${ui.broker.url}/ui/api/presence/activity`;
    const body = JSON.stringify({ page: "abcdefgh", visible: true });
    const noHeader = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${ui.token}`, "content-type": "application/json" },
      body,
    });
    expect(noHeader.status).toBe(403);
    const noSession = await fetch(url, {
      method: "POST",
      headers: { "x-notify-ui": "1", "content-type": "application/json" },
      body,
    });
    expect(noSession.status).toBe(401);
    const bad = await ui.ui("POST", "/presence/activity", { page: "abc", visible: true });
    expect(bad).toMatchObject({ status: 400, body: { error: "page: must be 8-64 letters, digits, _ or -" } });
    expect((await ui.ui<PresenceResponse>("GET", "/presence")).body.state).toBe("unknown");
    const good = await ui.ui("POST", "/presence/activity", { page: "abcdefgh", visible: true });
    expect(good).toMatchObject({ status: 200, body: { report_every_seconds: 30 } });
    expect((await ui.ui<PresenceResponse>("GET", "/presence")).body.state).toBe("present");
  });
});
