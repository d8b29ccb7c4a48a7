import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { cliBrokerPerTest, runCli, spawnCli, tempDataDir } from "./cli-harness.js";
import { fileDirPerTest } from "./outbound-helpers.js";

// `notify apply` with a `presentation` section, and `notify open --print` (docs/cli.md, "notify open";
// docs/apply.md, "`presentation`").

const { cli } = cliBrokerPerTest();
const files = fileDirPerTest();

describe("notify apply: presentation", () => {
  it("sets the keys the file names, in config.json and live, and reports unchanged on a second run", async () => {
    const file = files.write(
      "notify.yaml",
      "presentation:\n  doNotDisturb: true\n  volume: 40\n  maxVisibleToasts: 3\n  soundCommand: paplay\n",
    );
    const first = await runCli(["apply", file, ...cli.target]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("updated presentation settings");
    expect(readConfigFile(cli.dataDir)).toMatchObject({
      doNotDisturb: true,
      volume: 40,
      maxVisibleToasts: 3,
      soundCommand: "paplay",
    });
    expect(cli.broker.presentation.get()).toMatchObject({ doNotDisturb: true, volume: 40, pauseNotifications: false });
    const again = await runCli(["apply", file, "--json", ...cli.target]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).changes).toEqual([
      { action: "unchanged", kind: "presentation", name: "settings", applied: false },
    ]);
  });

  it("refuses out-of-range and unknown keys before changing anything", async () => {
    const file = files.write("bad.yaml", "presentation:\n  volume: 101\n  maxVisibleToasts: 0\n  loud: true\n");
    const result = await runCli(["apply", file, ...cli.target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("presentation.volume");
    expect(result.stderr).toContain("presentation.maxVisibleToasts");
    expect(result.stderr).toContain("loud");
    expect(readConfigFile(cli.dataDir).volume).toBeUndefined();
  });
});

describe("notify open --print", () => {
  it("prints a one-time login link that signs a browser in once", async () => {
    const result = await runCli(["open", "--print", ...cli.target]);
    expect(result.code).toBe(0);
    const url = result.stdout.trim();
    expect(url).toMatch(new RegExp(`^${cli.broker.url}/ui/login\\?t=[\\w-]{43}$`));
    const login = await fetch(url, { redirect: "manual" });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await fetch(`${cli.broker.url}/ui/api/inbox`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(url, { redirect: "manual" })).status).toBe(401);
    // Without the token the broker gives no link.
    const noToken = await runCli(["open", "--print", ...cli.target, "--token", "wrong"]);
    expect(noToken.code).toBe(1);
    expect(noToken.stdout).toBe("");
    expect(noToken.stderr).toContain("401 unauthorized");
  });
});

describe("notify serve (npm start)", () => {
  it("prints a one-time login link to the web UI on stdout, and never logs it", async () => {
    const dataDir = tempDataDir();
    const serve = spawnCli(["serve", "--port", "0", "--data-dir", dataDir]);
    try {
      await serve.stderrMatching(/listening on http:\/\/127\.0\.0\.1:\d+/);
      let stdout = "";
      const link = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no link on stdout: ${stdout}`)), 10_000);
        const check = (chunk: string) => {
          stdout += chunk;
          const match = /^Web UI: (http:\/\/127\.0\.0\.1:\d+\/ui\/login\?t=[\w-]{43})$/m.exec(stdout);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        };
        serve.child.stdout?.on("data", check);
      });
      const login = await fetch(link, { redirect: "manual" });
      expect(login.status).toBe(303);
      expect(login.headers.get("set-cookie")).toMatch(/^notify_session=.*HttpOnly; SameSite=Strict/);
      serve.child.kill("SIGTERM");
      const result = await serve.done;
      expect(result.code).toBe(0);
      const token = new URL(link).searchParams.get("t") ?? "";
      expect(result.stderr).not.toContain(token);
      for (const file of readdirSync(join(dataDir, "logs"))) {
        expect(readFileSync(join(dataDir, "logs", file), "utf8")).not.toContain(token);
      }
    } finally {
      serve.child.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
