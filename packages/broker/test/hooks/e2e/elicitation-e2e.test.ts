// Issue 36, item 4, "Must show": a test MCP server (official SDK, fixtures/elicit-server.mjs) elicits a form with each
// field type through the real Claude Code 2.1.330 (`-p`, the http hooks `notify hooks install` writes, the loopback
// model mock calling the server's tool). Notify asks the form; the server receives the typed content on accept, and
// decline and cancel as such; an answer outside the schema sent with `notify answer` is refused with the field's
// words and the question stays open (docs/hooks.md, "MCP elicitation"). Then the phone: the same form as one card in
// Chromium, through a real relay in process; an answer outside the schema is refused at its field and nothing leaves
// the phone; the form filled in on the phone reaches the server typed. Every field type of the card is proven in
// packages/phone/test/elicitation.e2e.test.ts with a crafted payload.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { brokerApi, type Json, type ModelMock, type Reply, startModelMock, type Turn, tempDir } from "@notify/test-kit";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  eventually,
  FINAL_TEXT,
  mockModelEnv,
  startAgent,
} from "../../real-agents.js";
import { chromiumAvailable, useBrowser } from "../../ui/browser.js";

const run = agentTest("elicitation e2e", { claude: true });
const skipped = run !== it;

/** Every wait across processes: a loaded machine meets it. */
const WAIT_MS = 90_000;
const SERVER = fileURLToPath(new URL("./fixtures/elicit-server.mjs", import.meta.url));
const TOOL = "mcp__signup__signup";
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");

let cli: CliBroker;
let mock: ModelMock;
let home: string;
let work: string;
let deadProxy: string;
let out: string;
let mcpConfig: string;

/** The model calls the server's tool once, then ends the turn. */
const scripted = (turn: Turn): Reply => {
  if (turn.wire !== "messages" || !turn.stream) return { text: "OK" };
  return turn.toolResults.length === 0 ? { tool: TOOL, input: {} } : { text: FINAL_TEXT };
};

beforeAll(async () => {
  if (skipped) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-elicitation-e2e-", "project"));
  mock = await startModelMock({ reply: scripted, models: [] });
  const installed = await runCli(["hooks", "install", "claude-code", ...cli.target], cliEnv({ HOME: home }));
  expect(installed.code, installed.stderr).toBe(0);
  out = join(work, "elicited.jsonl");
  mcpConfig = join(work, "mcp.json");
  // The server runs with this checkout's Node and finds the SDK from the fixture's own node_modules chain.
  writeFileSync(
    mcpConfig,
    JSON.stringify({
      mcpServers: { signup: { command: process.execPath, args: [SERVER], env: { ELICIT_OUT: out } } },
    }),
  );
});

afterAll(async () => {
  if (skipped) return;
  await mock?.close();
  await cli?.close();
});

/** Claude Code in `-p` with the test server; its model calls `signup` once. */
const claude = () =>
  startAgent(
    CLAUDE,
    ["-p", "sign me up", "--mcp-config", mcpConfig, "--allowedTools", TOOL],
    work,
    agentEnv(home, deadProxy, mockModelEnv(mock)),
  );

/** What the server received, one entry per elicitation. */
const received = (): Json[] =>
  existsSync(out)
    ? readFileSync(out, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Json)
    : [];

/** The form's open questions once all are there: by field name, the decision under `decision`. */
async function openForm(): Promise<Map<string, Json>> {
  return eventually(
    "the form's eight questions",
    async () => {
      const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=claude-code");
      const form = new Map<string, Json>();
      for (const question of body) {
        const context = (await cli.api<Json>("GET", `/ui/api/items/${question.id}/context`)).body;
        if (context.kind === "form") form.set((context.field as string | undefined) ?? "decision", question);
      }
      return form.size === 8 ? form : undefined;
    },
    WAIT_MS,
  );
}

const answer = (question: Json | undefined, ...how: ["--choice" | "--text", string]) =>
  runCli(["answer", question?.id as string, ...how, ...cli.target]);

describe("MCP elicitation through the real Claude Code (issue 36)", () => {
  run(
    "accept: an answer outside the schema is refused with its words; the server receives the typed content",
    async () => {
      const before = received().length;
      const started = claude();
      const form = await openForm();
      // The decision question names the server and its message.
      expect(form.get("decision")?.prompt).toContain("Sign up for the newsletter");

      const refused = await answer(form.get("age"), "--text", "17");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("Age must be at least 18");
      expect((await cli.api<Json>("GET", `/v1/interactions/${form.get("age")?.id}`)).body.status).toBe("pending");

      const answers: [string, ["--choice" | "--text", string]][] = [
        ["name", ["--text", "Ada Lovelace"]],
        ["email", ["--text", "ada@example.com"]],
        ["age", ["--text", "36"]],
        ["subscribe", ["--choice", "yes"]],
        ["color", ["--choice", "option_2"]],
        ["size", ["--choice", "option_1"]],
        ["decision", ["--choice", "accept"]],
      ];
      for (const [field, how] of answers) {
        const result = await answer(form.get(field), ...how);
        expect(result.code, `${field}: ${result.stderr}`).toBe(0);
      }
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(received().slice(before)).toEqual([
        {
          action: "accept",
          content: {
            name: "Ada Lovelace",
            email: "ada@example.com",
            age: 36,
            ratio: 0.5,
            subscribe: true,
            color: "green",
            size: "s",
          },
        },
      ]);
      // The model read the server's answer.
      const last = mock.turns().at(-1) as Turn;
      expect(JSON.stringify(last.toolResults)).toContain("elicitation: accept");
    },
    150_000,
  );

  for (const action of ["decline", "cancel"] as const) {
    run(
      `${action} reaches the server as such`,
      async () => {
        const before = received().length;
        const started = claude();
        const form = await openForm();
        expect((await answer(form.get("decision"), "--choice", action)).code).toBe(0);
        const result = await started.done;
        expect(result.code, result.output).toBe(0);
        // Claude Code 2.1.330 hands a cancel to the server with an empty `content`; a decline without one.
        expect(received().slice(before)).toEqual([action === "cancel" ? { action, content: {} } : { action }]);
        // The fields were withdrawn: nothing of the form is left open.
        const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=claude-code");
        expect(body).toEqual([]);
      },
      150_000,
    );
  }
});

describe.runIf(!skipped && chromiumAvailable())("the same form answered on the phone (issue 36)", () => {
  const browser = useBrowser();
  let relay: RelayHarness;
  let relayUrl = "";
  let phone: Page;
  const phoneProblems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("elicitation-e2e-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const installation = await relay.enroll("laptop");
    // From here on, the broker sends every question to the phone too.
    const ui = brokerApi(cli.broker.url, cli.token).ui;
    const provider = await ui("POST", "/outbound/providers", {
      kind: "relay",
      name: "phone",
      enabled: true,
      settings: { url: relayUrl, installationId: installation.installation_id },
      secrets: { installationToken: installation.token },
    });
    expect(provider.status).toBe(201);
    const route = { name: "phone", provider: "phone", enabled: true };
    expect((await ui("POST", "/outbound/routes", route)).status).toBe(201);
    const context = await browser().newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    phone = await context.newPage();
    phone.on("pageerror", (error) => phoneProblems.push(`pageerror: ${error.message}`));
    await phone.goto((await relay.pairCode(installation)).link);
    await phone.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });
  }, 180_000);

  afterAll(async () => {
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  run(
    "the card refuses an answer outside the schema at its field; filled in, the server receives the typed content",
    async () => {
      const before = received().length;
      const started = claude();
      const form = await openForm();
      const open = phone.getByRole("article", { name: "Form from signup", exact: true });
      await open.waitFor({ state: "visible", timeout: WAIT_MS });
      const card = phone.locator(`article[data-form-id="${await open.getAttribute("data-form-id")}"]`);
      // Every field's envelope has reached the phone.
      await expect
        .poll(() => card.locator(".form-field-state").allTextContents(), { timeout: WAIT_MS })
        .not.toContain("Not on this phone yet");
      expect(await card.locator(".prompt").textContent()).toBe("Sign up for the newsletter");

      const age = card.getByLabel("Age", { exact: true });
      await card.getByLabel("Name", { exact: true }).fill("Ada Lovelace");
      await card.getByLabel("Email", { exact: true }).fill("ada@example.com");
      await age.fill("17");
      const color = card.getByRole("group", { name: "Color", exact: true });
      await color.getByRole("radio", { name: "Green" }).check();
      await card.getByRole("button", { name: "Accept" }).click();
      // Refused at the field, in the field's words; nothing left the phone: every question is still open.
      await expect.poll(() => age.getAttribute("aria-invalid"), { timeout: WAIT_MS }).toBe("true");
      const ageField = card.locator(".form-field", { has: phone.getByText("Age", { exact: true }) });
      expect(await ageField.locator(".field-error").textContent()).toBe("Age must be at least 18");
      for (const [field, question] of form) {
        expect((await cli.api<Json>("GET", `/v1/interactions/${question.id}`)).body.status, field).toBe("pending");
      }

      await age.fill("36");
      await card.getByLabel("Ratio", { exact: true }).fill("0.25");
      await card.getByRole("group", { name: "Subscribe", exact: true }).getByRole("radio", { name: "Yes" }).check();
      await card.getByRole("group", { name: "Size", exact: true }).getByRole("radio", { name: "Large" }).check();
      await card.getByRole("button", { name: "Accept" }).click();

      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(received().slice(before)).toEqual([
        {
          action: "accept",
          content: {
            name: "Ada Lovelace",
            email: "ada@example.com",
            age: 36,
            ratio: 0.25,
            subscribe: true,
            color: "green",
            size: "l",
          },
        },
      ]);
      // Every answer came through the relay, the decision included.
      for (const [field, question] of form) {
        expect((await cli.api<Json>("GET", `/v1/interactions/${question.id}`)).body, field).toMatchObject({
          status: "answered",
          response: { source: "relay" },
        });
      }
      await expect.poll(() => card.locator(".state").textContent(), { timeout: WAIT_MS }).toBe("Sent: Accept");
      expect(phoneProblems).toEqual([]);
    },
    240_000,
  );
});
