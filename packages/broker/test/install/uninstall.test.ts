// Issue 32, item 5: `notify uninstall [--purge]` removes hooks, MCP entries and the service, restoring the agents'
// files byte for byte, unenrolls from the relay (the installation and its phone pairings deleted there), and with
// --purge the data dir; it prints what it removed and what it left.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { x25519Jwk } from "@notify/test-kit/relay-harness";
import { afterEach, describe, expect, it } from "vitest";
import { type CliBroker, type CliResult, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";
import { startRelay } from "../relay/relay-harness.js";

const brokers: CliBroker[] = [];
afterEach(async () => {
  for (const broker of brokers.splice(0)) await broker.close();
});

describe("notify uninstall", () => {
  it("--purge restores the agents' files byte for byte, removes the unit and the data dir, and says what is left", async () => {
    const [broker, relay] = await Promise.all([startCliBroker(), startRelay()]);
    brokers.push(broker);
    const home = tempDir("notify-uninstall-home-");
    const env = cliEnv({ HOME: home, XDG_CONFIG_HOME: join(home, ".config"), DBUS_SESSION_BUS_ADDRESS: "" });
    mkdirSync(join(home, ".claude"));
    mkdirSync(join(home, ".codex"));
    // The person's own settings, with odd spacing and a hook of their own: they must come back exactly.
    const settings = join(home, ".claude", "settings.json");
    const claudeJson = join(home, ".claude.json");
    const codexConfig = join(home, ".codex", "config.toml");
    const originals = new Map([
      [
        settings,
        '{\n    "model": "opus",\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}\n}\n',
      ],
      [claudeJson, '{"numStartups": 3, "mcpServers": {"other": {"command": "other-server"}}}'],
      [codexConfig, '# mine\nmodel = "o3"\n\n[features]\nhooks = true\n'],
    ]);
    for (const [file, text] of originals) writeFileSync(file, text);
    /** Runs each command line in turn, each expected to succeed; the last one's result. */
    const inTurn = async (commands: string[][]): Promise<CliResult | undefined> => {
      let result: CliResult | undefined;
      for (const args of commands) {
        result = await runCli([...args, ...broker.target], env);
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      }
      return result;
    };
    // Three independent set-ups at once: the hooks and MCP entries (one after another: they share the install
    // record), the service unit (its own file), and the relay enrollment with a phone paired by the code the CLI
    // printed (the broker's state and the relay's).
    const [, , enrolment] = await Promise.all([
      inTurn([
        ["hooks", "install", "claude-code"],
        ["hooks", "install", "codex"],
        ["mcp", "install", "claude-code"],
        ["mcp", "install", "codex"],
      ]),
      inTurn([["service", "install", "--platform", "systemd"]]),
      (async () => {
        const enrolled = await inTurn([["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN]]);
        const pairing = await inTurn([["relay", "pair", "--json"]]);
        const { code } = JSON.parse(pairing?.stdout ?? "") as { code: string };
        const claim = await relay.request({
          url: "/v1/pairings/claim",
          body: { code, device_name: "Pixel", public_key: x25519Jwk() },
        });
        expect(claim.status, claim.text).toBe(201);
        return { enrolled: enrolled?.stdout ?? "", claim };
      })(),
    ]);
    for (const [file, text] of originals) expect(readFileSync(file, "utf8")).not.toBe(text);
    const { enrolled, claim } = enrolment;
    const phone = claim.json() as { token: string };
    const installationId = /installation (ins_\w+)/.exec(enrolled)?.[1];
    expect((await relay.store.read((tx) => tx.listInstallations())).map((item) => item.id)).toEqual([installationId]);
    expect(await relay.store.read((tx) => tx.listDevices())).toHaveLength(1);
    const unit = join(home, ".config", "systemd", "user", "notify.service");
    expect(existsSync(unit)).toBe(true);

    const result = await runCli(["uninstall", "--purge", ...broker.target], env);
    expect(result.code, result.stderr).toBe(0);
    for (const [file, text] of originals) expect(readFileSync(file, "utf8")).toBe(text);
    expect(existsSync(unit)).toBe(false);
    expect(existsSync(broker.dataDir)).toBe(false);
    const lines = result.stdout.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("removed hooks: "))).toHaveLength(2);
    expect(lines.filter((line) => line.startsWith("removed mcp: "))).toHaveLength(2);
    expect(lines).toContain(`removed: ${unit}`);
    expect(lines).toContain(`removed data dir: ${broker.dataDir}`);
    expect(lines).toContain(
      `removed: unenrolled from ${relay.url}: installation ${installationId} and its 1 phone pairing(s) deleted at the relay`,
    );
    expect(lines).toContain("removed: removed relay provider relay and route(s) relay");
    expect(lines.filter((line) => line.includes("relay still holds"))).toEqual([]);
    // The relay holds no installation and no device, and the phone's token is dead.
    expect(await relay.store.read((tx) => tx.listInstallations())).toEqual([]);
    expect(await relay.store.read((tx) => tx.listDevices())).toEqual([]);
    expect(
      (await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${phone.token}` } })).status,
    ).toBe(401);
    expect(lines.at(-1)).toBe("left: the npm package: npm uninstall -g @notify/broker @notify/relay (last)");
    // Nothing of Notify's left in the agents' files.
    for (const file of originals.keys()) expect(readFileSync(file, "utf8")).not.toContain("main.js");
  });

  it("a relay that cannot be reached: everything else is removed, the left lines name the installation, exit 1", async () => {
    const [broker, relay] = await Promise.all([startCliBroker(), startRelay()]);
    brokers.push(broker);
    const home = tempDir("notify-uninstall-home-");
    const env = cliEnv({ HOME: home, XDG_CONFIG_HOME: join(home, ".config"), DBUS_SESSION_BUS_ADDRESS: "" });
    const enrolled = await runCli(
      ["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN, ...broker.target],
      env,
    );
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const installationId = /installation (ins_\w+)/.exec(enrolled.stdout)?.[1];
    relay.app.server.closeAllConnections();
    await relay.app.close();

    const result = await runCli(["uninstall", "--purge", ...broker.target], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the relay installation is still there");
    expect(existsSync(broker.dataDir)).toBe(false);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^left: the relay at ${relay.url.replaceAll(".", "\\.")} still holds installation ${installationId} and its phone pairings \\(the relay cannot be reached`,
        ),
      ),
    );
    expect(lines.at(-1)).toBe("left: the npm package: npm uninstall -g @notify/broker @notify/relay (last)");
  });
});
