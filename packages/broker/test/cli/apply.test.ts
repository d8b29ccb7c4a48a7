import { createHmac } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { hookFixture } from "../hook-fixture.js";
import { recordingServer } from "../outbox/webhook-server.js";
import { applyInProcess } from "./apply-in-process.js";
import { cliBrokerPerTest, runCli, secretCheckedCli, tempDataDir } from "./cli-harness.js";
import { brokerState, fileDirPerTest, filesContaining, type Json, uiGet, waitFor } from "./outbound-helpers.js";

// docs/apply.md, "How a run proceeds": `notify apply FILE` upserts declarative configuration;
// secrets are sealed on import and never printed back; --prune deletes what the file does not name.

const SECRET = "whsec-apply-7f3a9c1e5b";

const { cli } = cliBrokerPerTest();
const hook = hookFixture("test", recordingServer, (server) => server.close());
const files = fileDirPerTest();

// No output of any run in any test may carry the secret (docs/apply.md, "Secrets": never printed back).
const { notify, keep } = secretCheckedCli(SECRET, () => cli);

/**
 * A run that only sets up the state the test's own runs start from: the command's function in this process (its
 * output still checked for the secret), since the spawned CLI's output is what the other runs prove.
 */
const given = async (file: string): Promise<void> => {
  keep(await applyInProcess(cli, file));
};

const yamlFile = (url: string, extra = "") => `# Notify configuration
notificationTypes:
  - id: deploy
    label: Deploy
    defaultPriority: high
outbound:
  providers:
    - name: hook
      kind: webhook
      enabled: true
      settings:
        url: ${url}
      secrets:
        signingSecret: ${SECRET}
  routes:
    - name: all
      provider: hook
      enabled: true
    - name: deploys
      provider: hook
      enabled: true
      minimumPriority: high
      typeId: deploy
      project: web
      includeMessage: false
${extra}`;

const jsonDocument = (url: string) => ({
  outbound: {
    providers: [{ name: "hook", kind: "webhook", enabled: true, settings: { url } }],
    routes: [{ name: "all", provider: "hook", enabled: true, minimumPriority: "normal" }],
  },
});

describe("notify apply: upsert", () => {
  it("applies a YAML file: type, webhook provider with a sealed secret, routes; deliveries are signed", async () => {
    const result = await notify("apply", files.write("notify.yaml", yamlFile(hook.url)));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n").slice(0, 4)).toEqual([
      "created type deploy",
      "created provider hook",
      "created route all",
      "created route deploys",
    ]);
    expect(result.stderr).toMatch(/notify: applied .*notify\.yaml: 4 created, 0 updated, 0 deleted, 0 unchanged\n$/);

    const state = await brokerState(cli);
    expect(state.types).toEqual([{ id: "deploy", label: "Deploy", enabled: true, defaultPriority: "high" }]);
    expect(state.providers).toMatchObject([
      { name: "hook", kind: "webhook", enabled: true, settings: { url: hook.url }, secretNames: ["signingSecret"] },
    ]);
    expect(JSON.stringify(state.providers)).not.toContain(SECRET);
    const [provider] = state.providers;
    expect(state.routes).toEqual([
      expect.objectContaining({ name: "all", providerId: provider.id, enabled: true, minimumPriority: "low" }),
      expect.objectContaining({
        name: "deploys",
        providerId: provider.id,
        enabled: true,
        minimumPriority: "high",
        typeId: "deploy",
        project: "web",
        includeMessage: false,
      }),
    ]);

    // The sealed secret reached the adapter: the delivery carries its HMAC signature.
    const created = await cli.api("POST", "/v1/notifications", { title: "Shipped", message: "m", type: "deploy" });
    expect(created.status).toBe(201);
    await waitFor(async () => (hook.received.length >= 1 ? true : undefined));
    const [delivery] = hook.received;
    const signature = `sha256=${createHmac("sha256", SECRET)
      .update(delivery?.body ?? "")
      .digest("hex")}`;
    expect(delivery?.headers["x-notify-signature"]).toBe(signature);
  });

  it("applies a JSON file chosen by extension, and YAML or JSON in a file with another extension", async () => {
    const json = await notify("apply", files.write("notify.json", JSON.stringify(jsonDocument(hook.url))));
    expect(json.code).toBe(0);
    expect((await brokerState(cli)).routes).toMatchObject([{ name: "all", minimumPriority: "normal" }]);

    const jsonInConf = await notify("apply", files.write("notify.conf", JSON.stringify(jsonDocument(hook.url))));
    expect(jsonInConf.code).toBe(0);
    expect(jsonInConf.stderr).toContain("unchanged route all");

    const yamlInConf = await notify(
      "apply",
      files.write(
        "other.conf",
        "outbound:\n  routes:\n    - name: all\n      provider: hook\n      minimumPriority: high\n",
      ),
    );
    expect(yamlInConf.code).toBe(0);
    expect(yamlInConf.stderr).toContain("updated route all: minimumPriority");

    // A .json file is JSON only: YAML in it is an error, not a guess.
    const yamlInJson = await notify("apply", files.write("wrong.json", "outbound: {}\n"));
    expect(yamlInJson.code).toBe(1);
    expect(yamlInJson.stderr).toMatch(/wrong\.json is not valid JSON\n$/);
  });

  it("re-applying the same file changes nothing; secret values (write-only) are the one thing sent again", async () => {
    const plain = files.write("plain.json", JSON.stringify(jsonDocument(hook.url)));
    await given(plain);
    const before = await brokerState(cli);
    const again = await notify("apply", plain, "--json");
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("unchanged provider hook\nunchanged route all\n");
    expect(JSON.parse(again.stdout)).toMatchObject({
      ok: true,
      counts: { create: 0, update: 0, delete: 0, unchanged: 2 },
    });
    expect(await brokerState(cli)).toEqual(before);

    const withSecret = files.write("notify.yaml", yamlFile(hook.url));
    await given(withSecret);
    const secondState = await brokerState(cli);
    const second = await notify("apply", withSecret, "--json");
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.counts).toEqual({ create: 0, update: 1, delete: 0, unchanged: 3 });
    expect(summary.changes).toContainEqual({
      action: "update",
      kind: "provider",
      name: "hook",
      fields: ["secrets"],
      applied: true,
    });
    const third = await brokerState(cli);
    expect(third.routes).toEqual(secondState.routes);
    expect(third.types).toEqual(secondState.types);
    expect(third.providers[0]).toMatchObject({ id: secondState.providers[0].id, secretNames: ["signingSecret"] });
  });

  it("a changed field is patched alone, and fields the file leaves out keep the broker's value", async () => {
    await given(files.write("notify.yaml", yamlFile(hook.url)));
    const before = await brokerState(cli);
    const changed = yamlFile(hook.url)
      .replace("minimumPriority: high", "minimumPriority: critical")
      .replace("      project: web\n", "      project: null\n")
      .replace(
        "    - name: hook\n      kind: webhook\n      enabled: true\n",
        "    - name: hook\n      kind: webhook\n",
      )
      .replace("      secrets:\n        signingSecret: whsec-apply-7f3a9c1e5b\n", "")
      .replace("label: Deploy", "label: Deployments");
    const result = await notify("apply", files.write("changed.yaml", changed));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("updated type deploy: label\n");
    expect(result.stderr).toContain("unchanged provider hook\n");
    expect(result.stderr).toContain("unchanged route all\n");
    expect(result.stderr).toContain("updated route deploys: minimumPriority, project\n");

    const after = await brokerState(cli);
    expect(after.types[0]).toMatchObject({ id: "deploy", label: "Deployments" });
    // Absent `enabled` and `secrets` left the provider as it was.
    expect(after.providers).toEqual(before.providers);
    const deploys = after.routes.find((route: Json) => route.name === "deploys");
    expect(deploys).toMatchObject({ minimumPriority: "critical", typeId: "deploy", includeMessage: false });
    expect(deploys.project).toBeUndefined();
    expect(after.routes.find((route: Json) => route.name === "all")).toEqual(
      before.routes.find((route: Json) => route.name === "all"),
    );
  });

  it("leaves notification types alone without a notificationTypes key, and replaces the list with one", async () => {
    await given(files.write("notify.yaml", yamlFile(hook.url)));
    expect((await notify("apply", files.write("plain.json", JSON.stringify(jsonDocument(hook.url))))).code).toBe(0);
    expect((await uiGet(cli, "/types")).map((type: Json) => type.id)).toEqual(["deploy"]);

    const result = await notify("apply", files.write("types.yaml", "notificationTypes:\n  - id: review\n"));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("created type review\n");
    expect(result.stderr).toContain("deleted type deploy (not in notificationTypes)\n");
    expect(await uiGet(cli, "/types")).toEqual([{ id: "review", label: "review", enabled: true }]);
  });
});

describe("notify apply: routing options (issue 24)", () => {
  it("creates and updates delay_seconds, when and quiet_hours; a second run changes nothing; bad ones name the path", async () => {
    const document = (routing: Record<string, unknown>) =>
      JSON.stringify({
        outbound: {
          providers: [{ name: "hook", kind: "webhook", enabled: true, settings: { url: hook.url } }],
          routes: [{ name: "Phone", provider: "hook", enabled: true, ...routing }],
        },
      });
    const first = files.write(
      "phone.json",
      document({
        delay_seconds: 120,
        when: "away",
        quiet_hours: { start: "22:00", end: "07:00", allow_critical: true },
      }),
    );
    expect((await notify("apply", first)).code).toBe(0);
    const [route] = (await brokerState(cli)).routes;
    expect(route).toMatchObject({
      delay_seconds: 120,
      when: "away",
      quiet_hours: { start: "22:00", end: "07:00", allow_critical: true },
    });
    const again = await notify("apply", first, "--json");
    expect(JSON.parse(again.stdout).counts).toMatchObject({ update: 0, unchanged: 2 });

    const changed = files.write("phone2.json", document({ delay_seconds: 0, when: "always", quiet_hours: null }));
    const update = await notify("apply", changed);
    expect(update.code).toBe(0);
    expect(update.stderr).toContain("updated route Phone: delay_seconds, when, quiet_hours\n");
    const [cleared] = (await brokerState(cli)).routes;
    expect(cleared.delay_seconds).toBeUndefined();
    expect(cleared.when).toBeUndefined();
    expect(cleared.quiet_hours).toBeUndefined();

    const bad = files.write("bad.json", document({ delay_seconds: -5, quiet_hours: { start: "7:00", end: "08:00" } }));
    const refused = await notify("apply", bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("outbound.routes[0].delay_seconds: ");
    expect(refused.stderr).toContain("outbound.routes[0].quiet_hours.start: must be HH:MM, 00:00-23:59");
    expect((await brokerState(cli)).routes[0].delay_seconds).toBeUndefined();
  });
});

describe("notify apply: noise options (issue 37, item 4)", () => {
  it("creates and updates digest_seconds and replace_finished; a second run changes nothing; bad ones name the path", async () => {
    const document = (noise: Record<string, unknown>) =>
      JSON.stringify({
        outbound: {
          providers: [{ name: "hook", kind: "webhook", enabled: true, settings: { url: hook.url } }],
          routes: [{ name: "Digest", provider: "hook", enabled: true, ...noise }],
        },
      });
    const first = files.write("digest.json", document({ digest_seconds: 120, replace_finished: false }));
    const created = await notify("apply", first);
    expect(created.code, created.stderr).toBe(0);
    expect((await brokerState(cli)).routes[0]).toMatchObject({ digest_seconds: 120, replace_finished: false });
    const again = await notify("apply", first, "--json");
    expect(JSON.parse(again.stdout).counts).toMatchObject({ update: 0, unchanged: 2 });

    // The defaults written out equal the broker's absent values: the first run changes them, a second nothing.
    const defaults = files.write("digest2.json", document({ digest_seconds: 0, replace_finished: true }));
    const update = await notify("apply", defaults);
    expect(update.code).toBe(0);
    expect(update.stderr).toContain("updated route Digest: digest_seconds, replace_finished\n");
    const [cleared] = (await brokerState(cli)).routes;
    expect(cleared.digest_seconds).toBeUndefined();
    expect(cleared.replace_finished).toBeUndefined();
    expect(JSON.parse((await notify("apply", defaults, "--json")).stdout).counts).toMatchObject({ update: 0 });

    const bad = files.write("bad-digest.json", document({ digest_seconds: 3601, replace_finished: "no" }));
    const refused = await notify("apply", bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("outbound.routes[0].digest_seconds: ");
    expect(refused.stderr).toContain("outbound.routes[0].replace_finished: ");
  });
});

describe("docs/apply.md", () => {
  it("its full example applies as YAML, and the same file as JSON changes nothing but the write-only secrets", async () => {
    const doc = readFileSync(new URL("../../../../docs/apply.md", import.meta.url), "utf8");
    const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    const json = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    if (yaml === undefined || json === undefined) throw new Error("docs/apply.md lost its example");
    const first = await notify("apply", files.write("example.yaml", yaml));
    expect(first.code).toBe(0);
    // The "A first run prints" block of the doc, line for line.
    const printed = /A first run prints:\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(first.stderr.replace(/applied \S*example\.yaml/, "applied notify.yaml")).toBe(printed);
    const second = await notify("apply", files.write("example.json", json), "--json");
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).counts).toEqual({ create: 0, update: 2, delete: 0, unchanged: 10 });
    expect(second.stderr).toContain("updated provider team-hook: secrets\n");
    expect(second.stderr).toContain("updated upstream gateway: key\n");
    for (const output of [first, second]) {
      expect(output.stderr).not.toContain("whsec_3f9a1c7e2b5d4a60");
      expect(output.stderr).not.toContain("sk-gw-8d2f61a0c4b7e953");
    }
  });
});

describe("notify apply --prune", () => {
  it("deletes the routes, then the providers, the file does not name, only within the sections it has", async () => {
    await given(files.write("notify.yaml", yamlFile(hook.url)));
    await cli.api("POST", "/v1/notifications", { title: "t", message: "m" }); // an outbox row for the old provider
    const extra = `outbound:
  providers:
    - name: old
      kind: webhook
      settings: { url: "${hook.url}" }
  routes:
    - name: stale
      provider: old
`;
    await given(files.write("extra.yaml", extra));
    expect((await brokerState(cli)).routes).toHaveLength(3);

    // Only `routes`: providers are not pruned.
    const routesOnly = files.write(
      "routes.json",
      JSON.stringify({ outbound: { routes: [{ name: "all", provider: "hook" }] } }),
    );
    const first = await notify("apply", routesOnly, "--prune");
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("unchanged route all\ndeleted route deploys\ndeleted route stale\n");
    let state = await brokerState(cli);
    expect(state.routes.map((route: Json) => route.name)).toEqual(["all"]);
    expect(state.providers.map((provider: Json) => provider.name).sort()).toEqual(["hook", "old"]);
    expect(state.types).toHaveLength(1);

    // Only `providers`: routes of a pruned provider go with it (the broker cascades), and are reported.
    await given(files.write("extra2.yaml", extra));
    const providersOnly = files.write(
      "providers.json",
      JSON.stringify({ outbound: { providers: [{ name: "hook", kind: "webhook", settings: { url: hook.url } }] } }),
    );
    const second = await notify("apply", providersOnly, "--prune", "--json");
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("deleted provider old\ndeleted route stale (with provider old)\n");
    expect(JSON.parse(second.stdout).counts).toEqual({ create: 0, update: 0, delete: 2, unchanged: 1 });
    state = await brokerState(cli);
    expect(state.providers.map((provider: Json) => provider.name)).toEqual(["hook"]);
    expect(state.routes.map((route: Json) => route.name)).toEqual(["all"]);

    // Without --prune nothing is deleted.
    await given(files.write("extra3.yaml", extra));
    const keep = await notify("apply", providersOnly);
    expect(keep.stderr).not.toMatch(/^deleted/m);
    expect((await brokerState(cli)).providers).toHaveLength(2);
  });

  it("refuses a route that names a provider --prune would delete, before changing anything", async () => {
    await given(files.write("notify.yaml", yamlFile(hook.url)));
    const before = await brokerState(cli);
    const file = files.write(
      "bad.json",
      JSON.stringify({
        outbound: {
          providers: [{ name: "other", kind: "webhook", settings: { url: hook.url } }],
          routes: [{ name: "all", provider: "hook" }],
        },
      }),
    );
    const result = await notify("apply", file, "--prune");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot be applied (nothing was changed)");
    expect(result.stderr).toContain("outbound.routes[0].provider: provider hook is not in outbound.providers");
    expect(await brokerState(cli)).toEqual(before);
  });
});

describe("notify apply --dry-run", () => {
  it("prints the plan and changes nothing", async () => {
    await given(files.write("plain.json", JSON.stringify(jsonDocument(hook.url))));
    const before = await brokerState(cli);
    const result = await notify("apply", files.write("notify.yaml", yamlFile(hook.url)), "--dry-run", "--prune");
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n").slice(0, 4)).toEqual([
      "would create type deploy",
      "would update provider hook: secrets",
      "unchanged route all",
      "would create route deploys",
    ]);
    expect(result.stderr).toMatch(/dry run of .*: 2 to create, 1 to update, 0 to delete, 1 unchanged; nothing was/);
    expect(await brokerState(cli)).toEqual(before);

    const json = await notify("apply", files.write("notify2.yaml", yamlFile(hook.url)), "--dry-run", "--json");
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      dryRun: true,
      changes: [
        { action: "create", kind: "type", name: "deploy", applied: false },
        { action: "update", kind: "provider", name: "hook", fields: ["secrets"], applied: false },
        { action: "unchanged", kind: "route", name: "all", applied: false },
        { action: "create", kind: "route", name: "deploys", applied: false },
      ],
    });
    expect(await brokerState(cli)).toEqual(before);
  });
});

describe("notify apply: invalid files", () => {
  it("names every structural problem and changes nothing", async () => {
    await given(files.write("plain.json", JSON.stringify(jsonDocument(hook.url))));
    const before = await brokerState(cli);
    const bad = `${yamlFile(hook.url)}theme: dark
colours: {}
`.replace("minimumPriority: high", "minimumPriority: urgent");
    const result = await notify("apply", files.write("bad.yaml", bad), "--json");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("bad.yaml is not valid (nothing was changed):");
    expect(result.stderr).toContain("unknown top-level keys theme, colours");
    expect(result.stderr).toContain("outbound.routes[1].minimumPriority must be one of low, normal, high, critical");
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ ok: false, changes: [] });
    expect(summary.error).toContain("unknown top-level keys theme, colours");
    expect(await brokerState(cli)).toEqual(before);

    const nested = await notify(
      "apply",
      files.write(
        "nested.json",
        JSON.stringify({
          notificationTypes: [{ id: "Bad-Id" }, { id: "ok", colour: "red" }],
          outbound: {
            provider: [],
            providers: [{ name: "x", kind: "webhook", setting: {} }, "nope"],
            routes: [{ name: "r", provider: "x", enabled: "yes", typeId: "Not A Type" }],
          },
        }),
      ),
    );
    expect(nested.code).toBe(1);
    for (const problem of [
      "notificationTypes[0].id is not a valid type ID",
      "notificationTypes[1]: unknown key colour",
      "outbound: unknown key provider",
      "outbound.providers[0]: unknown key setting",
      "outbound.providers[0].settings must be an object",
      "outbound.providers[1] must be an object",
      "outbound.routes[0].enabled must be true or false",
      "outbound.routes[0].typeId must be a type ID",
    ]) {
      expect(nested.stderr).toContain(problem);
    }
    expect(await brokerState(cli)).toEqual(before);
  });

  it("checks every entry against the broker before the first change (no partial apply)", async () => {
    const before = await brokerState(cli);
    // The first provider and the types are fine; a later entry fails the broker's own checks.
    const file = yamlFile(hook.url).replace(
      "  routes:\n",
      `    - name: second
      kind: webhook
      settings: { url: "ftp://example.invalid/" }
    - name: third
      kind: carrier-pigeon
      settings: {}
  routes:
    - name: lost
      provider: nobody
`,
    );
    const result = await notify("apply", files.write("partial.yaml", file));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("partial.yaml cannot be applied (nothing was changed):");
    expect(result.stderr).toContain("outbound.providers[1].settings: url must be an http(s) URL");
    expect(result.stderr).toContain("outbound.providers[2].kind: the broker has no provider kind carrier-pigeon");
    expect(result.stderr).toContain("outbound.routes[0].provider: no provider nobody in the file or the broker");
    expect(result.stderr).not.toMatch(/^created/m);
    expect(await brokerState(cli)).toEqual(before);
  });

  it("reports a missing file, a non-object file and syntax errors without quoting the source", async () => {
    // Five runs that each stop before reaching the broker: run side by side.
    const [missing, list, brokenJson, brokenYaml, duplicate] = await Promise.all([
      notify("apply", "/nonexistent/notify.yaml"),
      notify("apply", files.write("list.yaml", "- a\n- b\n")),
      notify("apply", files.write("broken.json", `{"signingSecret": "${SECRET}" oops}`)),
      notify("apply", files.write("broken.yaml", `outbound:\n  providers: [\n    signingSecret: ${SECRET}\n  - x\n`)),
      notify("apply", files.write("dup.yaml", "outbound: {}\noutbound: {}\n")),
    ]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toBe("notify: cannot read /nonexistent/notify.yaml: no such file\n");

    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/must hold an object with notificationTypes, outbound, router/);

    expect(brokenJson.code).toBe(1);
    expect(brokenJson.stderr).toMatch(/broken\.json is not valid JSON at line 1, column \d+\n$/);

    expect(brokenYaml.code).toBe(1);
    expect(brokenYaml.stderr).toMatch(/broken\.yaml is not valid YAML: .* at line \d+, column \d+\n$/);

    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("Map keys must be unique");
  });
});

describe("notify apply: a failure while applying", () => {
  it("stops at the refused change, says how many were applied, and cuts secrets out of the broker's message", async () => {
    // A stand-in broker whose state passes the plan but which refuses the first route (as a concurrent change
    // would make the real one do), echoing the secret back in its 400 message.
    const requests: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
    const answers: Record<string, [number, unknown]> = {
      "GET /ui/api/types": [200, []],
      "PUT /ui/api/types": [200, []],
      "GET /ui/api/outbound/kinds": [
        200,
        [{ kind: "webhook", secrets: { required: [], optional: ["signingSecret"] } }],
      ],
      "GET /ui/api/outbound/providers": [200, []],
      "GET /ui/api/outbound/routes": [200, []],
      "POST /ui/api/outbound/providers": [201, {}],
      "POST /ui/api/outbound/routes": [400, { error: `route refused near ${SECRET}` }],
    };
    const fake = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
        const [status, body] = answers[`${request.method} ${request.url}`] ?? [404, { error: "not found" }];
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const address = fake.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const dataDir = tempDataDir();
    try {
      const file = files.write("notify.yaml", yamlFile(hook.url));
      const result = await runCli(["apply", file, "--json", "--port", String(port), "--data-dir", dataDir]);
      keep(result);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("created type deploy\ncreated provider hook\nnotify: create route all failed: ");
      expect(result.stderr).toContain("400 route refused near [secret] (2 changes applied before it;");
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ ok: false, error: expect.stringContaining("route refused near [secret]") });
      expect(summary.changes.map((change: Json) => [change.kind, change.name, change.applied])).toEqual([
        ["type", "deploy", true],
        ["provider", "hook", true],
        ["route", "all", false],
        ["route", "deploys", false],
      ]);
      // `X-Notify-UI: 1` on every /ui/api change (docs/api.md, "Web UI API: `/ui/api`"); no token exists in this data
      // dir, so none is sent.
      for (const request of requests) {
        expect(request.headers.authorization).toBeUndefined();
        expect(request.headers["x-notify-ui"]).toBe(request.method === "GET" ? undefined : "1");
      }
      expect(requests.filter((request) => request.method !== "GET").map((r) => `${r.method} ${r.url}`)).toEqual([
        "PUT /ui/api/types",
        "POST /ui/api/outbound/providers",
        "POST /ui/api/outbound/routes",
      ]);
    } finally {
      fake.closeAllConnections();
      await new Promise<void>((resolve) => fake.close(() => resolve()));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("notify apply: secrets", () => {
  it("never prints a secret (output, --json, errors) and stores it only sealed", async () => {
    // A plan and a first apply (--json) of a file with the secret. The other forms print nowhere either, and are
    // checked where their own tests run them: a re-apply with --json (which sends the secret again) in "re-applying
    // the same file", --dry-run --json in "notify apply --dry-run".
    const file = files.write("notify.yaml", yamlFile(hook.url));
    for (const args of [["--dry-run"], ["--json"]]) {
      expect((await notify("apply", file, ...args)).code).toBe(0);
    }
    // Errors from the plan and from parse, in files that carry the secret.
    const unknownSecret = yamlFile(hook.url).replace(
      `signingSecret: ${SECRET}`,
      `signingSecret: ${SECRET}\n        token: ${SECRET}`,
    );
    const badName = yamlFile(hook.url).replace("name: deploys", `name: ${SECRET}${"x".repeat(100)}`);
    // A secret that would appear in an error (here a provider named after it) is cut out.
    const named = yamlFile(hook.url).replace(
      "    - name: all\n      provider: hook\n",
      `    - name: all\n      provider: ${SECRET}\n`,
    );
    // Three refused files (nothing is changed), and the listing: run side by side.
    const [planError, parseError, namedError, listed] = await Promise.all([
      notify("apply", files.write("unknown-secret.yaml", unknownSecret), "--json"),
      notify("apply", files.write("bad-name.yaml", badName), "--json"),
      notify("apply", files.write("named.yaml", named), "--json"),
      notify("outbound", "list", "--json"),
    ]);
    expect(planError.code).toBe(1);
    expect(planError.stderr).toContain("unknown secret for webhook: token");
    expect(parseError.code).toBe(1);
    expect(namedError.code).toBe(1);
    expect(namedError.stderr).toContain("outbound.routes[0].provider: no provider [secret] in the file or the broker");
    expect(JSON.parse(namedError.stdout).error).toContain("no provider [secret]");

    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).providers[0].secretNames).toEqual(["signingSecret"]);

    // At rest the secret exists only sealed: no file of the data dir holds it in clear (secret.key is the key).
    expect(filesContaining(cli.dataDir, SECRET, ["secret.key"])).toEqual([]);
  });
});
