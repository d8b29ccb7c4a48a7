import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfigSnapshot, Route, Upstream } from "@notify/router";
import type { Json } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAccounts } from "../../src/connectors/accounts.js";
import { connectClaudeSettings, mergedHeaders, recordPrior } from "../../src/connectors/claude-settings.js";
import { buildCodexCatalog, CONTEXT_WINDOW, hostCachedModels, SHELL_TYPE } from "../../src/connectors/codex-catalog.js";
import { connectCodexConfig, disconnectCodexConfig } from "../../src/connectors/codex-config.js";
import { ConnectorError, ConnectorService } from "../../src/connectors/connector-service.js";

/**
 * Fixtures in the real files' shapes: `codex-config.toml` follows https://developers.openai.com/codex/config-sample
 * (root keys, then `[agents]`, `[model_providers.<id>]`, `[profiles.<name>]`, `[tui]`); `claude-settings.json` the
 * example of https://code.claude.com/docs/en/settings ("Settings files": `$schema`, `permissions`, `env`, `model`);
 * `codex-models-cache.json` Codex's `models_cache.json` (`fetched_at`, `etag`, `client_version`, `models` of
 * `ModelInfo`, codex-rs/protocol/src/openai_models.rs).
 */
const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), "utf8");

const upstream = (slug: string, models: string[], extra: Partial<Upstream> = {}): Upstream => ({
  id: `ups_${slug}`,
  slug,
  label: slug.toUpperCase(),
  wire: "responses_wire",
  base_url: "http://127.0.0.1:9/v1",
  has_key: false,
  models,
  enabled: true,
  auth: "api_key",
  model_wires: {},
  credential_ref: null,
  created_at: "2026-11-23T00:00:00Z",
  updated_at: "2026-11-23T00:00:00Z",
  ...extra,
});

const route = (name: string, kind: Route["kind"], targets: string[]): Route => ({
  id: `rrt_${name}`,
  name,
  kind,
  targets,
  enabled: true,
  created_at: "2026-11-23T00:00:00Z",
  updated_at: "2026-11-23T00:00:00Z",
});

let root: string;
let home: string;
let dataDir: string;
let snapshot: ConfigSnapshot;
let router: { enabled: boolean; key: string | undefined };
let service: ConnectorService;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "notify-connectors-"));
  home = join(root, "home");
  dataDir = join(root, "data");
  mkdirSync(home, { recursive: true });
  snapshot = {
    upstreams: [upstream("fast", ["m1", "m2"]), upstream("sub", ["gpt-5.5"], { auth: "plan_signin_a" })],
    routes: [route("quick", "alias", ["fast/m1"]), route("chain", "combo", ["fast/m1", "fast/m2"])],
    settings: { default_route: null, switch_strategy: "off", native_fallback_route: null },
  };
  router = { enabled: true, key: "nrk_first" };
  service = new ConnectorService({
    dataDir,
    snapshot: () => snapshot,
    router: () => router,
    brokerUrl: () => "http://127.0.0.1:47821",
    configuredAccounts: () => [],
    where: { env: { HOME: home } },
  });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const codexDir = () => join(home, ".codex");
const claudeDir = () => join(home, ".claude");

describe("Codex config.toml (docs/connectors.md, 'The catalogue'; docs/connectors.md, 'Writing rules')", () => {
  const connection = {
    baseUrl: "http://127.0.0.1:47821/router/v1",
    routerKey: "nrk_k",
    model: "fast/m1",
    effort: "high",
    subagentModel: "quick",
    subagentEffort: "low",
    reviewModel: "combo/chain",
    catalogPath: "/data/connectors/codex-models.json",
  };

  it("writes marker regions, comments out the owner's keys the regions set, and strips back to the original", () => {
    const owner = fixture("codex-config.toml");
    const connected = connectCodexConfig(owner, connection);
    expect(connected.startsWith("# >>> notify router settings")).toBe(true);
    expect(connected).toContain('#notify-router-owner# model = "gpt-5.2-codex"');
    expect(connected).toContain('#notify-router-owner# model_reasoning_effort = "high"');
    expect(connected).toContain('#notify-router-owner# default_subagent_model = "gpt-5.2-codex-mini"');
    // A key inside a multi-line string and a key of another table stay as they are.
    expect(connected).toContain('\nmodel = "this line is inside a string"\n');
    expect(connected).toContain('[profiles.deep]\nmodel = "o3"');
    expect(connected).toContain('http_headers = { "x-notify-router-key" = "nrk_k" }');
    expect(connected).toContain('wire_api = "responses"');
    expect(connected).toContain('review_model = "combo/chain"');
    // The owner's [agents] table gets Notify's keys right under its header (a table appears once in TOML).
    expect(connected).toMatch(/\[agents\]\n# >>> notify router agents[^\n]*\ndefault_subagent_model = "quick"/);
    expect(connected.match(/^\[agents\]$/gm)).toHaveLength(1);
    expect(disconnectCodexConfig(connected)).toBe(owner);
    // Connecting again replaces the regions instead of adding more.
    expect(connectCodexConfig(connected, { ...connection, model: "fast/m2" })).toBe(
      connectCodexConfig(owner, { ...connection, model: "fast/m2" }),
    );
  });

  it("opens an [agents] table of its own when the owner has none, and keeps CRLF files CRLF", () => {
    const owner = 'model = "x"\r\n\r\n[tui]\r\nnotifications = true\r\n';
    const connected = connectCodexConfig(owner, connection);
    expect(connected).toContain("[agents]\r\ndefault_subagent_model");
    expect(connected.replaceAll("\r\n", "")).not.toContain("\n");
    expect(disconnectCodexConfig(connected)).toBe(owner);
  });

  it("the catalogue: one entry per provider/model, alias and combo, 200k, an ordinary shell function tool", () => {
    const catalog = buildCodexCatalog(snapshot, []);
    expect(catalog.models.map((entry) => entry.slug)).toEqual([
      "fast/m1",
      "fast/m2",
      "sub/gpt-5.5",
      "quick",
      "combo/chain",
    ]);
    for (const entry of catalog.models) {
      expect(entry.context_window).toBe(CONTEXT_WINDOW);
      expect(entry.shell_type).toBe(SHELL_TYPE);
      expect(entry.shell_type).not.toBe("local");
      expect(String(entry.base_instructions)).toContain("Notify provider router");
    }
  });

  it("a subscription (plan_signin_a) model copies the host's cached entry with only slug, name and priority changed", () => {
    mkdirSync(codexDir());
    writeFileSync(join(codexDir(), "models_cache.json"), fixture("codex-models-cache.json"));
    const host = hostCachedModels(codexDir());
    const entry = buildCodexCatalog(snapshot, host).models.find((model) => model.slug === "sub/gpt-5.5");
    const { slug, display_name, priority, ...rest } = entry as Json;
    const { slug: _s, display_name: _d, priority: _p, ...hostRest } = host[0] as Json;
    expect([slug, display_name, priority]).toEqual(["sub/gpt-5.5", "sub/gpt-5.5", 2]);
    expect(rest).toEqual(hostRest);
  });
});

describe("Claude Code settings.json (docs/connectors.md, 'Claude Code: settings.json')", () => {
  it("merges env and picker rows, keeps every other key, appends the key header after the owner's lines", () => {
    const owner = JSON.parse(fixture("claude-settings.json"));
    const merged = connectClaudeSettings(owner, recordPrior(owner), {
      baseUrl: "http://127.0.0.1:47821/router",
      routerKey: "nrk_k",
      model: "fast/m1",
      subagentModel: "quick",
      selectors: [
        { id: "fast/m1", model: "m1" },
        { id: "anth/claude-opus-4-8", model: "claude-opus-4-8" },
      ],
      replaceLineup: false,
    });
    expect(merged.permissions).toEqual(owner.permissions);
    expect(merged.model).toBe("sonnet");
    expect(merged.$schema).toBe(owner.$schema);
    const env = merged.env as Json;
    expect(env.CLAUDE_CODE_ENABLE_TELEMETRY).toBe("0");
    expect(env.ANTHROPIC_CUSTOM_HEADERS).toBe("X-Team: blue\nX-Trace: on\nx-notify-router-key: nrk_k");
    expect(env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:47821/router");
    expect(env.ANTHROPIC_DEFAULT_OPUS_MODEL).toBe("fast/m1");
    expect(env.ANTHROPIC_DEFAULT_SONNET_MODEL).toBe("fast/m1");
    expect(env.ANTHROPIC_DEFAULT_HAIKU_MODEL).toBe("fast/m1");
    expect(env.CLAUDE_CODE_SUBAGENT_MODEL).toBe("quick");
    expect(env).not.toHaveProperty("ANTHROPIC_AUTH_TOKEN");
    expect(env).not.toHaveProperty("ANTHROPIC_API_KEY");
    expect(merged.modelPicker).toEqual({
      options: [
        {
          model: "fast/m1",
          label: "fast/m1",
          description: "Through the Notify router",
          behavesAs: "claude-sonnet-4-6",
        },
        {
          model: "anth/claude-opus-4-8",
          label: "anth/claude-opus-4-8",
          description: "Through the Notify router",
          behavesAs: "claude-opus-4-8",
        },
      ],
      replaceBuiltInOptions: false,
    });
  });

  it("a router key header line is replaced, not repeated", () => {
    expect(mergedHeaders("A: 1\nx-notify-router-key: old", "new")).toBe("A: 1\nx-notify-router-key: new");
    expect(mergedHeaders(undefined, "k")).toBe("x-notify-router-key: k");
  });
});

describe("ConnectorService (docs/connectors.md, 'Accounts'; docs/connectors.md, 'Writing rules')", () => {
  it("an agent that is not installed is refused and no directory is created for it", () => {
    expect(() => service.connect("codex", {})).toThrow(ConnectorError);
    expect(() => service.connect("claude-code", {})).toThrow(/not installed/);
    expect(existsSync(codexDir())).toBe(false);
    expect(existsSync(claudeDir())).toBe(false);
    expect(service.list().map((account) => [account.id, account.installed])).toEqual([
      ["codex", false],
      ["claude-code", false],
    ]);
  });

  it("connect backs the files up first; disconnect restores them byte for byte", () => {
    mkdirSync(codexDir());
    mkdirSync(claudeDir());
    const codexBefore = fixture("codex-config.toml");
    const claudeBefore = fixture("claude-settings.json");
    writeFileSync(join(codexDir(), "config.toml"), codexBefore);
    writeFileSync(join(claudeDir(), "settings.json"), claudeBefore);
    service.connect("codex", { model: "fast/m2", reviewModel: "quick" });
    service.connect("claude-code", {});
    expect(
      service
        .listBackups()
        .map((backup) => backup.file)
        .sort(),
    ).toEqual([join(claudeDir(), "settings.json"), join(codexDir(), "config.toml")].sort());
    expect(readFileSync(join(codexDir(), "config.toml"), "utf8")).toContain('model = "fast/m2"');
    expect(service.list().filter((account) => account.connected)).toHaveLength(2);
    service.disconnect("codex");
    service.disconnect("claude-code");
    expect(readFileSync(join(codexDir(), "config.toml"), "utf8")).toBe(codexBefore);
    expect(readFileSync(join(claudeDir(), "settings.json"), "utf8")).toBe(claudeBefore);
    expect(readdirSync(join(dataDir, "connectors")).filter((name) => name.endsWith("-models.json"))).toEqual([]);
  });

  it("an owner's file readable by others is made 0600 (and said so); copies, state and new files are 0600", () => {
    mkdirSync(claudeDir());
    const file = join(claudeDir(), "settings.json");
    writeFileSync(file, '{"theme":"dark"}\n', { mode: 0o640 });
    chmodSync(file, 0o640);
    const notices: string[] = [];
    service.connect("claude-code", {}, notices);
    expect(notices).toEqual([expect.stringContaining(`${file} was readable by others (mode 0640)`)]);
    mkdirSync(codexDir());
    service.connect("codex", {});
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(file)).toBe(0o600);
    expect(mode(join(codexDir(), "config.toml"))).toBe(0o600);
    expect(mode(join(dataDir, "connectors", "state.json"))).toBe(0o600);
    for (const backup of readdirSync(join(dataDir, "connectors", "backups"))) {
      expect(mode(join(dataDir, "connectors", "backups", backup))).toBe(0o600);
    }
    // The key is gone again with the byte-for-byte restore: the owner's own mode comes back.
    service.disconnect("claude-code");
    expect(readFileSync(file, "utf8")).toBe('{"theme":"dark"}\n');
    expect(mode(file)).toBe(0o640);
  });

  it("a file Notify created goes again at disconnect; one the owner changed since keeps the owner's change", () => {
    mkdirSync(codexDir());
    mkdirSync(claudeDir());
    service.connect("codex", {});
    service.connect("claude-code", {});
    expect(existsSync(join(codexDir(), "config.toml"))).toBe(true);
    const settingsFile = join(claudeDir(), "settings.json");
    const changed = JSON.parse(readFileSync(settingsFile, "utf8"));
    writeFileSync(settingsFile, JSON.stringify({ ...changed, theme: "light" }, null, 2));
    service.disconnect("codex");
    service.disconnect("claude-code");
    expect(existsSync(join(codexDir(), "config.toml"))).toBe(false);
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ theme: "light" });
  });

  it("a change of the key or the routes rewrites connected agents and drops models that no longer resolve", () => {
    mkdirSync(codexDir());
    mkdirSync(claudeDir());
    service.connect("codex", { model: "fast/m1", reviewModel: "quick", subagentModel: "combo/chain" });
    service.connect("claude-code", { subagentModel: "quick" });
    router = { enabled: true, key: "nrk_second" };
    snapshot = { ...snapshot, routes: snapshot.routes.filter((candidate) => candidate.name !== "quick") };
    service.rewrite();
    const toml = readFileSync(join(codexDir(), "config.toml"), "utf8");
    expect(toml).toContain('"x-notify-router-key" = "nrk_second"');
    expect(toml).not.toContain("review_model");
    expect(toml).toContain('default_subagent_model = "combo/chain"');
    const catalog = JSON.parse(readFileSync(join(dataDir, "connectors", "codex-models.json"), "utf8"));
    expect(catalog.models.map((entry: Json) => entry.slug)).not.toContain("quick");
    const settings = JSON.parse(readFileSync(join(claudeDir(), "settings.json"), "utf8"));
    expect(settings.env.ANTHROPIC_CUSTOM_HEADERS).toBe("x-notify-router-key: nrk_second");
    expect(settings.env).not.toHaveProperty("CLAUDE_CODE_SUBAGENT_MODEL");
    expect(service.list().find((account) => account.id === "codex")?.review_model).toBeNull();
  });

  it("a restore copies the current file first, then puts the copy back", () => {
    mkdirSync(claudeDir());
    const file = join(claudeDir(), "settings.json");
    writeFileSync(file, '{"theme":"dark"}\n');
    service.connect("claude-code", {});
    const [first] = service.listBackups();
    const connected = readFileSync(file, "utf8");
    const result = service.restoreBackup(first?.id as string);
    expect(readFileSync(file, "utf8")).toBe('{"theme":"dark"}\n');
    expect(service.backups.bytesOf(result.saved?.id as string)?.toString()).toBe(connected);
    expect(() => service.restoreBackup("nope")).toThrow(/backup not found/);
  });

  it("refuses a model that is not routed, an unknown effort, and a router that is off", () => {
    mkdirSync(codexDir());
    expect(() => service.connect("codex", { model: "nope/x" })).toThrow(/not a routed model/);
    expect(() => service.connect("codex", { effort: "huge" })).toThrow(/effort must be one of/);
    router = { enabled: false, key: "nrk_first" };
    expect(() => service.connect("codex", {})).toThrow(/router is off/);
    expect(existsSync(join(codexDir(), "config.toml"))).toBe(false);
  });

  it("connects all of an agent's accounts or none: one unparsable file refuses the connect before any write", () => {
    const work = join(root, "work-claude");
    mkdirSync(claudeDir());
    mkdirSync(work);
    const before = '{\n  "theme": "dark"\n}\n';
    writeFileSync(join(claudeDir(), "settings.json"), before);
    writeFileSync(join(work, "settings.json"), '{"theme": "light",');
    const both = new ConnectorService({
      dataDir,
      snapshot: () => snapshot,
      router: () => router,
      brokerUrl: () => "http://127.0.0.1:47821",
      configuredAccounts: () => [{ agent: "claude-code", dir: work, label: "work" }],
      where: { env: { HOME: home } },
    });
    expect(() => both.connect("claude-code", {})).toThrow(/cannot parse .*work-claude.*settings\.json/);
    // The first account, which parses, was not written either: no half-connected agent, no backup, no state.
    expect(readFileSync(join(claudeDir(), "settings.json"), "utf8")).toBe(before);
    expect(both.listBackups()).toEqual([]);
    expect(both.list().filter((account) => account.connected)).toEqual([]);
    // Fixed, it connects both.
    writeFileSync(join(work, "settings.json"), '{"theme": "light"}\n');
    both.connect("claude-code", {});
    expect(
      both
        .list()
        .filter((account) => account.connected)
        .map((account) => account.label),
    ).toEqual(["default", "work"]);
  });

  it("refuses a config.toml Codex cannot parse, naming the line, before any write (issue 31, item 6)", () => {
    mkdirSync(codexDir());
    const file = join(codexDir(), "config.toml");
    const broken = 'model = "gpt-5"\nmodel = "gpt-5.5"\n';
    writeFileSync(file, broken);
    let refusal: unknown;
    try {
      service.connect("codex", {});
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ConnectorError);
    expect((refusal as ConnectorError).status).toBe(409);
    expect((refusal as Error).message).toMatch(
      new RegExp(`^cannot parse ${file.replaceAll(".", "\\.")} \\(line 2, column 1: [^)]+\\); it was left as it was`),
    );
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(service.listBackups()).toEqual([]);
    expect(service.list().find((account) => account.id === "codex")?.connected).toBe(false);
  });

  it("refuses to connect where its keys would make the file unreadable (a root key Notify sets, as a dotted key)", () => {
    mkdirSync(codexDir());
    const file = join(codexDir(), "config.toml");
    const dotted = 'agents.default_subagent_model = "gpt-5"\n';
    writeFileSync(file, dotted);
    expect(() => service.connect("codex", { subagentModel: "quick" })).toThrow(/would no longer parse with Notify's/);
    expect(readFileSync(file, "utf8")).toBe(dotted);
  });

  it("a copy keeps the agent file's extension: .toml for config.toml, .json for settings.json (issue 31, item 12)", () => {
    mkdirSync(codexDir());
    mkdirSync(claudeDir());
    writeFileSync(join(codexDir(), "config.toml"), 'model = "gpt-5"\n');
    writeFileSync(join(claudeDir(), "settings.json"), "{}\n");
    service.connect("codex", {});
    service.connect("claude-code", {});
    const copies = readdirSync(join(dataDir, "connectors", "backups")).filter((name) => name !== "index.json");
    expect(copies).toHaveLength(2);
    expect(copies).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/-codex-config_toml\.toml$/),
        expect.stringMatching(/-claude-code-settings_json\.json$/),
      ]),
    );
  });

  it("extra accounts from RouterAgentAccounts are listed once and connected in their own directories", () => {
    const extra = join(root, "work-codex");
    mkdirSync(extra);
    mkdirSync(codexDir());
    const accounts = listAccounts(
      [
        { agent: "codex", dir: extra, label: "work" },
        { agent: "codex", dir: codexDir() },
        { agent: "claude-code", dir: join(root, "missing") },
      ],
      { env: { HOME: home } },
    );
    expect(accounts.map((account) => [account.label, account.installed])).toEqual([
      ["default", true],
      ["default", false],
      ["work", true],
      [join(root, "missing"), false],
    ]);
    const withExtra = new ConnectorService({
      dataDir,
      snapshot: () => snapshot,
      router: () => router,
      brokerUrl: () => "http://127.0.0.1:47821",
      configuredAccounts: () => [{ agent: "codex", dir: extra, label: "work" }],
      where: { env: { HOME: home } },
    });
    withExtra.connect("codex", {});
    expect(readFileSync(join(extra, "config.toml"), "utf8")).toContain("model_catalog_json");
    expect(existsSync(join(root, "missing"))).toBe(false);
  });
});
