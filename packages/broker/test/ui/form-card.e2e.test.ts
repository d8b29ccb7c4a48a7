// Issue 36, item 4: an MCP form on the web page, in Chromium against a real broker and the real Elicitation hook
// (`notify hook claude-code Elicitation`, as Claude Code runs it). The form is one card (its decision question's)
// with every field and an input suited to its type, defaults filled in; the field questions are no cards of their
// own. Accept checks each field in the page first (the error at the field, aria-invalid, focus on the first bad
// one), then answers each filled field, then the decision; a field the broker refuses shows the broker's words at the
// field and the decision is not sent. A field answered elsewhere shows its answer, read-only; Decline and Cancel
// answer the decision only; a URL request shows its URL as text. Keyboard only, the whole form is reachable and
// submittable (docs/hooks.md, "MCP elicitation").
import type { Json } from "@notify/test-kit";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnHook } from "../hooks/hook-harness.js";
import {
  chromiumAvailable,
  pageAxeViolations,
  startUiBroker,
  type UiBroker,
  useBrowser,
  useSharedPage,
} from "./browser.js";

const FORM_OPEN = /waiting for the form (int_\S+) \((\d+) fields\)/;

/** 14 countries: more than the 12 a choice question takes, so a select. */
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
    ratio: { type: "number", title: "Ratio", minimum: 0, maximum: 1, default: 0.5 },
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

const MESSAGE = "Sign up for the <i>newsletter</i> \u202Eplease";

const run = chromiumAvailable();

// Each test runs the hook as a process and a page through a whole form: more than the default 30 s on a busy machine.
describe.runIf(run)("an MCP form on the web page (issue 36, item 4)", () => {
  const browser = useBrowser();
  // One page for the file: each test signs it in again and loads the inbox.
  const shared = useSharedPage(browser);
  let ui: UiBroker;
  let target: string[];

  beforeAll(async () => {
    ui = await startUiBroker();
    target = ["--port", String(ui.broker.port), "--data-dir", ui.dataDir];
  });

  afterAll(async () => {
    await ui?.close();
  });

  /** Runs the real hook for one elicitation; resolves once its questions are open. */
  async function openForm(session: string, extra: Json = { mode: "form", requested_schema: SCHEMA }) {
    const hook = spawnHook(["claude-code", "Elicitation", ...target], {
      session_id: session,
      transcript_path: "/nonexistent/transcript.jsonl",
      cwd: "/tmp",
      hook_event_name: "Elicitation",
      mcp_server_name: "signup",
      message: MESSAGE,
      ...extra,
    });
    const [, decisionId] = await hook.stderrMatching(FORM_OPEN, 30_000);
    const { body } = await ui.v1<Json[]>("GET", `/interactions?session=${session}&limit=50`);
    const byField = new Map<string, Json>();
    for (const question of body as unknown as Json[]) {
      const ui_ = (await ui.ui<Json>("GET", `/interactions/${question.id}`)).body;
      byField.set(((ui_.form as Json | undefined)?.field as string | undefined) ?? "decision", ui_);
    }
    expect(byField.get("decision")?.id).toBe(decisionId);
    return { hook, byField, decisionId: decisionId as string };
  }

  const status = async (question: Json | undefined) =>
    (await ui.v1<Json>("GET", `/interactions/${question?.id}`)).body.status;

  /** The focused element's id, else its text. */
  const focusedId = (page: Page): Promise<string> =>
    page.evaluate(() => document.activeElement?.id || (document.activeElement?.textContent ?? ""));

  /** Tab (at most `max` times) until the element with `id` (or, for a button, this text) has the focus. */
  async function tabTo(page: Page, id: string, max = 8): Promise<void> {
    for (let step = 0; step < max; step++) {
      await page.keyboard.press("Tab");
      if ((await focusedId(page)) === id) return;
    }
    throw new Error(`Tab did not reach ${id} (at ${await focusedId(page)})`);
  }

  it("one card with every field; checked in the page, then by the broker; accept sends the typed content", async () => {
    const { page, problems } = await shared.open(ui);
    await page.getByRole("heading", { name: "Inbox" }).waitFor();
    // Opened while the page is open: the stream carries the form's questions with their form facts.
    const { hook, byField, decisionId } = await openForm("s-web-form-accept");

    // The broker names each question's form and field; the decision has no field.
    const formId = (byField.get("decision")?.form as Json | undefined)?.id;
    expect(byField.get("decision")?.form).toEqual({ id: formId });
    expect(byField.get("age")?.form).toEqual({ id: formId, field: "age" });
    expect(byField.get("age")?.has_context).toBe(true);

    const card = page.locator(`article[data-item-id="${decisionId}"]`);
    await card.locator(".form-field").first().waitFor();
    // One card: the field questions and the notification halves are none of their own.
    await expect.poll(() => page.locator("article").count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator(".page-head").textContent()).toContain("1 open question");

    // The server's words are inert: markup as text, the bidi control as a token.
    expect(await card.locator("h2").textContent()).toBe("Sign up for the <i>newsletter</i> <U+202E>please");
    expect(await card.locator("h2 i, .form-field b").count()).toBe(0);
    expect(await card.locator(".form-from").textContent()).toBe("The MCP server signup asks");
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
    const field = (label: string) => card.getByLabel(label, { exact: true });
    expect(await card.locator(".form-help").first().textContent()).toBe(
      "As on your <b>badge</b> Text from 2 to 40 characters",
    );
    const attributes = (label: string, names: string[]) =>
      field(label).evaluate(
        (element, wanted) => Object.fromEntries(wanted.map((name) => [name, element.getAttribute(name)])),
        names,
      );
    expect(await attributes("Name", ["type", "minlength", "maxlength", "required"])).toEqual({
      type: "text",
      minlength: "2",
      maxlength: "40",
      required: "",
    });
    expect(await attributes("Email", ["type"])).toEqual({ type: "email" });
    expect(await attributes("Website", ["type", "required"])).toEqual({ type: "url", required: null });
    expect(await attributes("Birthday", ["type"])).toEqual({ type: "date" });
    expect(await attributes("Age", ["type", "min", "max", "step"])).toEqual({
      type: "number",
      min: "18",
      max: "120",
      step: "1",
    });
    expect(await attributes("Ratio", ["type", "min", "max", "step"])).toEqual({
      type: "number",
      min: "0",
      max: "1",
      step: "any",
    });
    // Defaults filled in.
    expect(await field("Ratio").inputValue()).toBe("0.5");
    const subscribe = card.getByRole("group", { name: "Subscribe" });
    expect(await subscribe.getByRole("radio", { name: "No" }).isChecked()).toBe(true);
    const color = card.getByRole("group", { name: /^Color/ });
    expect(await color.getByRole("radio").count()).toBe(2);
    expect(await color.getByRole("radio", { checked: true }).count()).toBe(0);
    expect(await field("Country").locator("option").allTextContents()).toEqual([
      "Choose…",
      ...COUNTRIES.map(([, title]) => title),
    ]);
    // The decision's three choices, Accept the form's submit button.
    expect(await card.locator(".form-decision button").allTextContents()).toEqual(["Accept", "Decline", "Cancel"]);
    expect(await card.getByRole("button", { name: "Accept" }).getAttribute("type")).toBe("submit");

    // The page's own check: a bad email, an age out of bounds, a required choice missing. Nothing is sent.
    await field("Name").fill("Ada");
    await field("Email").fill("not-an-address");
    await field("Age").fill("17");
    await card.getByRole("button", { name: "Accept" }).click();
    await card.locator(".field-error").first().waitFor();
    expect(await card.locator(".field-error").allTextContents()).toEqual([
      "Email must be an email address",
      "Age must be at least 18",
      "Color is required",
    ]);
    expect(await focusedId(page)).toBe(await field("Email").getAttribute("id"));
    expect(await field("Email").getAttribute("aria-invalid")).toBe("true");
    const described = ((await field("Email").getAttribute("aria-describedby")) ?? "").split(" ");
    expect(await page.locator(`[id="${described.at(-1)}"]`).textContent()).toBe("Email must be an email address");
    expect(await field("Name").getAttribute("aria-invalid")).toBeNull();
    expect(await color.getByRole("radio").first().getAttribute("aria-invalid")).toBe("true");
    expect(await pageAxeViolations(page)).toEqual([]);
    for (const name of ["name", "email", "age", "decision"])
      expect(await status(byField.get(name)), name).toBe("pending");

    // The broker's check: what reaches it for Name is "A" (rewritten on the way, as a surface with an older check
    // would send it). Its 400 shows at the field, in its words, and the decision is not sent.
    const nameId = byField.get("name")?.id as string;
    await page.route(`**/ui/api/interactions/${nameId}/respond`, async (route) => {
      const body = JSON.parse(route.request().postData() ?? "{}") as Json;
      await route.continue({ postData: JSON.stringify({ ...body, text: "A" }) });
    });
    await field("Email").fill("ada@example.com");
    await field("Age").fill("36");
    await color.getByRole("radio", { name: "Green" }).check();
    await field("Country").selectOption({ label: "Norway" });
    await card.getByRole("button", { name: "Accept" }).click();
    await expect
      .poll(() => card.locator(".field-error").allTextContents(), { timeout: 20_000 })
      .toEqual(["Name must be at least 2 characters"]);
    expect(await field("Name").getAttribute("aria-invalid")).toBe("true");
    expect(await focusedId(page)).toBe(await field("Name").getAttribute("id"));
    expect(await status(byField.get("name"))).toBe("pending");
    expect(await status(byField.get("decision"))).toBe("pending");
    // The fields the broker took are answered, and shown read-only.
    await expect.poll(() => status(byField.get("age")), { timeout: 10_000 }).toBe("answered");
    await expect.poll(() => field("Age").count(), { timeout: 10_000 }).toBe(0);
    expect(
      await card
        .locator(".form-field-done")
        .filter({ hasText: /^Age required/ })
        .textContent(),
    ).toContain("36 answered from this computer's web page");
    await page.unroute(`**/ui/api/interactions/${nameId}/respond`);

    await card.getByRole("button", { name: "Accept" }).click();
    const { stdout, code } = await hook.done;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "Elicitation",
        action: "accept",
        content: {
          name: "Ada",
          email: "ada@example.com",
          age: 36,
          ratio: 0.5,
          subscribe: false,
          color: "green",
          country: "no",
        },
      },
    });
    // The optional fields left empty were not answered.
    for (const name of ["website", "birthday"]) expect(await status(byField.get(name)), name).not.toBe("answered");
    await expect
      .poll(() => card.locator(".outcome").textContent(), { timeout: 10_000 })
      .toMatch(/^Answered “Accept” from this computer's web page at /);
    expect(await card.locator(".form-decision").count()).toBe(0);
    expect(await card.locator("input, select").count()).toBe(0);
    expect(await pageAxeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await pageAxeViolations(page)).toEqual([]);
    expect(problems.filter((problem) => !problem.includes("400"))).toEqual([]);
  }, 90_000);

  it("keyboard only: every field reached with Tab, choices with Space, sent with Enter", async () => {
    const { hook, byField, decisionId } = await openForm("s-web-form-keys");
    const { page, problems } = await shared.open(ui, { viewport: { width: 390, height: 844 } });
    const card = page.locator(`article[data-item-id="${decisionId}"]`);
    await card.locator(".form-field").first().waitFor();
    // At a phone's width nothing is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const id = (label: string) => card.getByLabel(label, { exact: true }).getAttribute("id") as Promise<string>;
    await card.getByRole("link", { name: "Question details" }).focus();

    await tabTo(page, await id("Name"), 1);
    await page.keyboard.type("Bo");
    await tabTo(page, await id("Email"), 1);
    await page.keyboard.type("bo@example.com");
    await tabTo(page, await id("Website"), 1);
    // A date input's parts are stops of their own.
    await tabTo(page, await id("Age"));
    await page.keyboard.type("40");
    await tabTo(page, await id("Ratio"), 1);
    // Subscribe: its checked radio ("No"); Space keeps it.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe("no");
    // Color: nothing chosen, so its first radio; Space chooses it.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe("option_1");
    await page.keyboard.press("Space");
    await tabTo(page, await id("Country"), 1);
    await page.keyboard.press("ArrowDown");
    expect(await card.getByLabel("Country", { exact: true }).inputValue()).toBe("at");
    await tabTo(page, "Accept", 1);
    await page.keyboard.press("Enter");

    const { stdout } = await hook.done;
    expect(JSON.parse(stdout).hookSpecificOutput).toEqual({
      hookEventName: "Elicitation",
      action: "accept",
      content: {
        name: "Bo",
        email: "bo@example.com",
        age: 40,
        ratio: 0.5,
        subscribe: false,
        color: "red",
        country: "at",
      },
    });
    expect(await status(byField.get("decision"))).toBe("answered");
    expect(problems).toEqual([]);
  }, 60_000);

  it("a field answered elsewhere shows its answer; Decline answers the decision only", async () => {
    const { hook, byField, decisionId } = await openForm("s-web-form-decline");
    const name = byField.get("name") as Json;
    const answered = await ui.v1<Json>("POST", `/interactions/${name.id}/respond`, {
      response_id: "cli-name",
      request_digest: name.request_digest,
      nonce: name.nonce,
      text: "Grace",
      source: "cli",
    });
    expect(answered.status).toBe(200);
    const { page, problems } = await shared.open(ui);
    const card = page.locator(`article[data-item-id="${decisionId}"]`);
    await card.locator(".form-field").first().waitFor();
    expect(await card.getByLabel("Name", { exact: true }).count()).toBe(0);
    expect(await card.locator(".form-field").first().textContent()).toMatch(
      /^Name requiredGrace answered from the command line at /,
    );
    await card.getByRole("button", { name: "Decline" }).click();
    const { stdout } = await hook.done;
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "Elicitation", action: "decline" } });
    // Only the decision was answered from the page.
    expect(await status(byField.get("age"))).not.toBe("answered");
    expect((await ui.v1<Json>("GET", `/interactions/${decisionId}`)).body.response).toMatchObject({
      choice_id: "decline",
    });
    await expect
      .poll(() => card.locator(".outcome").textContent(), { timeout: 10_000 })
      .toMatch(/^Answered “Decline” from this computer's web page/);
    expect(problems).toEqual([]);
  }, 60_000);

  it("a URL request shows its URL as text and the three choices; Cancel arrives as such", async () => {
    const url = "https://auth.example.net/connect?state=<script>x</script>";
    const { hook, decisionId } = await openForm("s-web-form-url", {
      mode: "url",
      url,
      elicitation_id: "el-123",
    });
    const { page, problems } = await shared.open(ui, { viewport: { width: 390, height: 844 } });
    const card = page.locator(`article[data-item-id="${decisionId}"]`);
    await card.locator(".form-url").waitFor();
    expect(await card.locator(".form-url-text").textContent()).toBe(url);
    expect(await card.locator("a[href^='https://auth'], script").count()).toBe(0);
    expect(await card.locator(".form-field").count()).toBe(0);
    expect(await card.locator(".form-decision button").allTextContents()).toEqual(["Open it", "Decline", "Cancel"]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await pageAxeViolations(page)).toEqual([]);
    await card.getByRole("button", { name: "Cancel" }).click();
    const { stdout } = await hook.done;
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "Elicitation", action: "cancel" } });
    expect(problems).toEqual([]);
  }, 60_000);
});
