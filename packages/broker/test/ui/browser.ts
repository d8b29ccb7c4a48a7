import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type BrokerApi, brokerApi, tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@notify/test-kit/chromium";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { hookFixture } from "../hook-fixture.js";

export const CHROMIUM = CHROMIUM_PATH;
/** The flags every headless Chromium runs with: one list (the test kit's `chromium`) for the suites, screenshots and bench. */
export { CHROMIUM_ARGS };

/**
 * Chromium for end-to-end tests: Debian's package (.ci/run installs it). Missing under CI=true is a failure;
 * elsewhere the suite is skipped with a notice naming the package.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  console.warn(`\n*** SKIPPING web UI browser tests: ${CHROMIUM} not found (apt-get install -y chromium) ***\n`);
  return false;
}

/**
 * One headless Chromium per test file (files run in parallel), with the flags DEVELOPERS.md lists. Playwright
 * gives every launch a fresh, empty --user-data-dir of its own.
 */
export function useBrowser(extraArgs: string[] = []): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("browser not started");
    return browser;
  };
}

export interface UiBroker {
  broker: RunningBroker;
  dataDir: string;
  token: string;
  /** A fresh one-time login link. */
  loginLink(): string;
  /** A /v1 call with the bearer token. */
  v1: BrokerApi["v1"];
  /** A /ui/api call with the bearer token and X-Notify-UI. */
  ui: BrokerApi["ui"];
  close(): Promise<void>;
}

/** A broker on `dataDir` (by default a temp dir removed when the test file ends). */
export async function startUiBroker(dataDir = tempDir("notify-ui-")): Promise<UiBroker> {
  const broker = await startBroker({ dataDir, port: 0, env: {} });
  const token = broker.settings.authToken;
  const api = brokerApi(broker.url, token);
  return {
    broker,
    dataDir,
    token,
    loginLink: () => `${broker.url}/ui/login?t=${broker.uiSessions.createLinkToken().token}`,
    v1: api.v1,
    ui: api.ui,
    close: () => broker.close(),
  };
}

/** A fresh {@link startUiBroker} broker for each test of the calling `describe` (see hookFixture). */
export function uiBrokerPerTest(): UiBroker {
  return hookFixture(
    "test",
    () => startUiBroker(),
    (ui) => ui.close(),
  );
}

/** A page signed in through a login link, collecting console errors and failed requests. */
export async function signedInPage(browser: Browser, ui: UiBroker, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport });
  // Below the test's own 30 s: a wait that never ends fails naming its locator, not as a bare test timeout.
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(ui.loginLink());
  await page.waitForURL(/\/ui\/$/);
  return { page, context, problems };
}

export interface SharedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and page errors since the last {@link SharedPageFixture.open}. */
  problems: string[];
}

export interface SharedPageFixture {
  /**
   * Signs the shared page in to `ui` (the one-time login link, fetched with the context's own cookie jar) and loads
   * `path` at `viewport`. Each call starts clean: no routes, light colours, no problems collected yet.
   */
  open(ui: UiBroker, options?: { path?: string; viewport?: { width: number; height: number } }): Promise<SharedPage>;
}

/**
 * One context and one page for the tests of the calling describe, where a test is not about a fresh browser: a
 * new context costs a renderer process (a second or more on a loaded 2-core machine). Every broker a test starts
 * has its own port, so its own origin (storage, cache); the session cookie is replaced at each sign-in. After each
 * test the page goes to about:blank, so nothing of a closed broker's page reaches the next test.
 */
export function useSharedPage(browser: () => Browser): SharedPageFixture {
  let shared: SharedPage | undefined;
  beforeAll(async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    // Below the test's own 30 s: a wait that never ends fails naming its locator, not as a bare test timeout.
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    shared = { page, context, problems };
  });
  afterEach(async () => {
    await shared?.page.goto("about:blank");
  });
  afterAll(async () => {
    await shared?.context.close();
  });
  return {
    async open(ui, { path = "/ui/", viewport = { width: 1280, height: 800 } } = {}) {
      if (!shared) throw new Error("shared page not started");
      const { page, context, problems } = shared;
      await page.unrouteAll({ behavior: "wait" });
      await page.emulateMedia({ colorScheme: "light" });
      await page.setViewportSize(viewport);
      const login = await context.request.get(ui.loginLink(), { maxRedirects: 0 });
      if (login.status() !== 303) throw new Error(`login link answered ${login.status()}`);
      problems.length = 0;
      await page.goto(`${ui.broker.url}${path}`);
      return shared;
    },
  };
}

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the page as it is now (injected by the test, not the page). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's CSP (no inline script) does not apply to it.
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<AxeResults> } }).axe;
    return axe.run(document);
  });
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`,
    );
}

/**
 * What {@link axeViolations} finds, cheaper: axe-core is injected only into a document that does not have it yet
 * (a view reached in place keeps it; parsing it costs about a second on a loaded machine), and only violations are
 * aggregated (`resultTypes`: every rule still runs, the passes and incomplete results are not given a selector for
 * each node). The same serious and critical violations, in the same words.
 */
export async function pageAxeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<AxeResults> } })
      .axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`,
    );
}

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}
