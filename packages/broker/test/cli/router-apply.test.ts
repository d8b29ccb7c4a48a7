import { readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookFixture } from "../hook-fixture.js";
import { applyInProcess } from "./apply-in-process.js";
import { cliBrokerPerTest, runCli, secretCheckedCli, tempDataDir } from "./cli-harness.js";
import { brokerState, fileDirPerTest, filesContaining, type Json } from "./outbound-helpers.js";
import { mockChatUpstream, routerState } from "./router-helpers.js";

// docs/apply.md, "`router`": `notify apply FILE` upserts router upstreams, routes and settings; secrets are
// sealed on import and never printed back; --prune deletes what the file does not name. docs/router.md, "Upstream": the
// upstream key is stored sealed and never returned; an upstream or route still named by a route or a setting cannot be
// deleted.

const KEY = "sk-router-apply-9c4e2b7f1a";

const { cli } = cliBrokerPerTest();
const upstream = hookFixture("test", mockChatUpstream, (mock) => mock.close());
const files = fileDirPerTest();

// No output of any run in any test may carry the secret (docs/apply.md, "Secrets": never printed back).
const { notify, keep } = secretCheckedCli(KEY, () => cli);

/**
 * A run that only sets up the state the test's own runs start from: the command's function in this process (its
 * output still checked for the key), since the spawned CLI's output is what the other runs prove.
 */
const given = async (file: string): Promise<void> => {
  keep(await applyInProcess(cli, file));
};

const routerYaml = (baseUrl: string) => `router:
  enabled: true
  settings:
    default_route: fast
    switch_strategy: ordered
    ledger_retention_days: 14
  upstreams:
    - slug: mock
      label: Mock provider
      wire: chat_wire
      base_url: ${baseUrl}
      key: ${KEY}
      models: [m1, m2]
      enabled: true
    - slug: backup
      wire: responses_wire
      base_url: https://backup.example.com/v1
      models: [b1]
  routes:
    - name: fast
      kind: alias
      targets: [mock/m1]
    - name: chain
      kind: combo
      targets: [mock/m1, backup/b1]
`;

const config = (): Json => JSON.parse(readFileSync(join(cli.dataDir, "config.json"), "utf8"));

/** The state without the timestamps an upsert of the write-only key bumps. */
const withoutUpdatedAt = (state: Awaited<ReturnType<typeof routerState>>) => ({
  ...state,
  upstreams: state.upstreams.map(({ updated_at: _updated, ...rest }: Json) => rest),
});

describe("notify apply: the router section", () => {
  it("creates upstreams, then routes, then the settings and switch; the sealed key reaches the upstream", async () => {
    const result = await notify("apply", files.write("router.yaml", routerYaml(upstream.url)));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toEqual([
      "created upstream mock",
      "created upstream backup",
      "created alias fast",
      "created combo chain",
      "updated router settings: enabled, default_route, switch_strategy, ledger_retention_days",
      expect.stringMatching(/^notify: applied .*router\.yaml: 4 created, 1 updated, 0 deleted, 0 unchanged$/),
      "",
    ]);

    const state = await routerState(cli);
    expect(state.upstreams).toEqual([
      expect.objectContaining({
        slug: "mock",
        label: "Mock provider",
        wire: "chat_wire",
        base_url: upstream.url,
        has_key: true,
        models: ["m1", "m2"],
        enabled: true,
        auth: "api_key",
        model_wires: {},
        credential_ref: null,
      }),
      // Fields left out get the router's defaults: label = slug, disabled, no key.
      expect.objectContaining({ slug: "backup", label: "backup", has_key: false, enabled: false, models: ["b1"] }),
    ]);
    for (const record of state.upstreams) expect(record).not.toHaveProperty("key");
    expect(state.routes).toEqual([
      expect.objectContaining({ name: "fast", kind: "alias", targets: ["mock/m1"], enabled: true }),
      expect.objectContaining({ name: "chain", kind: "combo", targets: ["mock/m1", "backup/b1"], enabled: true }),
    ]);
    expect(state.status).toMatchObject({
      enabled: true,
      has_key: true,
      ledger_retention_days: 14,
      default_route: "fast",
      switch_strategy: "ordered",
    });
    expect(config()).toMatchObject({ RouterEnabled: true, RouterLedgerRetentionDays: 14 });

    // The key went to the broker sealed, and comes out only to build the upstream request.
    const reply = await fetch(`${cli.broker.url}/router/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${config().RouterKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(reply.status).toBe(200);
    expect(upstream.hits.map((hit) => hit.headers.authorization)).toEqual([`Bearer ${KEY}`]);
  });

  it("re-applying changes nothing but the write-only key, which is always sent again", async () => {
    const file = files.write("router.yaml", routerYaml(upstream.url));
    await given(file);
    const before = await routerState(cli);

    const again = await notify("apply", file, "--json");
    expect(again.code).toBe(0);
    expect(again.stderr.split("\n").slice(0, 5)).toEqual([
      "updated upstream mock: key",
      "unchanged upstream backup",
      "unchanged alias fast",
      "unchanged combo chain",
      "unchanged router settings",
    ]);
    const summary = JSON.parse(again.stdout);
    expect(summary.counts).toEqual({ create: 0, update: 1, delete: 0, unchanged: 4 });
    expect(summary.changes[0]).toEqual({
      action: "update",
      kind: "upstream",
      name: "mock",
      fields: ["key"],
      applied: true,
    });
    const after = await routerState(cli);
    expect(withoutUpdatedAt(after)).toEqual(withoutUpdatedAt(before));

    // Without the key in the file, a re-run sends nothing at all.
    const keyless = files.write("keyless.yaml", routerYaml(upstream.url).replace(`      key: ${KEY}\n`, ""));
    const third = await notify("apply", keyless, "--json");
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout).counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 5 });
    expect(await routerState(cli)).toEqual(after);
  });

  it("patches only the fields that differ; fields the file leaves out keep the broker's value", async () => {
    await given(files.write("router.yaml", routerYaml(upstream.url)));
    const before = await routerState(cli);
    const changed = routerYaml(`${upstream.url}/`) // stored without the trailing slash: no change
      .replace("models: [m1, m2]", "models: [m1, m2, m3, m1]")
      .replace("targets: [mock/m1, backup/b1]", "targets: [backup/b1, mock/m1]")
      .replace("switch_strategy: ordered", "switch_strategy: sticky")
      .replace("      label: Mock provider\n", "")
      .replace(`      key: ${KEY}\n`, "");
    const result = await notify("apply", files.write("changed.yaml", changed));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").slice(0, 5)).toEqual([
      "updated upstream mock: models",
      "unchanged upstream backup",
      "unchanged alias fast",
      "updated combo chain: targets",
      "updated router settings: switch_strategy",
    ]);
    const after = await routerState(cli);
    expect(after.upstreams[0]).toMatchObject({ label: "Mock provider", has_key: true, models: ["m1", "m2", "m3"] });
    expect(after.upstreams[1]).toEqual(before.upstreams[1]);
    expect(after.routes[1].targets).toEqual(["backup/b1", "mock/m1"]);
    expect(after.status).toMatchObject({ switch_strategy: "sticky", default_route: "fast", ledger_retention_days: 14 });

    // `key: null` removes the key, and is sent only while the broker holds one.
    const removal = changed.replace(
      "      models: [m1, m2, m3, m1]\n",
      "      models: [m1, m2, m3]\n      key: null\n",
    );
    const removed = await notify("apply", files.write("removal.yaml", removal));
    expect(removed.stderr).toContain("updated upstream mock: key\n");
    expect((await routerState(cli)).upstreams[0].has_key).toBe(false);
    const again = await notify("apply", files.write("removal2.yaml", removal));
    expect(again.stderr).toContain("unchanged upstream mock\n");
  });

  it("switches the router off with enabled: false and leaves everything else alone", async () => {
    await given(files.write("router.yaml", routerYaml(upstream.url)));
    const before = await routerState(cli);
    const result = await notify("apply", files.write("off.yaml", "router:\n  enabled: false\n"), "--prune");
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n")[0]).toBe("updated router settings: enabled");
    const after = await routerState(cli);
    expect(after.status.enabled).toBe(false);
    expect({ ...after, status: before.status }).toEqual(before);
    // The key stays, so switching back on does not break connected agents.
    expect(after.status.has_key).toBe(true);
  });
});

describe("notify apply --prune: the router section", () => {
  it("deletes the routes the file does not name before the upstreams, only within the lists it has", async () => {
    await given(files.write("router.yaml", routerYaml(upstream.url)));

    // Only `upstreams`: routes are not pruned, so backup, still a target of chain, cannot go.
    const upstreamsOnly = `router:
  upstreams:
    - slug: mock
      wire: chat_wire
      base_url: ${upstream.url}
`;
    const before = await routerState(cli);
    const refused = await notify("apply", files.write("upstreams.yaml", upstreamsOnly), "--prune");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("upstreams.yaml cannot be applied (nothing was changed):\n");
    expect(refused.stderr).toContain(
      "  - router.upstreams: --prune cannot delete upstream backup, which the file does not name: " +
        "upstream backup is still used by route chain\n",
    );
    expect(await routerState(cli)).toEqual(before);

    // With `routes` too: chain goes first, then backup.
    const both = `${upstreamsOnly}  routes:
    - name: fast
      kind: alias
      targets: [mock/m1]
`;
    const result = await notify("apply", files.write("both.yaml", both), "--prune", "--json");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "unchanged upstream mock\nunchanged alias fast\ndeleted combo chain\ndeleted upstream backup\n",
    );
    expect(JSON.parse(result.stdout).counts).toEqual({ create: 0, update: 0, delete: 2, unchanged: 2 });
    const after = await routerState(cli);
    expect(after.upstreams.map((record: Json) => record.slug)).toEqual(["mock"]);
    expect(after.routes.map((record: Json) => record.name)).toEqual(["fast"]);

    // Without --prune nothing is deleted.
    await given(files.write("router2.yaml", routerYaml(upstream.url)));
    const keep = await notify("apply", files.write("both2.yaml", both));
    expect(keep.code).toBe(0);
    expect(keep.stderr).not.toMatch(/^deleted/m);
    expect((await routerState(cli)).routes).toHaveLength(2);
  });

  it("refuses to prune the default route, and prunes it when the same file moves the default first", async () => {
    await given(files.write("router.yaml", routerYaml(upstream.url)));
    const before = await routerState(cli);
    const onlyChain = `router:
  routes:
    - name: chain
      kind: combo
      targets: [mock/m1, backup/b1]
`;
    const refused = await notify("apply", files.write("chain.yaml", onlyChain), "--prune");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "router.routes: --prune cannot delete alias fast, which the file does not name: " +
        "route fast is still used by default_route",
    );
    expect(await routerState(cli)).toEqual(before);

    // Settings are applied before the deletions: a new default frees the old one.
    const moved = `${onlyChain}  settings:
    default_route: chain
`;
    const result = await notify("apply", files.write("moved.yaml", moved), "--prune");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "unchanged combo chain\nupdated router settings: default_route\ndeleted alias fast\n",
    );
    const after = await routerState(cli);
    expect(after.status.default_route).toBe("chain");
    expect(after.routes.map((record: Json) => record.name)).toEqual(["chain"]);
  });

  it("surfaces the broker's 400 when it refuses a deletion the plan allowed (a concurrent change)", async () => {
    // A stand-in broker whose state passes the plan but which refuses the deletion, as the real one does when
    // another client made a route use the upstream in the meantime.
    const requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const answers: Record<string, [number, unknown]> = {
      "GET /ui/api/router/status": [
        200,
        {
          enabled: false,
          has_key: false,
          base_path: "/router/v1",
          max_request_body_bytes: 33554432,
          ledger_retention_days: 30,
          upstreams: 1,
          routes: 0,
          default_route: null,
          switch_strategy: "off",
          native_fallback_route: null,
        },
      ],
      "GET /ui/api/router/upstreams": [
        200,
        [
          {
            id: "ups_old",
            slug: "old",
            label: "old",
            wire: "chat_wire",
            base_url: "https://old.example.com/v1",
            has_key: false,
            models: [],
            enabled: true,
            auth: "api_key",
            model_wires: {},
            credential_ref: null,
            created_at: "2026-11-01T00:00:00.000Z",
            updated_at: "2026-11-01T00:00:00.000Z",
          },
        ],
      ],
      "GET /ui/api/router/routes": [200, []],
      "POST /ui/api/router/upstreams": [201, {}],
      "DELETE /ui/api/router/upstreams/ups_old": [400, { error: "upstream old is still used by route sneaky" }],
    };
    const fake = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
        const [status, reply] = answers[`${request.method} ${request.url}`] ?? [404, { error: "not found" }];
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const address = fake.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const dataDir = tempDataDir();
    try {
      const file = files.write(
        "new.yaml",
        `router:\n  upstreams:\n    - slug: new\n      wire: chat_wire\n      base_url: https://new.example.com/v1\n      key: ${KEY}\n`,
      );
      const result = await runCli(["apply", file, "--prune", "--port", String(port), "--data-dir", dataDir]);
      keep(result);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        "created upstream new\nnotify: delete upstream old failed: 400 upstream old is still used by route sneaky " +
          "(1 change applied before it; fix the file and run apply again)\n",
      );
      const writes = requests.filter((request) => request.method !== "GET");
      expect(writes.map((request) => `${request.method} ${request.url}`)).toEqual([
        "POST /ui/api/router/upstreams",
        "DELETE /ui/api/router/upstreams/ups_old",
      ]);
      // The key travels only in the body of the write that stores it; /ui/api changes carry X-Notify-UI: 1.
      expect(JSON.parse(writes[0]?.body ?? "{}")).toEqual({
        slug: "new",
        wire: "chat_wire",
        base_url: "https://new.example.com/v1",
        key: KEY,
      });
      for (const request of writes) expect(request.headers["x-notify-ui"]).toBe("1");
    } finally {
      fake.closeAllConnections();
      await new Promise<void>((resolve) => fake.close(() => resolve()));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("notify apply --dry-run: the router section", () => {
  it("prints the plan and changes nothing, config.json included", async () => {
    const configBefore = readFileSync(join(cli.dataDir, "config.json"), "utf8");
    const before = await routerState(cli);
    const file = files.write("router.yaml", routerYaml(upstream.url));
    const result = await notify("apply", file, "--dry-run", "--prune", "--json");
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n").slice(0, 5)).toEqual([
      "would create upstream mock",
      "would create upstream backup",
      "would create alias fast",
      "would create combo chain",
      "would update router settings: enabled, default_route, switch_strategy, ledger_retention_days",
    ]);
    expect(result.stderr).toMatch(/4 to create, 1 to update, 0 to delete, 0 unchanged; nothing was changed\n$/);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, dryRun: true, counts: { create: 4, update: 1 } });
    expect(await routerState(cli)).toEqual(before);
    expect(readFileSync(join(cli.dataDir, "config.json"), "utf8")).toBe(configBefore);
  });
});

describe("notify apply: invalid router sections", () => {
  it("names every structural problem and changes nothing, in the router or any other section", async () => {
    const before = { router: await routerState(cli), rest: await brokerState(cli) };
    const bad = `notificationTypes:
  - id: deploy
router:
  enabled: yes
  setting: {}
  settings: { ledger_retention_days: 0, switch_strategy: 3 }
  upstreams:
    - slug: mock
      wire: chat_wire
      base_url: ${upstream.url}
      key: ${KEY}
      models: m1
      token: ${KEY}
    - label: no slug
    - slug: mock
      wire: chat_wire
      base_url: ${upstream.url}
  routes:
    - name: fast
      kind: alias
      targets: mock/m1
      enabled: "yes"
`;
    const result = await notify("apply", files.write("bad.yaml", bad), "--json");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("bad.yaml is not valid (nothing was changed):");
    for (const problem of [
      "router: unknown key setting",
      "router.enabled must be true or false",
      "router.settings.switch_strategy must be a string",
      "router.settings.ledger_retention_days must be a positive integer",
      "router.upstreams[0]: unknown key token",
      "router.upstreams[0].models must be a list of model IDs",
      "router.upstreams[1].slug is required (a string)",
      "router.upstreams[2].slug: mock is named twice in router.upstreams",
      "router.routes[0].targets must be a list of provider/model strings",
      "router.routes[0].enabled must be true or false",
    ]) {
      expect(result.stderr).toContain(problem);
    }
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, changes: [] });
    expect({ router: await routerState(cli), rest: await brokerState(cli) }).toEqual(before);
  });

  it("checks every entry with the router's own rules before the first change (no partial apply)", async () => {
    await given(files.write("router.yaml", routerYaml(upstream.url)));
    const before = { router: await routerState(cli), rest: await brokerState(cli) };
    // The notification type and the first upstream are fine; every later entry breaks one rule of
    // docs/router.md, "Records and rules".
    const file = `notificationTypes:
  - id: deploy
router:
  settings:
    switch_strategy: weighted
  upstreams:
    - slug: fresh
      wire: chat_wire
      base_url: ${upstream.url}
    - slug: Bad_Slug
      wire: chat_wire
      base_url: https://example.com/v1
    - slug: remote
      wire: chat_wire
      base_url: http://models.example.com/v1
    - slug: nowire
      base_url: https://example.com/v1
  routes:
    - name: pair
      kind: alias
      targets: [mock/m1, fresh/x]
    - name: lost
      kind: combo
      targets: [ghost/model]
`;
    const result = await notify("apply", files.write("rules.yaml", file));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("rules.yaml cannot be applied (nothing was changed):");
    for (const problem of [
      "router.upstreams[1]: slug must match [a-z0-9][a-z0-9-]{0,31}",
      "router.upstreams[2]: http base_url is allowed only for a loopback host",
      "router.upstreams[3]: wire must be one of responses_wire, chat_wire, messages_wire",
      "router.routes[0]: an alias has exactly one target",
      "router.routes[1]: target ghost/model: no upstream with slug ghost",
      "router.settings: switch_strategy must be one of off, ordered, sticky, round_robin",
    ]) {
      expect(result.stderr).toContain(problem);
    }
    expect(result.stderr).not.toMatch(/^created/m);
    expect({ router: await routerState(cli), rest: await brokerState(cli) }).toEqual(before);
  });
});

describe("notify apply: the upstream key", () => {
  it("is never printed (lines, --json, errors) and is stored only sealed", async () => {
    // A plan and a first apply (--json) of a file with the key. The other forms print nowhere either, and are
    // checked where their own tests run them: a re-apply with --json (which sends the key again) in "re-applying
    // changes nothing", --dry-run --json in "notify apply --dry-run: the router section".
    const file = files.write("router.yaml", routerYaml(upstream.url));
    for (const args of [["--dry-run"], ["--json"]]) {
      expect((await notify("apply", file, ...args)).code).toBe(0);
    }
    // An error that would name the key (a route target made of it) has it cut out, on stderr and in --json; a file
    // that fails to parse cannot echo it either. Neither changes anything: they run side by side with the status.
    const named = routerYaml(upstream.url).replace("targets: [mock/m1]", `targets: [${KEY}/m1]`);
    const broken = routerYaml(upstream.url).replace("models: [m1, m2]", `models: ${KEY}`);
    const [namedError, brokenError, status] = await Promise.all([
      notify("apply", files.write("named.yaml", named), "--json"),
      notify("apply", files.write("broken.yaml", broken), "--json"),
      notify("router", "status", "--json"),
    ]);
    expect(namedError.code).toBe(1);
    expect(namedError.stderr).toContain("router.routes[0]: target [secret]/m1: no upstream with slug [secret]");
    expect(JSON.parse(namedError.stdout).error).toContain("no upstream with slug [secret]");
    expect(brokenError.code).toBe(1);

    expect(status.code).toBe(0);
    const upstreams = await routerState(cli);
    expect(JSON.stringify(upstreams)).not.toContain(KEY);

    // At rest the key exists only sealed: no file of the data dir holds it in clear (secret.key is the sealing
    // key). config.json legitimately holds the router's own key, and nothing else of the router's secrets.
    expect(filesContaining(cli.dataDir, KEY, ["secret.key"])).toEqual([]);
    expect(config().RouterKey).toMatch(/^nrk_/);
  });
});
