// Issue 22, part 4: `notify doctor [--json]` (docs/install.md, "notify doctor"): one line per check with ok, warn or
// fail and what to run; exit 1 on any fail. Each check is driven to its states against a real broker, a real
// dbus-daemon with and without a notification server, real hook files and a real data directory.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { sqliteRelay } from "@notify/test-kit/relay-harness";
import { afterEach, describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { codexHookTrust } from "../../src/hooks/install/codex-trust.js";
import { type CliBroker, cliEnv, closedPort, runCli, startCliBroker } from "../cli/cli-harness.js";
import { uiSend } from "../cli/outbound-helpers.js";
import { tempDir } from "../helpers.js";
import { dbusAvailable, RecordingServer, SessionBus } from "../presentation/dbus-harness.js";

interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

const brokers: CliBroker[] = [];
afterEach(async () => {
  for (const broker of brokers.splice(0)) await broker.close();
});

function home(): NodeJS.ProcessEnv {
  const dir = tempDir("notify-doctor-home-");
  return cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, ".config"), DBUS_SESSION_BUS_ADDRESS: "" });
}

async function doctor(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; checks: Map<string, Check> }> {
  const result = await runCli(["doctor", "--json", ...args], env);
  const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks;
  return { code: result.code, checks: new Map(checks.map((check) => [check.name, check])) };
}

describe("notify doctor", () => {
  it("names every check, and with a running broker and nothing else installed has no fail (exit 0)", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    // The --json and the plain form of the same state, side by side.
    const [{ code, checks }, plain] = await Promise.all([
      doctor(broker.target, home()),
      runCli(["doctor", ...broker.target], home()),
    ]);
    expect([...checks.keys()].sort()).toEqual(
      ["broker", "service", "hooks", "follow-ups", "mcp", "router", "outbound", "relay", "desktop", "data-dir"].sort(),
    );
    expect(code).toBe(0);
    expect(checks.get("broker")).toMatchObject({ status: "ok" });
    expect(checks.get("broker")?.detail).toContain(`127.0.0.1:${broker.broker.port}`);
    // No user manager answers in home()'s environment (no bus, no runtime dir): the fix that works is notify start.
    expect(checks.get("service")).toMatchObject({ status: "warn", fix: "notify start" });
    expect(checks.get("service")?.detail).toContain("no systemd user manager answers here");
    expect(checks.get("hooks")).toMatchObject({ status: "ok" });
    // config.json followUp as the broker read it (its defaults here), with the presence it decides by.
    expect(checks.get("follow-ups")).toMatchObject({
      status: "ok",
      detail:
        "a finished turn waits up to 900 s for a reply while you are away, at most 20 in a row (presence now: unknown)",
    });
    expect(checks.get("router")).toMatchObject({ status: "ok", detail: "off" });
    expect(checks.get("relay")).toMatchObject({ status: "ok" });
    expect(checks.get("relay")?.detail).toContain("not enrolled");
    expect(checks.get("desktop")).toMatchObject({ status: "warn" });
    expect(checks.get("data-dir")).toMatchObject({ status: "ok" });
    // The plain form: one line per check, status first, and the fix under it.
    expect(plain.stdout).toMatch(/^ok {4}broker {4}answers at /m);
    expect(plain.stdout).toMatch(/^warn {2}service .*\n {16}fix: notify start$/m);
  });

  it("broker: fail and exit 1 when nothing answers; router and relay are then unknown (warn)", async () => {
    const port = await closedPort();
    // A data dir that does not exist yet (nothing has run), checked below: both runs side by side.
    const missing = join(tempDir(), "not-yet");
    const [{ code, checks }, fresh] = await Promise.all([
      doctor(["--port", String(port), "--data-dir", tempDir()], home()),
      doctor(["--port", String(port), "--data-dir", missing], home()),
    ]);
    expect(code).toBe(1);
    expect(checks.get("broker")).toMatchObject({
      status: "fail",
      fix: "notify start (then notify logs if it does not answer)",
    });
    expect(checks.get("router")?.status).toBe("warn");
    expect(checks.get("relay")?.status).toBe("warn");
    // A data dir that does not exist yet (nothing has run): warn, and doctor does not create it.
    expect(fresh.checks.get("data-dir")).toMatchObject({ status: "warn", fix: "notify serve" });
    expect(existsSync(missing)).toBe(false);
  });

  it("service: installed where no user manager answers is a warn while a broker answers, a fail once none does", async () => {
    // Issue 32, item 6: a broker answering does not make the unit runnable; the fix that works here is `notify start`.
    const broker = await startCliBroker();
    brokers.push(broker);
    const env = home();
    expect((await runCli(["service", "install", ...broker.target], env)).code).toBe(0);
    const up = (await doctor(broker.target, env)).checks.get("service");
    expect(up).toMatchObject({ status: "warn", fix: "notify start" });
    expect(up?.detail).toContain("no systemd user manager answers here");
    const down = await doctor(["--port", String(await closedPort()), "--data-dir", broker.dataDir], env);
    expect(down.checks.get("service")).toMatchObject({ status: "fail", fix: "notify start" });
  });

  it("service: a broker notify start keeps in the background is ok; a pid file naming no broker is stale", async () => {
    // Issue 32, item 4: where no service manager runs, doctor points to notify start and reads its pid file.
    const env = home();
    const dataDir = tempDir();
    const target = ["--port", String(await closedPort()), "--data-dir", dataDir];
    const started = await runCli(["start", ...target], env);
    expect(started.code, started.stderr).toBe(0);
    const pid = Number(readFileSync(join(dataDir, "notify.pid"), "utf8"));
    try {
      const running = await doctor(target, env);
      expect(running.checks.get("broker")?.status).toBe("ok");
      expect(running.checks.get("service")).toMatchObject({ status: "ok" });
      expect(running.checks.get("service")?.detail).toContain(`notify start, pid ${pid}`);
      expect(running.checks.get("service")?.detail).toContain("nothing restarts it");
    } finally {
      expect((await runCli(["stop", ...target], env)).code).toBe(0);
    }
    // A pid file left by a crash or a reboot: the pid names no broker (pid 1 is init, never `notify serve`).
    writeFileSync(join(dataDir, "notify.pid"), "1\n");
    const stale = await doctor(target, env);
    expect(stale.checks.get("service")).toMatchObject({ status: "warn", fix: "notify stop && notify start" });
    expect(stale.checks.get("service")?.detail).toContain("notify.pid names pid 1, which is no running broker");
  });

  it("hooks: ok when every installed command resolves, fail naming a moved checkout, with the reinstall to run", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    const env = home();
    mkdirSync(join(env.HOME as string, ".claude"), { recursive: true });
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "command", ...broker.target], env)).code).toBe(
      0,
    );
    const installed = await doctor(broker.target, env);
    expect(installed.checks.get("hooks")).toMatchObject({ status: "ok" });
    expect(installed.checks.get("hooks")?.detail).toContain("claude-code user");
    // The checkout moved: the command names a CLI file that is gone.
    const settings = join(env.HOME as string, ".claude", "settings.json");
    const gone = "/nonexistent/checkout/packages/broker/dist/cli/main.js";
    const moved = {
      hooks: { Stop: [{ hooks: [{ type: "command", command: `${process.execPath} ${gone} hook claude-code Stop` }] }] },
    };
    writeFileSync(settings, JSON.stringify(moved));
    const broken = await doctor(broker.target, env);
    expect(broken.code).toBe(1);
    expect(broken.checks.get("hooks")).toMatchObject({
      status: "fail",
      fix: "notify hooks install claude-code --scope user",
    });
    expect(broken.checks.get("hooks")?.detail).toContain(`${gone} does not exist`);
  });

  it("hooks: a moved checkout is said once, naming the events and the file it breaks (issue 31, item 12)", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    const env = home();
    mkdirSync(join(env.HOME as string, ".claude"), { recursive: true });
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "command", ...broker.target], env)).code).toBe(
      0,
    );
    // Every one of the six commands names the CLI file; the checkout moves away from all of them at once.
    const settings = join(env.HOME as string, ".claude", "settings.json");
    const cli = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
    const gone = "/nonexistent/moved/packages/broker/dist/cli/main.js";
    writeFileSync(settings, readFileSync(settings, "utf8").replaceAll(cli, gone));
    const { code, checks } = await doctor(broker.target, env);
    expect(code).toBe(1);
    const detail = checks.get("hooks")?.detail ?? "";
    expect(detail.split(`${gone} does not exist`)).toHaveLength(2);
    expect(detail).toBe(
      `claude-code user hooks (PermissionRequest, PostToolUse, Notification, Stop, UserPromptSubmit, PreToolUse, Elicitation, SessionEnd) in ${settings}: ${gone} does not exist (a moved or deleted checkout?)`,
    );
  });

  it("hooks: warn while Codex has not trusted Notify's hooks (asked of the real codex), ok once trusted", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    // The real Codex CLI from npm, found on PATH the way the shell finds it.
    const bin = join(fileURLToPath(new URL("../../../../node_modules/.bin", import.meta.url)));
    const env: NodeJS.ProcessEnv = {
      ...home(),
      PATH: [dirname(process.execPath), bin, process.env.PATH].join(delimiter),
    };
    const codexHome = join(env.HOME as string, ".codex");
    mkdirSync(codexHome, { recursive: true });
    expect((await runCli(["hooks", "install", "codex", ...broker.target], env)).code).toBe(0);
    const untrusted = await doctor(broker.target, env);
    expect(untrusted.code).toBe(0);
    expect(untrusted.checks.get("hooks")).toMatchObject({
      status: "warn",
      fix: "start codex, open /hooks and trust Notify's hooks",
    });
    expect(untrusted.checks.get("hooks")?.detail).toContain("4 of Notify's hooks");
    expect(untrusted.checks.get("hooks")?.detail).toContain("permission_request (untrusted)");

    // What Codex's /hooks screen writes once the person trusts them: each hook's hash under [hooks.state].
    const previousHome = process.env.HOME;
    const previousPath = process.env.PATH;
    process.env.HOME = env.HOME;
    process.env.PATH = env.PATH;
    const trust = await codexHookTrust(env.HOME as string, 60_000).finally(() => {
      process.env.HOME = previousHome;
      process.env.PATH = previousPath;
    });
    if (!trust.checked) throw new Error(trust.reason);
    expect(trust.hooks).toHaveLength(4);
    const state = trust.hooks.map((hook) => `[hooks.state."${hook.key}"]\ntrusted_hash = "${hook.currentHash}"\n`);
    writeFileSync(join(codexHome, "config.toml"), state.join(""));
    const trusted = await doctor(broker.target, env);
    expect(trusted.checks.get("hooks")).toMatchObject({ status: "ok" });
    expect(trusted.checks.get("hooks")?.detail).toContain("Codex trusts them");

    // A reinstall that changes the command (another port) makes Codex hold the changed hooks back again.
    expect((await runCli(["hooks", "install", "codex", "--port", "1", "--data-dir", broker.dataDir], env)).code).toBe(
      0,
    );
    const modified = await doctor(broker.target, env);
    expect(modified.checks.get("hooks")?.status).toBe("warn");
    expect(modified.checks.get("hooks")?.detail).toContain("(modified)");
  }, 120_000);

  it("data-dir: fail when the data dir or config.json is readable by others, with the chmod to run", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    chmodSync(broker.dataDir, 0o755);
    const { code, checks } = await doctor(broker.target, home());
    expect(code).toBe(1);
    expect(checks.get("data-dir")?.status).toBe("fail");
    expect(checks.get("data-dir")?.fix).toContain(`chmod 700 '${broker.dataDir}'`);
    chmodSync(broker.dataDir, 0o700);
  });

  it("router: ok while connected agents carry the current key, fail naming the agent whose file has an old one", async () => {
    const root = tempDir("notify-doctor-router-");
    const agentHome = join(root, "home");
    const dataDir = join(root, "data");
    mkdirSync(join(agentHome, ".codex"), { recursive: true });
    mkdirSync(dataDir);
    const broker = await startBroker({ dataDir, port: 0, env: { HOME: agentHome } });
    try {
      const target = ["--port", String(broker.port), "--data-dir", dataDir];
      const api = (method: string, path: string, body: unknown) =>
        fetch(`${broker.url}/ui/api${path}`, {
          method,
          headers: {
            authorization: `Bearer ${broker.settings.authToken}`,
            "content-type": "application/json",
            "x-notify-ui": "1",
          },
          body: JSON.stringify(body),
        });
      expect((await api("PUT", "/router/settings", { enabled: true })).status).toBe(200);
      const upstream = {
        slug: "local",
        wire: "chat_wire",
        base_url: "http://127.0.0.1:9/v1",
        models: ["a"],
        enabled: true,
      };
      expect((await api("POST", "/router/upstreams", upstream)).status).toBeLessThan(300);
      expect((await api("POST", "/router/agents/codex/connect", { model: "local/a" })).status).toBe(200);
      const env = { ...home(), HOME: agentHome };
      const current = await doctor(target, env);
      expect(current.checks.get("router")).toMatchObject({ status: "ok" });
      expect(current.checks.get("router")?.detail).toContain("1 connected agent account(s)");
      // The owner's config.toml lost the key (an old copy restored by hand): doctor names it and the reconnect.
      const config = join(agentHome, ".codex", "config.toml");
      const key = String(JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")).RouterKey);
      writeFileSync(config, readFileSync(config, "utf8").replaceAll(key, "nrk_old_key"));
      const stale = await doctor(target, env);
      expect(stale.code).toBe(1);
      expect(stale.checks.get("router")).toMatchObject({ status: "fail", fix: "notify router connect codex" });
      expect(JSON.stringify([...stale.checks.values()])).not.toContain(key);
    } finally {
      await broker.close();
    }
  });

  it("relay: ok when not enrolled, ok when enrolled and reachable, fail once the enrolled relay is gone", async () => {
    // The real relay app (SQLite, in-process) on loopback; closed by the test itself to make it unreachable.
    const relay = sqliteRelay();
    const relayUrl = await relay.listen();
    const broker = await startCliBroker();
    brokers.push(broker);
    const env = home();
    const before = await doctor(broker.target, env);
    expect(before.checks.get("relay")).toMatchObject({ status: "ok" });
    expect(before.checks.get("relay")?.detail).toContain("not enrolled");
    // Enrolled through the broker's API (what notify relay enroll sends): the runs this test is about are doctor's.
    await uiSend(broker, "POST", "/relay/enroll", { url: relayUrl, enrollmentToken: ENROLLMENT_TOKEN });
    const reachable = await doctor(broker.target, env);
    expect(reachable.code).toBe(0);
    expect(reachable.checks.get("relay")).toMatchObject({
      status: "ok",
      detail: "enrolled and reachable; 0 paired device(s)",
    });
    relay.app.server.closeAllConnections();
    await relay.close();
    const gone = await doctor(broker.target, env);
    expect(gone.code).toBe(1);
    expect(gone.checks.get("relay")).toMatchObject({
      status: "fail",
      fix: "check the relay's URL and that it runs (notify relay devices)",
    });
    expect(gone.checks.get("relay")?.detail).toMatch(/^enrolled but: /);
    // The installation token stays in the broker: doctor's output never carries it.
    expect(JSON.stringify([...gone.checks.values(), ...reachable.checks.values()])).not.toContain("nri_");
  });

  it.runIf(dbusAvailable())("desktop: warn on a bus without a notification server, ok with one", async () => {
    const bus = new SessionBus(tempDir("notify-doctor-bus-"));
    const address = await bus.start();
    try {
      const env = { ...home(), DBUS_SESSION_BUS_ADDRESS: address };
      const broker = await startCliBroker();
      brokers.push(broker);
      expect((await doctor(broker.target, env)).checks.get("desktop")).toMatchObject({ status: "warn" });
      const server = new RecordingServer();
      await server.connect(address);
      try {
        expect((await doctor(broker.target, env)).checks.get("desktop")).toMatchObject({ status: "ok" });
      } finally {
        await server.disconnect?.();
      }
    } finally {
      await bus.stop();
    }
  });
});
