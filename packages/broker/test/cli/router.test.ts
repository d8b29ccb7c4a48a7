import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookFixture } from "../hook-fixture.js";
import { cliBrokerPerTest, cliEnv, runCli, secretCheckedCli, tempDataDir } from "./cli-harness.js";
import { fileDirPerTest, type Json, uiSend } from "./outbound-helpers.js";
import { MOCK_TOKENS, mockChatUpstream } from "./router-helpers.js";

// docs/connectors.md, "CLI", and docs/cli.md, "notify router": `notify router status` (on or off, base URLs),
// `notify router key` (prints the key from the local config), `notify router activity` (the ledger).

const UPSTREAM_KEY = "sk-mock-upstream-5e1c9a7d";

const { cli } = cliBrokerPerTest();
const upstream = hookFixture("test", mockChatUpstream, (mock) => mock.close());
const files = fileDirPerTest();

// No output of any run in any test may carry the upstream key (docs/apply.md, "Secrets": never printed back).
const { notify } = secretCheckedCli(UPSTREAM_KEY, () => cli);

const routerKeyInConfig = (dataDir: string): unknown =>
  JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")).RouterKey;

/** The router switched on with one chat upstream (the mock) behind an alias, through `notify apply`. */
async function configureRouter(): Promise<void> {
  const file = files.write(
    "router.yaml",
    `router:
  enabled: true
  settings: { default_route: fast, switch_strategy: ordered }
  upstreams:
    - slug: mock
      wire: chat_wire
      base_url: ${upstream.url}
      key: ${UPSTREAM_KEY}
      models: [mock-model]
      enabled: true
  routes:
    - name: fast
      kind: alias
      targets: [mock/mock-model]
`,
  );
  const result = await notify("apply", file);
  expect(result.code, result.stderr).toBe(0);
}

function chat(key: string, model = "fast"): Promise<Response> {
  return fetch(`${cli.broker.url}/router/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "Say hello." }] }),
  });
}

describe("notify router status", () => {
  it("shows the router off by default with its base URL and no key, then on with counts and routing", async () => {
    const off = await notify("router", "status");
    expect(off.code).toBe(0);
    expect(off.stdout).toContain("router      off\n");
    expect(off.stdout).toContain(`base url    http://127.0.0.1:${cli.broker.port}/router/v1\n`);
    expect(off.stdout).toContain("key         none yet");
    expect(off.stdout).toContain("upstreams   0\n");
    expect(off.stdout).toContain("default     -\n");
    expect(off.stdout).toContain("strategy    off\n");

    await configureRouter();
    const on = await notify("router", "status");
    expect(on.code).toBe(0);
    expect(on.stdout.split("\n").slice(0, 8)).toEqual([
      "router      on",
      `base url    http://127.0.0.1:${cli.broker.port}/router/v1`,
      "key         set (notify router key prints it)",
      "upstreams   1",
      "routes      1",
      "default     fast",
      "strategy    ordered",
      "fallback    -",
    ]);
    // The router key itself is never part of the status.
    expect(on.stdout).not.toContain(String(routerKeyInConfig(cli.dataDir)));

    const json = await notify("router", "status", "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      enabled: true,
      has_key: true,
      base_path: "/router/v1",
      base_url: `http://127.0.0.1:${cli.broker.port}/router/v1`,
      max_request_body_bytes: 32 * 1024 * 1024,
      ledger_retention_days: 30,
      upstreams: 1,
      routes: 1,
      default_route: "fast",
      switch_strategy: "ordered",
      native_fallback_route: null,
    });
  });
});

describe("notify router key", () => {
  it("needs no broker: says to enable the router first until a key exists, then prints RouterKey", async () => {
    const dataDir = tempDataDir();
    try {
      const none = await runCli(["router", "key", "--data-dir", dataDir]);
      expect(none.code).toBe(1);
      expect(none.stdout).toBe("");
      expect(none.stderr).toMatch(/^notify: no router key in .*config\.json yet: enable the router first/);

      writeFileSync(join(dataDir, "config.json"), JSON.stringify({ RouterKey: "nrk_from_the_config_file" }));
      const printed = await runCli(["router", "key", "--data-dir", dataDir]);
      expect(printed).toMatchObject({ code: 0, stdout: "nrk_from_the_config_file\n", stderr: "" });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("prints the key the broker generated on enabling; --regenerate replaces it and the old one stops working", async () => {
    await uiSend(cli, "PUT", "/router/settings", { enabled: true });
    const first = await notify("router", "key");
    expect(first.code).toBe(0);
    const oldKey = first.stdout.trim();
    expect(oldKey).toMatch(/^nrk_[A-Za-z0-9_-]{43}$/);
    expect(oldKey).toBe(routerKeyInConfig(cli.dataDir));

    const regenerated = await notify("router", "key", "--regenerate");
    expect(regenerated.code).toBe(0);
    const newKey = regenerated.stdout.trim();
    expect(newKey).toMatch(/^nrk_/);
    expect(newKey).not.toBe(oldKey);
    expect(routerKeyInConfig(cli.dataDir)).toBe(newKey);
    expect((await notify("router", "key")).stdout).toBe(`${newKey}\n`);

    const models = (key: string) =>
      fetch(`${cli.broker.url}/router/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect((await models(oldKey)).status).toBe(401);
    expect((await models(newKey)).status).toBe(200);
  });

  it("--regenerate against a broker whose data dir is not the one given says so instead of printing a stale key", async () => {
    const otherDir = tempDataDir();
    try {
      const result = await runCli(
        ["router", "key", "--regenerate", "--port", String(cli.broker.port)],
        // The token comes from the environment: /ui/api needs it (docs/security.md), the data dir is the wrong one.
        cliEnv({ NOTIFY_DATA_DIR: otherDir, NOTIFY_TOKEN: cli.token }),
      );
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("regenerated its router key, but");
      expect(result.stderr).toContain("pass the broker's --data-dir");
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe("notify router activity", () => {
  it("lists a real request through the router with its attempt, as a table and as JSON", async () => {
    const empty = await notify("router", "activity");
    expect(empty).toMatchObject({ code: 0, stdout: "", stderr: "notify: no router activity\n" });

    await configureRouter();
    const key = String(routerKeyInConfig(cli.dataDir));
    const reply = await chat(key);
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as Json).choices[0].message.content).toBe("Hello from the mock.");
    // The upstream got its own (sealed, then opened) key, never the router key.
    expect(upstream.hits).toHaveLength(1);
    expect(upstream.hits[0]?.url).toBe("/v1/chat/completions");
    expect(upstream.hits[0]?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(upstream.hits[0]?.body.model).toBe("mock-model");

    const table = await notify("router", "activity");
    expect(table.code).toBe(0);
    const [header, row, ...rest] = table.stdout.trimEnd().split("\n");
    expect(rest).toEqual([]);
    expect(header?.split(/\s{2,}/)).toEqual([
      "TIME",
      "WIRE",
      "MODEL",
      "ROUTE",
      "UPSTREAM",
      "STREAM",
      "STATUS",
      "OUTCOME",
      "TOKENS",
      "ATTEMPTS",
    ]);
    const cells = row?.split(/\s{2,}/) ?? [];
    expect(cells[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cells.slice(1)).toEqual([
      "chat",
      "fast",
      "alias:fast",
      "mock/mock-model",
      "no",
      "200",
      "ok",
      `${MOCK_TOKENS.input}/${MOCK_TOKENS.output}`,
      "mock:200",
    ]);

    const json = await notify("router", "activity", "--json", "--limit", "1");
    expect(json.code).toBe(0);
    const records: Json[] = JSON.parse(json.stdout);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      inbound_wire: "chat",
      requested_model: "fast",
      route_kind: "alias",
      route_name: "fast",
      upstream_slug: "mock",
      upstream_model: "mock-model",
      stream: false,
      status: 200,
      outcome: "ok",
      tokens: { input: MOCK_TOKENS.input, output: MOCK_TOKENS.output },
      attempts: [{ ordinal: expect.any(Number), upstream_slug: "mock", model: "mock-model", status: 200 }],
    });
    // The ledger never holds keys (docs/router.md, "Ledger").
    expect(json.stdout).not.toContain(key);
  });

  it("passes the broker's 400 for a limit out of range, and refuses a limit that is not a number", async () => {
    const zero = await notify("router", "activity", "--limit", "0");
    expect(zero.code).toBe(1);
    expect(zero.stderr).toBe("notify: --limit must be an integer 1-500\n");
    const word = await notify("router", "activity", "--limit", "many");
    expect(word.code).toBe(1);
    expect(word.stderr).toBe("notify: --limit must be an integer, got many\n");
  });
});
