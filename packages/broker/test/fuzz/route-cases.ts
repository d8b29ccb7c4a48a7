import type { Json } from "@notify/test-kit";

/**
 * The fuzz suite's catalogue: every route the broker serves, with a valid request to mutate. A route added later
 * must be added here too: routes-fuzz.test.ts compares this list with the routes fastify registered and fails on
 * any it does not cover.
 */

export type { Json } from "@notify/test-kit";
export type Family = "v1" | "ui" | "router" | "page";

/** Ids of the records set up before fuzzing, substituted for `{name}` in paths. */
export interface Fixtures {
  notification: string;
  interaction: string;
  provider: string;
  outboundRoute: string;
  outboxItem: string;
  upstream: string;
  routerRoute: string;
  /** A sound file name that is not there, and the name fuzzed uploads are sent as. */
  missingSound: string;
  soundUpload: string;
  /** An effort family id (they are fixed, not created). */
  effortFamily: string;
  /** A saved provider account (/ui/api/router/accounts). */
  account: string;
  /** A connector agent (`codex`) and a backup id that does not exist. */
  agent: string;
  backup: string;
}

export interface RouteCase {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with `{fixture}` placeholders, as fastify registered it with `:id`. */
  path: string;
  family: Family;
  /** A valid body; fields are mutated one at a time. Absent: the route takes no body (one is still sent). */
  body?: (fixtures: Fixtures) => Json;
  /** Valid query parameters; each is mutated in turn. */
  query?: Record<string, string>;
  /**
   * Only mutations that must be refused before the route runs (deep nesting, lone surrogates, malformed or
   * oversize bodies, bad path ids): for routes whose accepted requests would destroy a fixture (DELETE, key
   * regeneration, switching the router off).
   */
  refusedOnly?: boolean;
  /** The route reads its body as raw bytes: the JSON shape checks do not apply, only the other properties. */
  rawBody?: boolean;
  /** A route with a body limit of its own (POST /v1/contexts): the oversize mutant goes past this one. */
  maxBodyBytes?: number;
}

const inOneHour = (): string => new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");

let eventCounter = 0;

export const ROUTE_CASES: RouteCase[] = [
  { method: "GET", path: "/health", family: "v1" },
  { method: "GET", path: "/v1/health", family: "v1" },
  { method: "GET", path: "/v1/follow-up", family: "v1" },
  { method: "GET", path: "/v1/sessions", family: "v1" },
  {
    method: "POST",
    path: "/v1/sessions",
    family: "v1",
    body: () => ({ agent: "claude-code", session_id: "fuzz-session", signal: "working", cwd: "/tmp/fuzz" }),
  },
  {
    method: "POST",
    path: "/v1/contexts",
    family: "v1",
    maxBodyBytes: 327_680,
    body: () => ({
      kind: "turn",
      duration_ms: 61_000,
      truncated: false,
      messages: [
        { role: "user", text: "Fix the build." },
        { role: "assistant", text: "On it." },
      ],
    }),
  },
  {
    method: "POST",
    path: "/v1/notifications",
    family: "v1",
    body: () => ({
      title: "Build finished",
      message: "All tests passed",
      type: "completed",
      priority: "high",
      agent: "codex",
      agentInstance: "a-1",
      project: "fuzz",
      key: "fuzz-key",
      cwd: "/tmp/fuzz",
      pid: 42,
      metadata: { branch: "main", counts: [1, 2, { nested: true }] },
    }),
  },
  {
    method: "GET",
    path: "/v1/notifications",
    family: "v1",
    query: { unresolved: "true", type: "info", status: "active", project: "fuzz", agent: "codex", limit: "10" },
  },
  { method: "GET", path: "/v1/notifications/{notification}", family: "v1" },
  { method: "PATCH", path: "/v1/notifications/{notification}", family: "v1", body: () => ({ status: "active" }) },
  { method: "POST", path: "/v1/notifications/{notification}/dismiss", family: "v1", refusedOnly: true },
  {
    method: "POST",
    path: "/v1/interactions/request",
    family: "v1",
    body: () => ({
      key: "fuzz-question",
      agent: "codex",
      agent_instance: "a-1",
      project: "fuzz",
      session_id: "s-1",
      turn_id: "t-1",
      native_request_id: "n-1",
      kind: "single_choice",
      prompt: "Deploy where?",
      choices: [
        { id: "staging", label: "Staging", detail: "safe" },
        { id: "production", label: "Production" },
      ],
      text_max_length: 100,
      ttl_seconds: 600,
    }),
  },
  {
    method: "GET",
    path: "/v1/interactions",
    family: "v1",
    query: { pending: "true", status: "pending", agent: "codex", project: "fuzz", session: "s-1", limit: "10" },
  },
  { method: "GET", path: "/v1/interactions/{interaction}", family: "v1" },
  { method: "GET", path: "/v1/interactions/{interaction}/wait", family: "v1", query: { timeout: "1" } },
  {
    method: "POST",
    path: "/v1/interactions/{interaction}/respond",
    family: "v1",
    // A wrong nonce keeps the fixture pending: every mutation of this body is refused, and must store nothing.
    body: () => ({
      response_id: "r-fuzz",
      request_digest: "0".repeat(64),
      nonce: "wrong-nonce",
      choice_id: "allow",
      source: "desktop",
      device_id: "d-1",
    }),
  },
  { method: "POST", path: "/v1/interactions/{interaction}/cancel", family: "v1", refusedOnly: true },
  { method: "POST", path: "/v1/interactions/{interaction}/publish", family: "v1" },
  {
    // Claude Code's HTTP hooks (issue 33): a PostToolUse of a session that never asked, so nothing waits.
    method: "POST",
    path: "/v1/hooks/claude-code",
    family: "v1",
    body: () => ({
      session_id: "fuzz-hook",
      cwd: "/tmp/fuzz",
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_fuzz",
    }),
  },
  {
    method: "POST",
    path: "/v1/events",
    family: "v1",
    body: () => ({
      arc_version: "0.2",
      event_id: `fuzz-${++eventCounter}`,
      event_type: "request.created",
      occurred_at: "2026-01-01T00:00:00Z",
      sender: { id: "codex", name: "Codex CLI", version: "1.0.0" },
      context: { project: "fuzz", session_id: "s-1", cwd: "/tmp/fuzz" },
      request: {
        key: `fuzz-event-${eventCounter}`,
        kind: "permission",
        message: "Allow rm -rf build/?",
        response: {
          kind: "permission",
          expires_at: inOneHour(),
          choices: [
            { id: "allow", label: "Allow" },
            { id: "deny", label: "Deny", detail: "Stop" },
          ],
        },
      },
      extensions: { "x-fuzz": { trace: "t-1" } },
    }),
  },
  // The router's cases run before /ui/api's, whose accepted mutants change the router's fixtures.
  {
    method: "POST",
    path: "/router/v1/chat/completions",
    family: "router",
    body: () => ({
      model: "fx/m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      max_tokens: 20,
      temperature: 0.5,
      stream: false,
      tools: [
        {
          type: "function",
          function: {
            name: "lookup",
            description: "d",
            parameters: { type: "object", properties: { q: { type: "string" } } },
          },
        },
      ],
    }),
  },
  {
    method: "POST",
    path: "/router/v1/responses",
    family: "router",
    body: () => ({
      model: "fx/m",
      instructions: "Be brief.",
      input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
      max_output_tokens: 20,
      reasoning: { effort: "low" },
      stream: false,
    }),
  },
  {
    method: "POST",
    path: "/router/v1/messages",
    family: "router",
    body: () => ({
      model: "fx/m",
      system: "Be brief.",
      max_tokens: 20,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      stream: false,
    }),
  },
  {
    method: "POST",
    path: "/router/v1/messages/count_tokens",
    family: "router",
    body: () => ({ model: "fx/m", messages: [{ role: "user", content: "hi" }] }),
  },
  { method: "GET", path: "/router/v1/models", family: "router" },
  // The page itself and its sign-in: HTML, so only "no 5xx" is checked for them (family "page").
  { method: "GET", path: "/ui", family: "page" },
  { method: "GET", path: "/ui/login", family: "page", query: { t: "not-a-token" } },
  { method: "GET", path: "/ui/*", family: "page" },
  { method: "GET", path: "/ui/api/session", family: "ui" },
  { method: "DELETE", path: "/ui/api/session", family: "ui", refusedOnly: true },
  { method: "POST", path: "/ui/api/session/link", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/stream", family: "ui", query: { since: "0" } },
  { method: "GET", path: "/ui/api/inbox", family: "ui", query: { limit: "10" } },
  { method: "GET", path: "/ui/api/notifications/{notification}", family: "ui" },
  { method: "PATCH", path: "/ui/api/notifications/{notification}", family: "ui", body: () => ({ status: "active" }) },
  { method: "GET", path: "/ui/api/interactions/{interaction}", family: "ui" },
  { method: "GET", path: "/ui/api/notifications/{notification}/timeline", family: "ui" },
  { method: "GET", path: "/ui/api/interactions/{interaction}/timeline", family: "ui" },
  { method: "GET", path: "/ui/api/items/{interaction}/context", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/interactions/{interaction}/respond",
    family: "ui",
    // A wrong nonce keeps the fixture pending, as on /v1.
    body: () => ({
      response_id: "r-ui-fuzz",
      request_digest: "0".repeat(64),
      nonce: "wrong-nonce",
      choice_id: "allow",
    }),
  },
  { method: "GET", path: "/ui/api/presentation", family: "ui" },
  {
    method: "PUT",
    path: "/ui/api/presentation",
    family: "ui",
    body: () => ({
      pauseNotifications: false,
      doNotDisturb: false,
      soundsEnabled: true,
      playCriticalSoundsDuringDoNotDisturb: true,
      volume: 40,
      maxVisibleToasts: 5,
    }),
  },
  { method: "GET", path: "/ui/api/presence", family: "ui" },
  { method: "GET", path: "/ui/api/sessions", family: "ui" },
  { method: "GET", path: "/ui/api/agents/integrations", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/presence/activity",
    family: "ui",
    body: () => ({ page: "fuzz-page-1", visible: true }),
  },
  { method: "GET", path: "/ui/api/sounds", family: "ui" },
  { method: "PUT", path: "/ui/api/sounds/types", family: "ui", body: () => ({ info: "chime", error: "alert" }) },
  { method: "DELETE", path: "/ui/api/sounds/files/{missingSound}", family: "ui", refusedOnly: true },
  // The upload takes raw bytes (no JSON parsing): every mutant is just a file that is not a WAV (400).
  { method: "PUT", path: "/ui/api/sounds/files/{soundUpload}", family: "ui", rawBody: true },
  { method: "GET", path: "/ui/api/types", family: "ui" },
  {
    method: "PUT",
    path: "/ui/api/types",
    family: "ui",
    body: () => [{ id: "deploy", label: "Deploy", enabled: true, defaultPriority: "high" }],
  },
  { method: "GET", path: "/ui/api/outbound/kinds", family: "ui" },
  // The relay commands' routes (ui-relay.ts). Enrolling calls the relay (network I/O the owner asked for), so only
  // refusals are fuzzed; without a relay provider the others answer 400.
  {
    method: "POST",
    path: "/ui/api/relay/enroll",
    family: "ui",
    body: () => ({ url: "http://127.0.0.1:9", enrollmentToken: "nre_fuzz" }),
    refusedOnly: true,
  },
  { method: "POST", path: "/ui/api/relay/pairings", family: "ui" },
  { method: "POST", path: "/ui/api/relay/joins", family: "ui" },
  { method: "GET", path: "/ui/api/relay/machines", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/relay/join",
    family: "ui",
    body: () => ({ url: "http://127.0.0.1:9", code: "ABCDEFGHJK" }),
    refusedOnly: true,
  },
  { method: "GET", path: "/ui/api/relay/unfetched", family: "ui" },
  { method: "GET", path: "/ui/api/relay/devices", family: "ui" },
  { method: "DELETE", path: "/ui/api/relay/devices/{provider}", family: "ui", refusedOnly: true },
  { method: "POST", path: "/ui/api/relay/unenroll", family: "ui" },
  { method: "GET", path: "/ui/api/outbound/providers", family: "ui" },
  { method: "POST", path: "/ui/api/outbound/test", family: "ui", body: () => ({ route: "no-such-route" }) },
  {
    method: "POST",
    path: "/ui/api/outbound/providers",
    family: "ui",
    body: () => ({
      kind: "webhook",
      name: "fuzz-hook",
      settings: { url: "http://127.0.0.1:9/hook" },
      secrets: { signingSecret: "s3cret-value" },
      enabled: false,
    }),
  },
  {
    method: "PATCH",
    path: "/ui/api/outbound/providers/{provider}",
    family: "ui",
    body: () => ({ name: "fixture-hook", enabled: true }),
  },
  { method: "DELETE", path: "/ui/api/outbound/providers/{provider}", family: "ui", refusedOnly: true },
  { method: "POST", path: "/ui/api/outbound/providers/{provider}/test", family: "ui", refusedOnly: true },
  // Issue 31: the chat answer kinds' settings, fuzzed like the webhook's (disabled: nothing polls the port).
  {
    method: "POST",
    path: "/ui/api/outbound/providers",
    family: "ui",
    body: () => ({
      kind: "telegram",
      name: "fuzz-telegram",
      settings: { chatId: "123456789", answers: true, allowedUserIds: ["123456789"], apiBaseUrl: "http://127.0.0.1:9" },
      secrets: { botToken: "123456789:AAfuzz-telegram-token" },
      enabled: false,
    }),
  },
  {
    method: "POST",
    path: "/ui/api/outbound/providers",
    family: "ui",
    body: () => ({
      kind: "slack_app",
      name: "fuzz-slack",
      settings: { channel: "C0123ABCD", allowedUserIds: ["U0123ABCD"], apiBaseUrl: "http://127.0.0.1:9/api" },
      secrets: { appToken: "xapp-fuzz-app-token", botToken: "xoxb-fuzz-bot-token" },
      enabled: false,
    }),
  },
  { method: "GET", path: "/ui/api/outbound/routes", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/outbound/routes",
    family: "ui",
    body: () => ({
      name: "fuzz-route",
      provider: "fixture-hook",
      enabled: false,
      minimumPriority: "high",
      typeId: "deploy",
      project: "other",
      agent: "codex",
      includeMessage: false,
    }),
  },
  {
    method: "PATCH",
    path: "/ui/api/outbound/routes/{outboundRoute}",
    family: "ui",
    body: () => ({ name: "fixture-route", project: "fixture-only" }),
  },
  // Issue 31: the attention routing options (docs/routing.md), on a new route and on an existing one.
  {
    method: "POST",
    path: "/ui/api/outbound/routes",
    family: "ui",
    body: () => ({
      name: "fuzz-routing",
      provider: "fixture-hook",
      enabled: false,
      delay_seconds: 120,
      when: "away",
      quiet_hours: { start: "22:00", end: "07:00", days: ["mon", "fri"], allow_critical: true },
    }),
  },
  {
    method: "PATCH",
    path: "/ui/api/outbound/routes/{outboundRoute}",
    family: "ui",
    body: () => ({
      delay_seconds: 30,
      when: "present",
      quiet_hours: { start: "12:00", end: "13:30", days: ["sat"], allow_critical: false },
    }),
  },
  { method: "DELETE", path: "/ui/api/outbound/routes/{outboundRoute}", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/outbound/outbox", family: "ui", query: { status: "Pending", limit: "10" } },
  { method: "POST", path: "/ui/api/outbound/outbox/{outboxItem}/retry", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/router/status", family: "ui" },
  {
    method: "PUT",
    path: "/ui/api/router/settings",
    family: "ui",
    // Settings that keep the router on, its body limit at 1 MiB and its default route in place.
    body: () => ({ enabled: true, max_request_body_bytes: 1_048_576, switch_strategy: "off" }),
  },
  { method: "POST", path: "/ui/api/router/key/regenerate", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/router/upstreams", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/router/upstreams",
    family: "ui",
    body: () => ({
      slug: "fuzz-up",
      label: "Fuzz",
      wire: "chat_wire",
      base_url: "http://127.0.0.1:9/v1",
      models: ["m1", "m2"],
      model_wires: { m2: "responses_wire" },
      key: "sk-fuzz-upstream-key",
      enabled: false,
      auth: "api_key",
      credential_ref: null,
    }),
  },
  {
    method: "PATCH",
    path: "/ui/api/router/upstreams/{upstream}",
    family: "ui",
    body: () => ({ label: "Fixture", models: ["m", "other"] }),
  },
  { method: "DELETE", path: "/ui/api/router/upstreams/{upstream}", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/router/presets", family: "ui" },
  // Lists the fixture upstream's models with its stored key (the mock answers GET /models); nothing is saved.
  {
    method: "POST",
    path: "/ui/api/router/models/fetch",
    family: "ui",
    body: (fixtures) => ({ upstream: fixtures.upstream }),
  },
  { method: "GET", path: "/ui/api/router/routes", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/router/routes",
    family: "ui",
    body: () => ({ name: "fuzz-alias", kind: "alias", targets: ["fx/m", "fx/other"] }),
  },
  {
    method: "PATCH",
    path: "/ui/api/router/routes/{routerRoute}",
    family: "ui",
    body: () => ({ targets: ["fx/m"] }),
  },
  { method: "DELETE", path: "/ui/api/router/routes/{routerRoute}", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/router/activity", family: "ui", query: { limit: "5" } },
  { method: "GET", path: "/ui/api/router/accounts", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/router/accounts",
    family: "ui",
    body: () => ({ provider: "openai", label: "Fuzz", key: "sk-fuzz-account-key", admin_only: false }),
  },
  { method: "DELETE", path: "/ui/api/router/accounts/{account}", family: "ui", refusedOnly: true },
  { method: "POST", path: "/ui/api/router/accounts/reconcile", family: "ui" },
  { method: "GET", path: "/ui/api/router/effort", family: "ui" },
  {
    method: "PUT",
    path: "/ui/api/router/effort/families/{effortFamily}",
    family: "ui",
    body: () => ({ levels: { high: "medium", xhigh: "medium", max: "medium" }, default: null }),
  },
  { method: "DELETE", path: "/ui/api/router/effort/families/{effortFamily}", family: "ui", refusedOnly: true },
  {
    method: "PUT",
    path: "/ui/api/router/effort/models",
    family: "ui",
    body: () => ({ model: "fx/gpt-5", levels: { max: null }, default: "low" }),
  },
  {
    method: "DELETE",
    path: "/ui/api/router/effort/models",
    family: "ui",
    query: { model: "fx/none" },
    refusedOnly: true,
  },
  // Agent connectors: an accepted connect, disconnect or restore would write into this machine's real agent
  // files (the fuzzed broker looks in the real HOME), so only the refusals are fuzzed.
  { method: "GET", path: "/ui/api/router/agents", family: "ui" },
  {
    method: "POST",
    path: "/ui/api/router/agents/{agent}/connect",
    family: "ui",
    body: () => ({ model: "fx/m", effort: "high" }),
    refusedOnly: true,
  },
  { method: "POST", path: "/ui/api/router/agents/{agent}/disconnect", family: "ui", refusedOnly: true },
  { method: "GET", path: "/ui/api/router/agents/backups", family: "ui" },
  { method: "POST", path: "/ui/api/router/agents/backups/{backup}/restore", family: "ui", refusedOnly: true },
];

/** `{name}` placeholders filled from the fixtures. */
export function fillPath(path: string, fixtures: Fixtures): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: keyof Fixtures) => fixtures[name]);
}
