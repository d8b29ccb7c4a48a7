// Issue 36, item 4: an MCP form on the phone, in Chromium against the real relay (in-process, loopback), a real
// broker and the real Elicitation hook (`notify hook claude-code Elicitation`, as Claude Code runs it). The form's
// questions (one per field, then the decision) come in envelopes of their own and show as ONE card: the server, its
// message, every field with an input suited to its type, defaults filled in. Accept checks each field on the phone
// first (the error at the field, aria-invalid, focus on the first bad one), then sends each filled field's answer
// through the relay, then the decision: the hook prints the typed content. Decline and Cancel send the decision only;
// a URL request shows its URL as text. A field card that comes before its form's decision is held back a moment,
// and one whose form never comes shows as its own card (docs/hooks.md, "MCP elicitation").
// NOTIFY_SCREENSHOTS=1 writes docs/screenshots/elicitation-phone.png, -dark.png and -error.png (390 wide, the card).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { type Json, tempDir } from "@notify/test-kit";
import { CHROMIUM_ARGS } from "@notify/test-kit/chromium";
import { addRelayProvider, type LiveBroker, liveBroker } from "@notify/test-kit/live-broker";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
const CLI = join(ROOT, "packages/broker/dist/cli/main.js");
const SCREENSHOTS = process.env.NOTIFY_SCREENSHOTS === "1" ? join(ROOT, "docs/screenshots") : tempDir("phone-shots-");
/** A wait across the hook, the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;

const FORM_OPEN = /waiting for the form (int_\S+) \((\d+) fields\)/;

/** 14 countries: more than the 12 a choice question takes, so a list. */
const COUNTRIES = [
  ["at", "Austria"],
  ["be", "Belgium"],
  ["ch", "Switzerland"],
  ["de", "Germany"],
  ["dk", "Denmark"],
  ["es", "Spain"],
  ["fi", "Finland"],
  ["fr", "France"],
  ["ie", "Ireland"],
  ["it", "Italy"],
  ["nl", "Netherlands"],
  ["no", "Norway"],
  ["pt", "Portugal"],
  ["se", "Sweden"],
];

/** Every field type MCP elicitation has, as a server writes its requested schema. */
const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "As on your <b>badge</b>", minLength: 2, maxLength: 40 },
    email: { type: "string", title: "Email", format: "email" },
    website: { type: "string", title: "Website", format: "uri" },
    birthday: { type: "string", title: "Birthday", format: "date" },
    age: { type: "integer", title: "Age", minimum: 18, maximum: 120 },
    ratio: {
      type: "number",
      title: "Ratio",
      description: "Share of the updates you want",
      minimum: 0,
      maximum: 1,
      default: 0.5,
    },
    subscribe: { type: "boolean", title: "Subscribe", default: false },
    color: { type: "string", title: "Color", enum: ["red", "green"], enumNames: ["Red", "Green"] },
    country: {
      type: "string",
      title: "Country",
      oneOf: COUNTRIES.map(([value, title]) => ({ const: value, title })),
    },
  },
  required: ["name", "email", "age", "color"],
};

const FIELDS = Object.keys(SCHEMA.properties);

function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  console.warn(`\n*** SKIPPING phone browser tests: ${CHROMIUM} not found (apt-get install -y chromium) ***\n`);
  return false;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/** axe-core's serious and critical violations on the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<AxeResults> } }).axe;
    return axe.run(document);
  });
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((n) => n.target.join(" ")).join(", ")})`,
    );
}

/** The hook as Claude Code runs it: the JSON on stdin; resolves with its stdout once its questions are open. */
interface Hook {
  child: ChildProcess;
  decisionId: string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** The element with the keyboard's focus: a radio as "group: option", else its label's or its own text. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const element = document.activeElement;
    const text = (node: { textContent: string | null } | null | undefined) => node?.textContent ?? "";
    if (element.type === "radio") {
      return `${text(element.closest("fieldset").querySelector("legend .form-label"))}: ${text(element.closest("label"))}`;
    }
    return element.labels?.[0] ? text(element.labels[0].querySelector("bdi")) : text(element);
  });

const isFocused = (locator: Locator): Promise<boolean> =>
  locator.evaluate((element) => element === document.activeElement);

/** A field's error as a screen reader reaches it: aria-invalid, and the text its aria-describedby names. */
const errorOf = (locator: Locator): Promise<{ invalid: string | null; described: string }> =>
  locator.evaluate((element) => ({
    invalid: element.getAttribute("aria-invalid"),
    described: (element.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .map((id: string) => document.getElementById(id))
      .filter((node: { classList: { contains(name: string): boolean } } | null) =>
        node?.classList.contains("field-error"),
      )
      .map((node: { textContent: string }) => node.textContent)
      .join(" | "),
  }));

describe.runIf(chromiumAvailable())("an MCP form on the phone (issue 36, item 4)", () => {
  let browser: Browser;
  let page: Page;
  let relay: RelayHarness;
  let relayUrl = "";
  let live: LiveBroker;
  const hooks: ChildProcess[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("elicitation-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const installation = await relay.enroll("laptop");
    live = await liveBroker(tempDir("elicitation-broker-"));
    await addRelayProvider(live, relayUrl, installation);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    await page.goto((await relay.pairCode(installation)).link);
    await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
  }, 90_000);

  afterAll(async () => {
    for (const child of hooks) if (child.exitCode === null) child.kill();
    await browser?.close();
    await live?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  /** Runs the real hook for one elicitation; resolves once its questions are open. */
  async function openForm(session: string, extra: Json = { mode: "form", requested_schema: SCHEMA }): Promise<Hook> {
    const child = spawn(
      process.execPath,
      [CLI, "hook", "claude-code", "Elicitation", "--port", String(live.broker.port), "--data-dir", live.dataDir],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    hooks.push(child);
    child.stdin?.end(
      JSON.stringify({
        session_id: session,
        transcript_path: "/nonexistent/transcript.jsonl",
        cwd: "/tmp/signup-app",
        hook_event_name: "Elicitation",
        mcp_server_name: "signup",
        message: "Sign up for the newsletter",
        ...extra,
      }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const opened = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the hook opened no form: ${stderr}`)), E2E_WAIT_MS);
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const match = FORM_OPEN.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] as string);
        }
      });
    });
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.once("close", (code) => resolve({ code, stdout, stderr })),
    );
    return { child, decisionId: await opened, done };
  }

  /** The form's questions at the broker, by field name ("decision" for the decision). */
  async function questionsOf(session: string): Promise<Map<string, Json>> {
    const { body } = await live.call("GET", `/v1/interactions?session=${session}&limit=50`);
    const byField = new Map<string, Json>();
    for (const question of body as unknown as Json[]) {
      const context = (await live.call("GET", `/ui/api/items/${question.id}/context`)).body;
      byField.set((context.field as string | undefined) ?? "decision", question);
    }
    return byField;
  }

  /** The open form card named `name`, once every field's envelope has reached the phone (`whole`). */
  async function formCard(name: string, whole = true): Promise<Locator> {
    const open = page.getByRole("article", { name, exact: true }).and(page.locator(":not(.card-closed)"));
    await open.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    // The same card once it is answered (and closed).
    const card = page.locator(`article[data-form-id="${await open.getAttribute("data-form-id")}"]`);
    if (whole) {
      await expect
        .poll(() => card.locator(".form-field-state").allTextContents(), { timeout: E2E_WAIT_MS })
        .not.toContain("Not on this phone yet");
    }
    return card;
  }

  it("one card with an input for each field type; the phone's check, then accept sends the typed content", async () => {
    const hook = await openForm("s-phone-form-accept");
    const card = await formCard("Form from signup");
    // One card: the field questions have none of their own.
    expect(await page.locator("article").count()).toBe(1);
    expect(await card.locator(".form-from").textContent()).toBe("The MCP server signup asks you to fill in a form");
    expect(await card.locator(".prompt").textContent()).toBe("Sign up for the newsletter");
    // The server's words are inert: its markup is text.
    expect(await card.locator(".form-help").first().textContent()).toBe(
      "As on your <b>badge</b> (text from 2 to 40 characters)",
    );
    expect(await card.locator(".form-field b").count()).toBe(0);
    expect(await card.locator(".form-head").allTextContents()).toEqual([
      "Name required",
      "Email required",
      "Website",
      "Birthday",
      "Age required",
      "Ratio",
      "Subscribe",
      "Color required",
      "Country",
    ]);

    // An input for each type, with the field's bounds; defaults filled in.
    const name = card.getByLabel("Name", { exact: true });
    const attributes = (locator: Locator, names: string[]) =>
      locator.evaluate(
        (element, wanted: string[]) => Object.fromEntries(wanted.map((key) => [key, element.getAttribute(key)])),
        names,
      );
    expect(await attributes(name, ["type", "minlength", "maxlength", "required"])).toEqual({
      type: "text",
      minlength: "2",
      maxlength: "40",
      required: "",
    });
    expect(await card.getByLabel("Email", { exact: true }).getAttribute("type")).toBe("email");
    expect(await card.getByLabel("Website", { exact: true }).getAttribute("type")).toBe("url");
    expect(await card.getByLabel("Birthday", { exact: true }).getAttribute("type")).toBe("date");
    const age = card.getByLabel("Age", { exact: true });
    expect(await attributes(age, ["type", "min", "max", "step"])).toEqual({
      type: "number",
      min: "18",
      max: "120",
      step: "1",
    });
    const ratio = card.getByLabel("Ratio", { exact: true });
    expect(await attributes(ratio, ["type", "min", "max", "step"])).toEqual({
      type: "number",
      min: "0",
      max: "1",
      step: "any",
    });
    expect(await ratio.inputValue()).toBe("0.5");
    const subscribe = card.getByRole("group", { name: "Subscribe", exact: true });
    expect(await subscribe.getByRole("radio", { name: "No" }).isChecked()).toBe(true);
    expect(await subscribe.getByRole("radio", { name: "Yes" }).isChecked()).toBe(false);
    const color = card.getByRole("group", { name: "Color", exact: true });
    expect(await color.getByRole("radio").count()).toBe(2);
    const country = card.getByLabel("Country", { exact: true });
    expect(await country.evaluate((element) => element.tagName)).toBe("SELECT");
    expect(await country.locator("option").allTextContents()).toEqual([
      "Choose…",
      ...COUNTRIES.map(([, label]) => label),
    ]);
    expect(await card.getByRole("button").allTextContents()).toEqual(["Accept", "Decline", "Cancel"]);
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    expect(await axeViolations(page)).toEqual([]);

    // The keyboard reaches every field, then the three answers, in order.
    await page.evaluate(() => document.activeElement?.blur());
    const order: string[] = [];
    for (let step = 0; step < 40 && order.at(-1) !== "Cancel"; step++) {
      await page.keyboard.press("Tab");
      const label = await focused(page);
      // A date input's day, month and year are a Tab each: one entry.
      if ((order.length > 0 || label === "Name") && order.at(-1) !== label) order.push(label);
    }
    expect(order).toEqual([
      "Name",
      "Email",
      "Website",
      "Birthday",
      "Age",
      "Ratio",
      "Subscribe: No",
      "Color: Red",
      "Country",
      "Accept",
      "Decline",
      "Cancel",
    ]);

    // The phone's own check: nothing leaves it; each error at its field; the focus on the first bad one.
    const byField = await questionsOf("s-phone-form-accept");
    await card.getByLabel("Email", { exact: true }).fill("not-an-address");
    await age.fill("17");
    await card.getByRole("button", { name: "Accept" }).click();
    expect(await errorOf(name)).toEqual({ invalid: "true", described: "Name is required" });
    expect(await errorOf(card.getByLabel("Email", { exact: true }))).toEqual({
      invalid: "true",
      described: "Email must be an email address",
    });
    expect(await errorOf(age)).toEqual({ invalid: "true", described: "Age must be at least 18" });
    expect(await errorOf(color.getByRole("radio", { name: "Red" }))).toEqual({
      invalid: "true",
      described: "Color is required",
    });
    expect(await errorOf(ratio)).toEqual({ invalid: null, described: "" });
    expect(await isFocused(name)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
    await page.evaluate(() => document.activeElement?.blur());
    await card.screenshot({ path: join(SCREENSHOTS, "elicitation-phone-error.png") });
    for (const field of FIELDS) {
      expect((await live.call("GET", `/v1/interactions/${byField.get(field)?.id}`)).body.status, field).toBe("pending");
    }

    // Filled as a person would: by keyboard for the name, taps for the rest.
    await name.focus();
    await page.keyboard.type("Ada Lovelace");
    await card.getByLabel("Email", { exact: true }).fill("ada@example.com");
    await card.getByLabel("Birthday", { exact: true }).fill("1815-12-10");
    await age.fill("36");
    await ratio.fill("0.25");
    await subscribe.getByRole("radio", { name: "Yes" }).check();
    await color.getByRole("radio", { name: "Green" }).check();
    await country.selectOption({ label: "Netherlands" });
    await page.evaluate(() => document.activeElement?.blur());
    await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
    await card.screenshot({ path: join(SCREENSHOTS, "elicitation-phone.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await axeViolations(page)).toEqual([]);
    await card.screenshot({ path: join(SCREENSHOTS, "elicitation-phone-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });

    await card.getByRole("button", { name: "Accept" }).click();
    const { stdout, code } = await hook.done;
    expect(code).toBe(0);
    // Website was left empty and has no default: not sent, so not in the content.
    expect(JSON.parse(stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "Elicitation",
        action: "accept",
        content: {
          name: "Ada Lovelace",
          email: "ada@example.com",
          birthday: "1815-12-10",
          age: 36,
          ratio: 0.25,
          subscribe: true,
          color: "green",
          country: "nl",
        },
      },
    });
    // Every answer came through the relay, the decision included.
    for (const field of [...FIELDS.filter((entry) => entry !== "website"), "decision"]) {
      const question = (await live.call("GET", `/v1/interactions/${byField.get(field)?.id}`)).body;
      expect(question, field).toMatchObject({ status: "answered", response: { source: "relay" } });
    }
    expect((await live.call("GET", `/v1/interactions/${byField.get("website")?.id}`)).body.response).toBeUndefined();
    await expect.poll(() => card.locator(".state").textContent(), { timeout: E2E_WAIT_MS }).toBe("Sent: Accept");
    expect(await card.locator(".form-field-state").allTextContents()).toEqual(
      expect.arrayContaining(["Sent: Ada Lovelace", "Sent: 36", "Sent: Yes", "Sent: Green", "Sent: Netherlands"]),
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it("decline sends the decision only, a field filled in included", async () => {
    const hook = await openForm("s-phone-form-decline");
    const card = await formCard("Form from signup");
    await card.getByLabel("Name", { exact: true }).fill("Bo");
    await card.getByRole("button", { name: "Decline" }).click();
    const { stdout } = await hook.done;
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "Elicitation", action: "decline" } });
    const byField = await questionsOf("s-phone-form-decline");
    expect(byField.get("decision")).toMatchObject({ status: "answered", response: { choice_id: "decline" } });
    for (const field of FIELDS) expect(byField.get(field)?.response, field).toBeUndefined();
    await expect.poll(() => card.locator(".state").textContent(), { timeout: E2E_WAIT_MS }).toBe("Sent: Decline");
    expect(problems).toEqual([]);
  }, 90_000);

  it("a URL request shows its URL as text, never a link; Cancel sends the decision only", async () => {
    const url = "https://auth.example.com/consent?client=signup&state=\u202Eabc";
    const hook = await openForm("s-phone-form-url", { mode: "url", url, elicitation_id: "el-1" });
    const card = page.getByRole("article", { name: "Page to open from signup", exact: true });
    await card.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await card.locator(".form-url-text").textContent()).toBe(
      "https://auth.example.com/consent?client=signup&state=<U+202E>abc",
    );
    expect(await card.locator("a").count()).toBe(0);
    expect(await card.getByRole("button").allTextContents()).toEqual(["Copy the URL", "Open it", "Decline", "Cancel"]);
    expect(await axeViolations(page)).toEqual([]);
    await card.getByRole("button", { name: "Cancel" }).click();
    const { stdout } = await hook.done;
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "Elicitation", action: "cancel" } });
    expect(problems).toEqual([]);
  }, 90_000);

  it("a field the relay refuses is said at the field, and the decision is not sent", async () => {
    const hook = await openForm("s-phone-form-refused", {
      mode: "form",
      requested_schema: {
        type: "object",
        properties: {
          age: { type: "integer", title: "Age", minimum: 18 },
          team: { type: "string", title: "Team" },
        },
        required: ["age"],
      },
    });
    const byField = await questionsOf("s-phone-form-refused");
    const card = await formCard("Form from signup");
    // The real relay answers 403 only for a foreign device or installation, which this phone cannot produce; the
    // status is injected on the Age answer's POST only (as phone.e2e.test.ts does for a single question).
    const posted: string[] = [];
    await page.route("**/v1/interaction-responses", async (route) => {
      const body = JSON.parse(route.request().postData() ?? "{}") as { interaction_id?: string };
      posted.push(body.interaction_id ?? "");
      if (body.interaction_id === byField.get("age")?.id) {
        await route.fulfill({ status: 403, contentType: "application/json", body: '{"error":{"code":"forbidden"}}' });
      } else await route.continue();
    });
    await card.getByLabel("Age", { exact: true }).fill("40");
    await card.getByLabel("Team", { exact: true }).fill("Platform");
    await card.getByRole("button", { name: "Accept" }).click();
    const age = card.locator(".form-field", { has: page.getByText("Age", { exact: true }) });
    await expect
      .poll(() => age.locator(".field-error").textContent(), { timeout: E2E_WAIT_MS })
      .toBe("The relay refused Age (403): the form was not sent");
    expect(await age.locator(".form-field-state").textContent()).toBe("Not allowed to answer this (403)");
    expect(await isFocused(age.locator(".form-head"))).toBe(true);
    // Team's answer went, the decision did not: the form is still open, and can be declined.
    expect(posted.sort()).toEqual([byField.get("age")?.id, byField.get("team")?.id].sort());
    expect((await live.call("GET", `/v1/interactions/${byField.get("decision")?.id}`)).body.status).toBe("pending");
    await page.unroute("**/v1/interaction-responses");
    await card.getByRole("button", { name: "Decline" }).click();
    const { stdout } = await hook.done;
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "Elicitation", action: "decline" } });
    // The browser's own line for the injected status, and nothing else.
    expect(problems.splice(0)).toEqual([
      "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
    ]);
  }, 90_000);

  it("a form's pushes show one notification that names the form, not one per field (DevTools protocol)", async () => {
    const pushContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      await pushContext.grantPermissions(["notifications"], { origin: relayUrl });
      const pushPage = await pushContext.newPage();
      // Paired through the broker (notify relay pair's route): the broker then reads the device list fresh.
      const pairing = await live.call("POST", "/ui/api/relay/pairings");
      expect(pairing.status).toBe(201);
      await pushPage.goto(pairing.body.link as string);
      await pushPage.getByText(/Paired as/).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
      await pushPage.evaluate(() => (navigator as unknown as BrowserNavigator).serviceWorker.ready.then(() => true));
      const stored = await pushPage.evaluate(
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
      // The app stops fetching (another page of the origin, outside its scope): only the pushes tell the phone.
      await pushPage.goto(`${relayUrl}/healthz`);
      const hook = await openForm("s-phone-form-push", {
        mode: "form",
        requested_schema: {
          type: "object",
          properties: { age: { type: "integer", title: "Age" }, team: { type: "string", title: "Team" } },
        },
      });
      // The form's three questions (and whatever else the route sends), sealed for this device.
      const query = stored.cursor ? `since=${encodeURIComponent(stored.cursor)}&wait=20` : "wait=20";
      let envelopeIds: string[] = [];
      await expect
        .poll(
          async () => {
            const feed = (await (
              await fetch(`${relayUrl}/v1/envelopes?${query}`, { headers: { authorization: `Bearer ${stored.token}` } })
            ).json()) as { envelopes: { envelope_id: string }[] };
            envelopeIds = feed.envelopes.map((envelope) => envelope.envelope_id);
            return envelopeIds.length;
          },
          { timeout: E2E_WAIT_MS },
        )
        .toBeGreaterThanOrEqual(3);

      const cdp = await pushContext.newCDPSession(pushPage);
      const registrationId = new Promise<string>((resolve) => {
        cdp.on(
          "ServiceWorker.workerRegistrationUpdated",
          (event: { registrations: { registrationId: string; scopeURL: string }[] }) => {
            const found = event.registrations.find((registration) => registration.scopeURL === `${relayUrl}/app/`);
            if (found) resolve(found.registrationId);
          },
        );
      });
      await cdp.send("ServiceWorker.enable");
      const shown = async () =>
        pushPage.evaluate(async () => {
          const registration = await (navigator as unknown as BrowserNavigator).serviceWorker.getRegistration("/app/");
          const notifications = (await registration?.getNotifications()) ?? [];
          return notifications.map((notification: { title: string; body: string; tag: string }) => ({
            title: notification.title,
            body: notification.body,
            tag: notification.tag.replace(/^form:.*/, "form:<id>"),
          }));
        });
      for (const envelopeId of envelopeIds) {
        await cdp.send("ServiceWorker.deliverPushMessage", {
          origin: relayUrl,
          registrationId: await registrationId,
          // Exactly what the relay pushes: nothing readable.
          data: JSON.stringify({ envelope_id: envelopeId, version: "1" }),
        });
      }
      // One notification for the form: each push's replaced the one before (a tag per field would leave three).
      const one = {
        title: "signup-app · claude-code",
        body: "signup (MCP): Sign up for the newsletter",
        tag: "form:<id>",
      };
      await expect.poll(shown, { timeout: E2E_WAIT_MS }).toEqual([one]);
      // The form ends at the broker.
      const decision = (await questionsOf("s-phone-form-push")).get("decision");
      await live.call("POST", `/v1/interactions/${decision?.id}/respond`, {
        response_id: "push-cancel",
        request_digest: decision?.request_digest,
        nonce: decision?.nonce,
        choice_id: "cancel",
      });
      expect(JSON.parse((await hook.done).stdout).hookSpecificOutput.action).toBe("cancel");
      expect(await shown()).toEqual([one]);
    } finally {
      await pushContext.close();
    }
  }, 90_000);

  /** One question of a form posted as the hook posts it: its context, then the event naming it. */
  async function askFormQuestion(form: string, field: string | undefined): Promise<string> {
    const fields = [
      { name: "age", title: "Age", type: "integer", required: true, minimum: 18, maximum: 120 },
      { name: "team", title: "Team", type: "string", required: false },
    ];
    const posted = await live.call("POST", "/v1/contexts", {
      kind: "form",
      form,
      server: "roster",
      mode: "form",
      message: "Join a team",
      fields,
      ...(field === undefined ? {} : { field }),
    });
    expect(posted.status).toBe(201);
    const created = await live.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: `${form}-${field ?? "decision"}`,
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "claude-code" },
      context: { project: "roster-app" },
      request: {
        key: `${form}-${field ?? "decision"}`,
        kind: "question",
        title: field === undefined ? "roster (MCP) asks Claude Code" : `roster asks Claude Code: field ${field}`,
        message: field === undefined ? "Join a team" : `${field} (for: Join a team)`,
        response:
          field === undefined
            ? {
                kind: "single_choice",
                choices: [
                  { id: "accept", label: "Accept" },
                  { id: "decline", label: "Decline" },
                  { id: "cancel", label: "Cancel" },
                ],
                expires_at: new Date(Date.now() + 600_000).toISOString(),
              }
            : { kind: "text", text_max_length: 2000, expires_at: new Date(Date.now() + 600_000).toISOString() },
      },
      extensions: { "x-notify-context": { id: posted.body.id } },
    });
    expect(created.status).toBe(201);
    return (created.body.interaction as Json).id as string;
  }

  it("a field that comes before its form waits for it; one whose form never comes is a card of its own", async () => {
    // The field first: held back ("arriving"), not a card; then the decision: one card with the field in it.
    const early = await askFormQuestion("form-early", "age");
    const arriving = page.getByRole("status").filter({ hasText: "A form from roster is arriving…" });
    await arriving.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    expect(await page.getByRole("article", { name: "Question from claude-code" }).count()).toBe(0);
    await askFormQuestion("form-early", undefined);
    const card = await formCard("Form from roster", false);
    await card.getByLabel("Age", { exact: true }).waitFor({ timeout: E2E_WAIT_MS });
    expect(await arriving.count()).toBe(0);
    expect(await card.getByLabel("Age", { exact: true }).getAttribute("type")).toBe("number");
    // Team's question never came: said at the field; it is optional, so Accept goes on without it.
    expect(await card.locator(".form-field-state").allTextContents()).toEqual(["Not on this phone yet"]);
    await card.getByLabel("Age", { exact: true }).fill("30");
    await card.getByRole("button", { name: "Accept" }).click();
    await expect
      .poll(async () => (await live.call("GET", `/v1/interactions/${early}`)).body, { timeout: E2E_WAIT_MS })
      .toMatchObject({ status: "answered", response: { text: "30", source: "relay" } });

    // A field whose form never shows its decision: after the wait, a card of its own, checked as the form would be.
    const lone = await askFormQuestion("form-lone", "age");
    const own = page.getByRole("article", { name: "Question from claude-code" });
    await own.waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    const box = own.getByRole("textbox", { name: "Your answer" });
    await box.fill("12");
    await own.getByRole("button", { name: "Send" }).click();
    expect(await errorOf(box)).toEqual({ invalid: "true", described: "Age must be at least 18" });
    expect((await live.call("GET", `/v1/interactions/${lone}`)).body.status).toBe("pending");
    await box.fill("44");
    await own.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(async () => (await live.call("GET", `/v1/interactions/${lone}`)).body, { timeout: E2E_WAIT_MS })
      .toMatchObject({ status: "answered", response: { text: "44", source: "relay" } });
    expect(problems).toEqual([]);
  }, 90_000);
});
