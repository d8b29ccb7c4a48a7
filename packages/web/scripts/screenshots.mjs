// Screenshots of every page of the web UI at 1280x800 and 390x844, light and dark, into docs/screenshots/.
// Run after `npm install` (which builds the broker and the page): node packages/web/scripts/screenshots.mjs
// Names after it (e.g. `router-routing router-effort`) take only those pages.
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startBroker } from "../../broker/dist/broker.js";
import { buildApp, SqliteStore } from "../../relay/dist/index.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium.mjs";

const out = new URL("../../../docs/screenshots/", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "notify-shots-"));
// The agent connectors look in this HOME: Codex and Claude Code both installed, nothing of this machine's shown.
const home = join(dataDir, "home");
for (const dir of [".codex", ".claude"]) mkdirSync(join(home, dir), { recursive: true });
const broker = await startBroker({ dataDir, port: 0, env: { HOME: home } });
const token = broker.settings.authToken;
const call = async (method, path, body, ui = false) => {
  const response = await fetch(`${broker.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(ui ? { "x-notify-ui": "1" } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json().catch(() => undefined);
};

// A believable morning: a few agents, questions open and answered, notifications in every state.
await call("PUT", "/ui/api/types", [{ id: "deploy", label: "Deploy", enabled: true, defaultPriority: "high" }], true);
const done = await call("POST", "/v1/notifications", {
  title: "Build finished",
  message: "All 412 tests passed in 3m 12s.",
  type: "completed",
  agent: "codex",
  project: "shop-api",
});
await call("PATCH", `/v1/notifications/${done.id}`, { status: "resolved" });
await call("POST", "/v1/notifications", {
  title: "Lint warnings in checkout",
  message: "7 warnings (no errors) in src/checkout. Nothing blocks the merge.",
  type: "info",
  priority: "low",
  agent: "claude-code",
  project: "shop-web",
});
const answered = await call("POST", "/v1/interactions/request", {
  kind: "single_choice",
  prompt: "Which database should the migration run against?",
  choices: [
    { id: "dev", label: "Development", detail: "Local copy, safe to reset" },
    { id: "stg", label: "Staging" },
  ],
  agent: "claude-code",
  project: "shop-api",
});
await call("POST", `/v1/interactions/${answered.id}/respond`, {
  response_id: "shot-1",
  request_digest: answered.request_digest,
  nonce: answered.nonce,
  choice_id: "dev",
  source: "cli",
});
const failed = await call("POST", "/v1/notifications", {
  title: "Tests failed in payments",
  message: "3 failing tests in packages/payments: refund rounding, currency fallback, webhook retry.",
  type: "error",
  priority: "high",
  agent: "codex",
  project: "shop-api",
  cwd: "/home/dev/shop",
  metadata: { failing: ["refund rounding", "currency fallback", "webhook retry"], run: 4121 },
});
await call("POST", "/v1/interactions/request", {
  kind: "text",
  prompt: "Write a one-line summary for the release notes of v2.4.",
  text_max_length: 200,
  agent: "codex",
  project: "shop-web",
});
await call("POST", "/v1/interactions/request", {
  kind: "single_choice",
  prompt: "Deploy the release to which environment?",
  choices: [
    { id: "stg", label: "Staging", detail: "eu-west, safe to break" },
    { id: "prd", label: "Production", detail: "Needs a green staging run" },
    { id: "none", label: "Not now" },
  ],
  agent: "deploy-bot",
  project: "shop-web",
});
// The phone's provider and a route with attention routing before the permission question, so its detail page shows
// a hold on the timeline (a long delay: nothing leaves while the screenshots are taken).
await call(
  "POST",
  "/ui/api/outbound/providers",
  {
    kind: "ntfy",
    name: "phone",
    settings: { serverUrl: "https://ntfy.example.net", topic: "agents" },
    enabled: true,
  },
  true,
);
await call(
  "POST",
  "/ui/api/outbound/routes",
  { name: "Phone", provider: "phone", when: "away", delay_seconds: 1800, enabled: true },
  true,
);
const permission = await call("POST", "/v1/interactions/request", {
  kind: "permission",
  prompt: "Allow `npm publish --tag next` in shop-web?\nThis uploads version 2.4.0-rc.1 to the registry.",
  agent: "claude-code",
  project: "shop-web",
});
await call(
  "POST",
  "/ui/api/outbound/routes",
  { name: "urgent to phone", provider: "phone", minimumPriority: "high", enabled: true },
  true,
);
await call(
  "POST",
  "/ui/api/router/upstreams",
  {
    slug: "local-llm",
    label: "Local model server",
    wire: "chat_wire",
    base_url: "http://127.0.0.1:11434/v1",
    models: ["qwen3-coder", "llama4"],
  },
  true,
);
await call(
  "POST",
  "/ui/api/router/upstreams",
  {
    slug: "openrouter",
    label: "OpenRouter",
    wire: "chat_wire",
    base_url: "https://openrouter.ai/api/v1",
    models: ["anthropic/claude-sonnet-4-6", "openai/gpt-5.2", "qwen/qwen3-coder"],
    enabled: true,
  },
  true,
);
// A gateway's model list on loopback, for the Providers page's "Fetch models" shot.
const modelServer = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { "content-type": "application/json" });
  const ids = ["claude-sonnet-4-6", "claude-haiku-4-5", "gpt-5.4", "gpt-5.3-codex", "qwen3.6-plus", "kimi-k2.5"];
  response.end(JSON.stringify({ object: "list", data: [...ids, "glm-5", "gemini-3-flash"].map((id) => ({ id })) }));
});
await new Promise((resolve) => modelServer.listen(0, "127.0.0.1", resolve));
const modelServerUrl = `http://127.0.0.1:${modelServer.address().port}/v1`;
await call("POST", "/ui/api/router/routes", { name: "coder", kind: "alias", targets: ["local-llm/qwen3-coder"] }, true);
await call(
  "POST",
  "/ui/api/router/routes",
  { name: "smart", kind: "combo", targets: ["openrouter/anthropic/claude-sonnet-4-6", "openrouter/openai/gpt-5.2"] },
  true,
);
await call(
  "PUT",
  "/ui/api/router/settings",
  { default_route: "coder", switch_strategy: "sticky", native_fallback_route: "combo/smart" },
  true,
);
await call("PUT", "/ui/api/router/effort/families/gpt-xhigh", { levels: { low: "none" }, default: "medium" }, true);
await call(
  "PUT",
  "/ui/api/router/effort/models",
  { model: "openrouter/qwen/qwen3-coder", levels: { low: null } },
  true,
);
// Codex connected to the router (its config.toml is written into the temporary HOME above).
await call("PUT", "/ui/api/router/settings", { enabled: true }, true);
await call("POST", "/ui/api/router/agents/codex/connect", { model: "coder", effort: "high" }, true);
// An imported sound (the broker's own knock tone as a WAV file) chosen for two types, and one type silenced.
const { toneSamples, wavFile } = await import("../../broker/dist/presentation/sounds/tones.js");
await fetch(`${broker.url}/ui/api/sounds/files/doorbell.wav`, {
  method: "PUT",
  headers: { authorization: `Bearer ${token}`, "x-notify-ui": "1", "content-type": "audio/wav" },
  body: wavFile(toneSamples("knock", 80)),
});
await call("PUT", "/ui/api/sounds/types", { deploy: "doorbell", permission_required: "doorbell", info: "none" }, true);

// A real relay on loopback for the Relay page: enrolled, one phone paired (a throwaway X25519 key).
const enrollmentToken = "nre_screenshots-only-0123456789";
const relay = buildApp({
  store: new SqliteStore(join(dataDir, "relay.db")),
  enrollmentToken,
  publicUrl: "https://relay.example.net",
  appDir: false,
});
const relayUrl = (await relay.app.listen({ port: 0, host: "127.0.0.1" })).replace("localhost", "127.0.0.1");
await call("POST", "/ui/api/relay/enroll", { url: relayUrl, enrollmentToken }, true);
const { code } = await call("POST", "/ui/api/relay/pairings", undefined, true);
const jwk = generateKeyPairSync("x25519").publicKey.export({ format: "jwk" });
await fetch(`${relayUrl}/v1/pairings/claim`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ code, device_name: "Pixel 9", public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } }),
});
// The phone's route (made by the enrollment) with attention routing: issue 24's example (docs/routing.md).
const relayRoute = (await call("GET", "/ui/api/outbound/routes", undefined, true)).find(
  (route) => route.name === "relay",
);
await call(
  "PATCH",
  `/ui/api/outbound/routes/${relayRoute.id}`,
  { when: "away", delay_seconds: 120, quiet_hours: { start: "22:00", end: "07:00", allow_critical: true } },
  true,
);
await call(
  "POST",
  "/ui/api/outbound/routes",
  {
    name: "late builds",
    provider: "phone",
    typeId: "completed",
    enabled: true,
    delay_seconds: 600,
    quiet_hours: { start: "18:00", end: "09:00", days: ["mon", "tue", "wed", "thu", "fri"] },
  },
  true,
);

// A follow-up (issue 35): Claude Code finished a turn while the person was away; its last message as Markdown, and
// its turn (how long it took, the messages before) posted first as the Stop hook does.
const turn = await call("POST", "/v1/contexts", {
  kind: "turn",
  duration_ms: 252_000,
  messages: [
    { role: "user", text: "Refunds are off by a cent on split orders. Find out why and fix it." },
    { role: "assistant", text: "The share is rounded per line and again on the total; I'll round once, in cents." },
    { role: "user", text: "Also make sure `npm test` passes." },
  ],
});
const followUp = (
  await call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: "screenshot-follow-up",
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "claude-code" },
    context: { project: "shop-api" },
    request: {
      key: `claude-code:session:${"5e".repeat(16)}`,
      kind: "completion",
      title: "Claude Code finished in shop-api",
      message: [
        "Done. The refund rounding bug is fixed and `npm test` passes (412 tests).",
        "",
        "**What changed**",
        "",
        "- `src/refunds.ts`: amounts are rounded once, in cents, at the end",
        "- `src/currency.ts`: falls back to the order's currency",
        "- two new tests in `test/refunds.test.ts`",
        "",
        "```ts",
        "export function refundCents(order: Order, share: number): number {",
        "  return Math.round(order.totalCents * share);",
        "}",
        "```",
        "",
        "Shall I update the changelog and open the PR, or do you want to review the diff first?",
      ].join("\n"),
      response: { kind: "text", text_max_length: 2000, expires_at: new Date(Date.now() + 900_000).toISOString() },
    },
    extensions: { "x-notify-context": { id: turn.id } },
  })
).interaction;

// A permission question with its context (issue 36): the patch Codex wants to apply, posted first as the hook does.
const patch = await call("POST", "/v1/contexts", {
  kind: "diff",
  files: [
    {
      path: "src/refunds.ts",
      status: "modified",
      added: 4,
      removed: 3,
      diff: [
        "@@ -1,12 +1,13 @@",
        ' import type { Order } from "./orders.js";',
        '+import { toCents } from "./currency.js";',
        " ",
        " /** The refund for a share of an order, in cents. */",
        " export function refundCents(order: Order, share: number): number {",
        "-  const lines = order.lines.map((line) => Math.round(line.total * share * 100));",
        "-  const total = lines.reduce((sum, cents) => sum + cents, 0);",
        "-  return Math.round(total);",
        "+  // Round once, at the end: rounding each line first loses a cent on split orders.",
        "+  const exact = order.lines.reduce((sum, line) => sum + line.total * share, 0);",
        "+  return toCents(exact);",
        " }",
        " ",
        " export function refundAll(order: Order): number {",
        "   return refundCents(order, 1);",
        " }",
      ].join("\n"),
    },
    {
      path: "test/refunds.test.ts",
      status: "modified",
      added: 7,
      removed: 0,
      diff: [
        '@@ -18,4 +18,11 @@ describe("refundCents", () => {',
        '   it("refunds a whole order", () => {',
        "     expect(refundCents(order, 1)).toBe(4599);",
        "   });",
        "+",
        '+  it("rounds a split order once", () => {',
        "+    const split = orderOf([10.005, 20.005, 30.005]);",
        "+    expect(refundCents(split, 0.5)).toBe(3001);",
        "+  });",
        "+",
        '+  it("refunds nothing for a zero share", () => expect(refundCents(order, 0)).toBe(0));',
        " });",
      ].join("\n"),
    },
  ],
});
const diffQuestion = (
  await call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: "screenshot-diff",
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "codex" },
    context: { project: "shop-api" },
    request: {
      key: "screenshot-diff",
      kind: "permission",
      title: "Permission needed",
      message: "Codex wants to apply a patch to 2 files: src/refunds.ts, test/refunds.test.ts",
      response: {
        kind: "permission",
        choices: [
          { id: "allow", label: "Allow" },
          { id: "deny", label: "Deny" },
        ],
        expires_at: new Date(Date.now() + 600_000).toISOString(),
      },
    },
    extensions: { "x-notify-context": { id: patch.id } },
  })
).interaction;

// An MCP server's form (issue 36, item 4), asked as Claude Code's Elicitation hook asks it: one question per field
// and the decision, each with the whole form as its context (the hook's own elicitationOf and formQuestions). Its
// name was answered from the command line meanwhile.
const { elicitationOf, formQuestions } = await import("../../broker/dist/hooks/elicitation.js");
const elicitation = elicitationOf({
  mcp_server_name: "shop-deploy",
  message: "Schedule the production deploy of shop-web v2.4.0",
  mode: "form",
  requested_schema: {
    type: "object",
    properties: {
      owner: { type: "string", title: "On call", description: "Who answers pages during the rollout", minLength: 2 },
      email: { type: "string", title: "Contact email", format: "email" },
      date: { type: "string", title: "Deploy date", format: "date" },
      canary: { type: "integer", title: "Canary share (%)", minimum: 1, maximum: 50, default: 10 },
      region: {
        type: "string",
        title: "Region",
        oneOf: [
          { const: "eu-west", title: "EU West" },
          { const: "us-east", title: "US East" },
          { const: "ap-south", title: "Asia Pacific" },
        ],
      },
      migrate: { type: "boolean", title: "Run the database migration first", default: true },
    },
    required: ["owner", "email", "canary", "region"],
  },
});
const formSteps = formQuestions(elicitation, "screenshot-form", "Claude Code", " in shop-web");
let formDecision;
for (const [index, question] of formSteps.entries()) {
  const posted = await call("POST", "/v1/contexts", question.context);
  const created = await call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: `screenshot-form-${index}`,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "claude-code" },
    context: { project: "shop-web" },
    request: {
      key: `screenshot-form-${index}`,
      kind: "question",
      title: question.title,
      message: question.message,
      response: { ...question.response, expires_at: new Date(Date.now() + 600_000).toISOString() },
    },
    extensions: { "x-notify-context": { id: posted.id } },
  });
  if (question.field?.name === "owner") {
    await call("POST", `/v1/interactions/${created.interaction.id}/respond`, {
      response_id: "shot-form-owner",
      request_digest: created.interaction.request_digest,
      nonce: created.interaction.nonce,
      text: "Priya Raman",
      source: "cli",
    });
  }
  if (question.field === undefined) formDecision = created.interaction;
}
// The same for a URL request: the decision only, the URL as text.
const urlRequest = elicitationOf({
  mcp_server_name: "github",
  message: "Authorize Notify Demo to read your repositories",
  mode: "url",
  url: "https://github.example.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=3f9c2e",
  elicitation_id: "screenshot-url",
});
let urlDecision;
for (const [index, question] of formQuestions(urlRequest, "screenshot-url", "Claude Code", " in shop-web").entries()) {
  const posted = await call("POST", "/v1/contexts", question.context);
  const created = await call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: `screenshot-url-${index}`,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "claude-code" },
    context: { project: "shop-web" },
    request: {
      key: `screenshot-url-${index}`,
      kind: "question",
      title: question.title,
      message: question.message,
      response: { ...question.response, expires_at: new Date(Date.now() + 600_000).toISOString() },
    },
    extensions: { "x-notify-context": { id: posted.id } },
  });
  urlDecision = created.interaction;
}

// The sessions line at the top of the inbox (issue 37, item 1): what the hooks of a few agents would have said.
for (const [session, signal, project, message] of [
  ["shots-web", "asking", "shop-web", undefined],
  ["shots-api", "working", "shop-api", undefined],
  ["shots-codex", "working", "notify", undefined],
  ["shots-docs", "finished", "docs", "Rewrote the install guide; all links checked."],
]) {
  await call("POST", "/v1/sessions", {
    agent: session === "shots-codex" ? "codex" : "claude-code",
    session_id: session,
    signal,
    project,
    ...(message ? { last_message: message } : {}),
  });
}

const only = process.argv.slice(2);
const pages = [
  ["inbox", "/ui/"],
  ["question", `/ui/questions/${permission.id}`],
  ["notification", `/ui/notifications/${failed.id}`],
  ["settings", "/ui/settings"],
  ["settings-sounds", "/ui/settings", "Sounds"],
  ["outbound", "/ui/outbound"],
  ["outbound-routes", "/ui/outbound", "Routes"],
  ["outbound-delivery", "/ui/outbound", "Routes"],
  ["outbound-discord", "/ui/outbound"],
  ["router-routing", "/ui/router/routing"],
  ["router-effort", "/ui/router/effort"],
  ["router-effort-models", "/ui/router/effort"],
  ["providers", "/ui/router/providers"],
  ["providers-fetch", "/ui/router/providers", "Providers"],
  ["router-agents", "/ui/router/agents"],
  ["relay", "/ui/relay"],
  ["follow-up-web", `/ui/questions/${followUp.id}`],
  ["diff-web", `/ui/questions/${diffQuestion.id}`],
  ["elicitation-web", `/ui/questions/${formDecision.id}`],
  ["elicitation-web-url", `/ui/questions/${urlDecision.id}`],
];
const viewports = [
  ["desktop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
];
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
try {
  for (const scheme of ["light", "dark"]) {
    for (const [device, viewport] of viewports) {
      const context = await browser.newContext({ viewport, colorScheme: scheme, deviceScaleFactor: 1 });
      const page = await context.newPage();
      page.on("console", (message) => message.type() === "error" && console.error(`${device}: ${message.text()}`));
      await page.goto(`${broker.url}/ui/login?t=${broker.uiSessions.createLinkToken().token}`);
      for (const [name, path, section] of pages) {
        if (only.length > 0 && !only.includes(name)) continue;
        if (scheme === "dark" && !["inbox", "settings-sounds", "diff-web", "elicitation-web"].includes(name)) continue;
        await page.goto(`${broker.url}${path}`);
        await page.getByRole("heading", { level: 1 }).first().waitFor();
        if (section) {
          const heading = page.getByRole("heading", { name: section, level: 2, exact: true });
          await heading.waitFor();
          // Below the sticky navigation bar, not under it.
          await heading.evaluate((element) => {
            element.scrollIntoView({ block: "start" });
            window.scrollBy(0, -(document.querySelector("header")?.offsetHeight ?? 0) - 16);
          });
        }
        if (name === "follow-up-web") {
          // The turn's messages shown, as after a click on "Show more".
          await page.locator("details.turn-tail summary").click();
          await page.locator(".turn-messages").waitFor();
        }
        if (name === "diff-web") await page.locator("section.diff-file").first().waitFor();
        if (name === "elicitation-web-url") await page.locator(".form-url").waitFor();
        if (name === "elicitation-web") {
          // Filled in, with a canary share out of its bounds: Accept shows the page's own check at the field.
          const form = page.locator("article.form-card");
          await form.getByLabel("Contact email", { exact: true }).fill("priya@shop.example");
          await form.getByLabel("Deploy date", { exact: true }).fill("2026-12-03");
          await form.getByLabel("Canary share (%)", { exact: true }).fill("80");
          await form.getByRole("radio", { name: "EU West" }).check();
          await form.getByRole("button", { name: "Accept" }).click();
          await form.locator(".field-error").waitFor();
          await page.evaluate(() => window.scrollTo(0, 0));
        }
        if (name === "router-effort") {
          await page.getByText("GPT with xhigh").click();
          await page.getByRole("form", { name: "Overrides for gpt-xhigh" }).waitFor();
        }
        if (name === "router-effort-models") {
          await page.getByRole("tab", { name: "Per model" }).click();
          await page.getByRole("combobox", { name: "Model (provider/model)" }).fill("openrouter/openai/gpt-5.2");
        }
        if (name === "providers-fetch") {
          await page.getByRole("button", { name: /^OpenCode Zen/ }).click();
          await page.getByRole("textbox", { name: "Base URL" }).fill(modelServerUrl);
          await page.getByLabel("API key", { exact: true }).fill("sk-screenshot");
          await page.getByRole("button", { name: "Fetch models" }).click();
          await page.getByRole("checkbox", { name: "claude-sonnet-4-6 messages" }).check();
          await page.getByRole("checkbox", { name: "gpt-5.4 responses" }).check();
          await page.getByRole("checkbox", { name: "kimi-k2.5 chat" }).check();
          await page.locator(".model-list").evaluate((element) => {
            element.scrollTop = 0;
          });
          await page.getByRole("button", { name: "Fetch models" }).evaluate((element) => {
            element.scrollIntoView({ block: "start" });
            window.scrollBy(0, -(document.querySelector("header")?.offsetHeight ?? 0) - 16);
          });
        }
        if (name === "outbound-delivery") {
          await page.getByText("Edit route relay").click();
          const delivery = page.getByRole("group", { name: "Delivery", exact: true });
          // The section's top below the navigation bar, the route's last gate field above it.
          await delivery.evaluate((element) => {
            element.scrollIntoView({ block: "start" });
            window.scrollBy(0, -(document.querySelector("header")?.offsetHeight ?? 0) - 48);
          });
        }
        if (name === "outbound-discord") {
          // A new Discord provider filled in (docs/discord.md), the form under the list of providers.
          const form = page.locator("details.add-form", { hasText: "Add a provider" });
          await form.locator("summary").click();
          await form.getByRole("combobox", { name: "Kind" }).selectOption("discord_app");
          await form.getByRole("textbox", { name: "Name" }).fill("team-discord");
          await form
            .getByRole("textbox", { name: "Settings (JSON)" })
            .fill('{"channelId": "1187459032118706216", "allowedUserIds": ["402915583128649729"]}');
          await form.getByLabel("botToken").fill("MTE4NzQ1OTAzMjExODcwNjIxNg.Gx7kQp.screenshot-only-not-a-token");
          await form.getByLabel("botToken").blur();
          // On a desktop its bottom at the foot of the screen, the providers above it in view; on a phone its top
          // under the navigation bar.
          await form.evaluate((element, phone) => {
            element.scrollIntoView({ block: phone ? "start" : "end" });
            window.scrollBy(0, phone ? -(document.querySelector("header")?.offsetHeight ?? 0) - 16 : 16);
          }, device === "phone");
        }
        if (name === "relay") {
          await page.getByRole("button", { name: "Pair a phone" }).click();
          await page.getByRole("img", { name: /QR code/ }).waitFor();
        }
        await page.waitForTimeout(300);
        const file = `${name}-${device}${scheme === "dark" ? "-dark" : ""}.png`;
        // The Router sub-pages are shown whole: their settings lie below the first screen. The diff question and the
        // form down to their answer buttons (not their timeline).
        const card = ["diff-web", "elicitation-web", "elicitation-web-url"].includes(name)
          ? await page.locator("article.question").boundingBox()
          : null;
        await page.screenshot({
          path: join(out, file),
          fullPage: name.startsWith("router-") || name === "providers" || card !== null,
          ...(card
            ? { clip: { x: 0, y: 0, width: viewport.width, height: Math.ceil(card.y + card.height + 16) } }
            : {}),
        });
        console.log(file);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await broker.close();
  await relay.app.close();
  modelServer.close();
  rmSync(dataDir, { recursive: true, force: true });
}
