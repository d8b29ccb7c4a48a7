// Issue 37, item 2, "Must show": several machines, one phone. A real relay (in-process, loopback), two real brokers
// standing for two machines (two data dirs, named alpha and beta with --machine) and the phone app in Chromium. The
// phone is paired once (`notify relay pair` on alpha); beta joins alpha's owner (`notify relay pair --join` there,
// `notify relay join URL CODE` here, the real CLI). Questions from both arrive labelled with their machine, and each
// answer tapped on the phone reaches the broker that asked while the other's stays open. Beta leaves (`notify relay
// leave`): a tap on its card still on the phone is refused in words and its question stays open on beta, beta's new
// questions no longer reach the phone while alpha's still do, and `notify relay machines --json` lists two, then one.
// Tenancy against other owners is the relay suite's (packages/relay/test/joins-owners.test.ts).

import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { ENROLLMENT_TOKEN, tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
const NOTIFY = join(ROOT, "packages/broker/bin/notify.js");

function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  console.warn(`\n*** SKIPPING the several-machines phone test: ${CHROMIUM} not found ***\n`);
  return false;
}

const run = chromiumAvailable();

/** What a wait across two brokers, the relay and Chromium may take on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;
/** Each CLI run starts a Node process: a few seconds apiece on a loaded 2-core machine. */
const CLI_TIMEOUT_MS = 60_000;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real CLI (`packages/broker/bin/notify.js`) against one of the live brokers. */
function notify(live: LiveBroker, args: string[]): Promise<CliRun> & { settled: () => boolean } {
  let done = false;
  const result = new Promise<CliRun>((resolve) => {
    const child = spawn(
      process.execPath,
      [NOTIFY, ...args, "--port", String(live.broker.port), "--token", live.broker.settings.authToken],
      { env: { ...process.env, NOTIFY_DATA_DIR: live.dataDir, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => {
      done = true;
      resolve({ code, stdout, stderr });
    });
  });
  return Object.assign(result, { settled: () => done });
}

/** `notify ask PROMPT` with two choices, from `agent`. */
const ask = (live: LiveBroker, prompt: string, agent: string, choices: [string, string][]) =>
  notify(live, [
    "ask",
    prompt,
    "--kind",
    "single_choice",
    ...choices.flatMap(([id, label]) => ["--choice", `${id}=${label}`]),
    "--agent",
    agent,
    "--project",
    "fleet",
  ]);

async function visible(locator: Locator, timeout = E2E_WAIT_MS): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout });
}

/** The phone's card whose prompt is `prompt`. */
const cardOf = (page: Page, prompt: string): Locator =>
  page.getByRole("article").filter({ has: page.locator(".prompt", { hasText: prompt }) });

type Pending = { id: string; request_digest: string; nonce: string; title?: string; message?: string }[];
const pending = async (live: LiveBroker): Promise<Pending> =>
  (await live.call("GET", "/v1/interactions?pending=true")).body as unknown as Pending;

describe.runIf(run)("several machines, one phone: two brokers, the relay and the phone app in Chromium", () => {
  let browser: Browser;
  let page: Page;
  let relay: RelayHarness;
  let relayUrl = "";
  let alpha: LiveBroker;
  let beta: LiveBroker;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("machines-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    alpha = await liveBroker(tempDir("machines-alpha-"));
    beta = await liveBroker(tempDir("machines-beta-"));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await alpha?.close();
    await beta?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  it("pairs the phone once on alpha; beta joins alpha's owner with the CLI; both list both machines", {
    timeout: 4 * CLI_TIMEOUT_MS,
  }, async () => {
    const enrolled = await notify(alpha, [
      "relay",
      "enroll",
      relayUrl,
      "--enrollment-token",
      ENROLLMENT_TOKEN,
      "--machine",
      "alpha",
    ]);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const pairing = await notify(alpha, ["relay", "pair", "--json"]);
    expect(pairing.code, pairing.stderr).toBe(0);
    await page.goto(JSON.parse(pairing.stdout).link);
    await visible(page.getByText(/Paired as/));

    const code = await notify(alpha, ["relay", "pair", "--join", "--json"]);
    expect(code.code, code.stderr).toBe(0);
    const { command } = JSON.parse(code.stdout) as { command: string };
    const [, , , url, joinCode] = command.split(" ");
    expect(url).toBe(relayUrl);
    const joined = await notify(beta, ["relay", "join", url as string, joinCode as string, "--machine", "beta"]);
    expect(joined.code, joined.stderr).toBe(0);

    // The phone paired once is beta's phone too.
    const devices = (await beta.call("GET", "/ui/api/relay/devices")).body as { devices: { device_id: string }[] };
    expect(devices.devices).toHaveLength(1);
    const listed = await notify(beta, ["relay", "machines", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).machines).toEqual([
      { installation_id: expect.any(String), name: "alpha", created_at: expect.any(String), this: false },
      { installation_id: expect.any(String), name: "beta", created_at: expect.any(String), this: true },
    ]);
  });

  it("questions from both arrive labelled by machine; each tap answers the machine that asked, the other stays open", {
    timeout: 2 * CLI_TIMEOUT_MS,
  }, async () => {
    const fromAlpha = ask(alpha, "Deploy the API from alpha?", "claude", [
      ["ship", "Ship it"],
      ["hold", "Hold it"],
    ]);
    const fromBeta = ask(beta, "Run the migration on beta?", "codex", [
      ["run", "Run it"],
      ["skip", "Skip it"],
    ]);
    const alphaCard = cardOf(page, "Deploy the API from alpha?");
    const betaCard = cardOf(page, "Run the migration on beta?");
    await visible(alphaCard.getByRole("button", { name: "Hold it" }));
    await visible(betaCard.getByRole("button", { name: "Run it" }));
    expect(await alphaCard.locator(".meta .machine").textContent()).toBe("on alpha");
    expect(await betaCard.locator(".meta .machine").textContent()).toBe("on beta");

    await alphaCard.getByRole("button", { name: "Hold it" }).click();
    expect(await fromAlpha).toMatchObject({ code: 0, stdout: "hold\n" });
    // Beta's question is untouched: still open there, its `notify ask` still waiting.
    expect(fromBeta.settled()).toBe(false);
    expect((await pending(beta)).map((question) => question.message ?? question.title)).toHaveLength(1);

    await betaCard.getByRole("button", { name: "Skip it" }).click();
    expect(await fromBeta).toMatchObject({ code: 0, stdout: "skip\n" });
    expect(await pending(alpha)).toEqual([]);
    expect(await pending(beta)).toEqual([]);
  });

  it("after beta leaves, a tap on its card is refused in words and its question stays open on beta", {
    timeout: 3 * CLI_TIMEOUT_MS,
  }, async () => {
    const asked = ask(beta, "Rotate the keys on beta?", "codex", [
      ["rotate", "Rotate"],
      ["later", "Later"],
    ]);
    const card = cardOf(page, "Rotate the keys on beta?");
    await visible(card.getByRole("button", { name: "Rotate" }));

    const left = await notify(beta, ["relay", "leave", "--json"]);
    expect(left.code, left.stderr).toBe(0);
    await card.getByRole("button", { name: "Rotate" }).click();
    await expect
      .poll(() => card.getByRole("status").textContent(), { timeout: E2E_WAIT_MS })
      .toBe("Not sent: beta has left this phone; answer it there");
    // The phone stays paired (a 403, not a 401), and nothing is lost on beta: the question is still open there and
    // is answered on the machine itself.
    expect(await page.getByText(/Paired as/).count()).toBeGreaterThan(0);
    const [question] = await pending(beta);
    expect(question).toBeDefined();
    expect(asked.settled()).toBe(false);
    const answered = await beta.call("POST", `/v1/interactions/${question?.id}/respond`, {
      response_id: "on-beta-1",
      request_digest: question?.request_digest,
      nonce: question?.nonce,
      choice_id: "later",
      source: "desktop",
    });
    expect(answered.status).toBe(200);
    expect(await asked).toMatchObject({ code: 0, stdout: "later\n" });
  });

  it("beta's new questions no longer reach the phone, alpha's still do; machines lists alpha alone", {
    timeout: 3 * CLI_TIMEOUT_MS,
  }, async () => {
    const fromBeta = ask(beta, "Beta asks after leaving?", "codex", [
      ["yes", "Yes"],
      ["no", "No"],
    ]);
    // Asked first on beta, so once alpha's later question is on the phone, beta's would have been too.
    await expect.poll(async () => (await pending(beta)).length, { timeout: E2E_WAIT_MS }).toBe(1);
    const fromAlpha = ask(alpha, "Alpha asks after beta left?", "claude", [
      ["yes", "Yes"],
      ["no", "No"],
    ]);
    const alphaCard = cardOf(page, "Alpha asks after beta left?");
    await visible(alphaCard.getByRole("button", { name: "Yes" }));
    expect(await alphaCard.locator(".meta .machine").textContent()).toBe("on alpha");
    expect(await cardOf(page, "Beta asks after leaving?").count()).toBe(0);
    expect((await beta.call("GET", "/ui/api/outbound/routes")).body).toEqual([]);

    const listed = await notify(alpha, ["relay", "machines", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).machines).toEqual([
      { installation_id: expect.any(String), name: "alpha", created_at: expect.any(String), this: true },
    ]);

    await alphaCard.getByRole("button", { name: "Yes" }).click();
    expect(await fromAlpha).toMatchObject({ code: 0, stdout: "yes\n" });
    const [question] = await pending(beta);
    expect((await beta.call("POST", `/v1/interactions/${question?.id}/cancel`)).status).toBe(200);
    await fromBeta;
    expect(problems).toEqual([]);
  });

  it("the phone's Add a machine makes the join code: beta joins again with it, and its questions come back", {
    timeout: 4 * CLI_TIMEOUT_MS,
  }, async () => {
    await page.getByRole("button", { name: "Add a machine" }).click();
    const command = page.locator(".join-command");
    await visible(command);
    const [notifyWord, relayWord, joinWord, url, code] = ((await command.textContent()) ?? "").trim().split(/\s+/);
    expect([notifyWord, relayWord, joinWord, url]).toEqual(["notify", "relay", "join", relayUrl]);
    expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    // NOTIFY_SHOTS_DIR=<dir>: the phone with its join command (390x844).
    const shots = process.env.NOTIFY_SHOTS_DIR;
    if (shots !== undefined) {
      await command.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shots, "phone-add-machine.png") });
    }

    const joined = await notify(beta, ["relay", "join", url as string, code as string, "--machine", "beta"]);
    expect(joined.code, joined.stderr).toBe(0);
    const fromBeta = ask(beta, "Beta is back?", "codex", [
      ["yes", "Yes"],
      ["no", "No"],
    ]);
    const betaCard = cardOf(page, "Beta is back?");
    await visible(betaCard.getByRole("button", { name: "Yes" }));
    expect(await betaCard.locator(".meta .machine").textContent()).toBe("on beta");
    await betaCard.getByRole("button", { name: "Yes" }).click();
    expect(await fromBeta).toMatchObject({ code: 0, stdout: "yes\n" });
    expect(problems).toEqual([]);
  });
});
