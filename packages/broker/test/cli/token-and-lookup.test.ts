import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, closedPort, runCli, startCliBroker, tempDataDir } from "./cli-harness.js";

let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker();
});
afterAll(async () => {
  await cli?.close();
});

describe("notify token", () => {
  it("prints the raw authToken from config.json, unchanged by NOTIFY_TOKEN", async () => {
    // docs/desktop.md, "Local presentation rules", rule 9: `token` prints the config file's token without environment
    // overrides.
    const plain = await runCli(["token", "--data-dir", cli.dataDir]);
    expect(plain).toMatchObject({ code: 0, stdout: `${cli.token}\n`, stderr: "" });
    const withEnv = await runCli(["token", "--data-dir", cli.dataDir], cliEnv({ NOTIFY_TOKEN: "from-env" }));
    expect(withEnv).toMatchObject({ code: 0, stdout: `${cli.token}\n`, stderr: "" });
  });

  it("takes the data dir from NOTIFY_DATA_DIR when --data-dir is absent", async () => {
    const result = await runCli(["token"], cliEnv({ NOTIFY_DATA_DIR: cli.dataDir }));
    expect(result).toMatchObject({ code: 0, stdout: `${cli.token}\n` });
  });

  it("exits 1 with a clear message before the broker has ever run", async () => {
    // docs/config.md, "Token": until the broker has run once, no token exists.
    const empty = tempDataDir();
    try {
      const result = await runCli(["token", "--data-dir", empty]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^notify: no token in .*config\.json yet: run `notify serve` once/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("token lookup order", () => {
  // docs/config.md, "Token": `--token`, then env NOTIFY_TOKEN, then the config file. `send` exits 2 on a 401
  // (presentation rule 9), which tells which token was presented.
  const send = (extraArgs: string[], env: Record<string, string> = {}) =>
    runCli(["send", "lookup", "order", ...cli.target, ...extraArgs], cliEnv(env));

  it("uses config.json when neither --token nor NOTIFY_TOKEN is given", async () => {
    expect((await send([])).code).toBe(0);
  });

  it("NOTIFY_TOKEN beats config.json", async () => {
    const result = await send([], { NOTIFY_TOKEN: "wrong-env-token" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("notify: 401 unauthorized\n");
  });

  it("--token beats NOTIFY_TOKEN", async () => {
    expect((await send(["--token", "wrong-option-token"], { NOTIFY_TOKEN: cli.token })).code).toBe(2);
    expect((await send(["--token", cli.token], { NOTIFY_TOKEN: "wrong-env-token" })).code).toBe(0);
  });
});

describe("port lookup order", () => {
  // docs/cli.md, "Finding the broker": port from config `port` or env NOTIFY_PORT; `--port` wins over both.
  it("uses NOTIFY_PORT when --port is absent", async () => {
    const result = await runCli(
      ["status", "--data-dir", cli.dataDir],
      cliEnv({ NOTIFY_PORT: String(cli.broker.port) }),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`url     ${cli.broker.url}\n`);
  });

  it("--port beats NOTIFY_PORT", async () => {
    const result = await runCli(["status", ...cli.target], cliEnv({ NOTIFY_PORT: String(await closedPort()) }));
    expect(result.code).toBe(0);
  });

  it("falls back to config.json port and authToken", async () => {
    const other = tempDataDir();
    try {
      writeFileSync(join(other, "config.json"), JSON.stringify({ port: cli.broker.port, authToken: cli.token }));
      const result = await runCli(["status", "--data-dir", other]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`url     ${cli.broker.url}\n`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("rejects an invalid --port with exit 1", async () => {
    const result = await runCli(["status", "--port", "http", "--data-dir", cli.dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("notify: invalid --port http: expected 1-65535\n");
  });
});

describe("unreachable broker", () => {
  it("exits 1 with a clear message, for status and for send (not 2)", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const expected = `notify: cannot reach the broker at ${url} (is \`notify serve\` running?)\n`;
    const status = await runCli(["status", "--port", String(port), "--data-dir", cli.dataDir]);
    expect(status).toMatchObject({ code: 1, stdout: "", stderr: expected });
    // docs/desktop.md, "Local presentation rules", rule 9: only a 401 makes send exit 2; everything else is 1.
    const send = await runCli(["send", "t", "m", "--port", String(port), "--data-dir", cli.dataDir]);
    expect(send).toMatchObject({ code: 1, stdout: "", stderr: expected });
  });
});

describe("--token on commands that use /ui/api (issue 10, item 12)", () => {
  // `outbound list` and `router status` read /ui/api: the token they are given is presented and checked there too,
  // so a wrong one fails instead of being ignored.
  it.each([[["outbound", "list"]], [["router", "status"]]])(
    "%j: a wrong --token fails, the right one works",
    async (command) => {
      const wrong = await runCli([...command, ...cli.target, "--token", "wrong-option-token"]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain("401 unauthorized");
      const right = await runCli(
        [...command, ...cli.target, "--token", cli.token],
        cliEnv({ NOTIFY_TOKEN: "wrong-env" }),
      );
      expect(right.code, right.stderr).toBe(0);
    },
  );
});
