// Issue 21, item 19: `notify relay pair` wrote ANSI colours into a file or a pipe. Colour only on a terminal, never
// with NO_COLOR (FORCE_COLOR turns it on); the QR code printed without colour must still be the code, so it is
// read back module by module and compared with the QR code of the printed link. A pseudo-terminal comes from
// util-linux's `script`, as a person's terminal would give.
import { spawn, spawnSync } from "node:child_process";
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { type RelayHarness, sqliteRelay } from "@notify/test-kit/relay-harness";
import qrcode from "qrcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { type LiveBroker, liveBroker } from "../relay/broker-client.js";
import { CLI, cliEnv, runCli } from "./cli-harness.js";

const ESC = "\u001b";
let relay: RelayHarness;
let live: LiveBroker;
let target: string[];

/** The environment of a person who set neither NO_COLOR nor FORCE_COLOR. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cliEnv();
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  return { ...env, ...extra };
}

beforeAll(async () => {
  relay = sqliteRelay();
  const relayUrl = await relay.listen();
  live = await liveBroker(tempDir());
  target = ["--port", String(live.broker.port), "--data-dir", live.dataDir, "--token", live.broker.settings.authToken];
  const enrolled = await runCli(["relay", "enroll", relayUrl, "--enrollment-token", ENROLLMENT_TOKEN, ...target]);
  expect(enrolled.code).toBe(0);
}, 60_000);
afterAll(async () => {
  await live?.close();
  relay?.app.server.closeAllConnections();
  await relay?.close();
});

/** Reads the plain QR code back: `█` both modules dark, `▀` top, `▄` bottom, space none; a 2-column quiet zone. */
function modulesOf(drawing: string): boolean[][] {
  const lines = drawing.split("\n").filter((line) => line.trim() !== "");
  const rows: boolean[][] = [];
  for (const line of lines) {
    const cells = Array.from(line.slice(2, line.length - 2));
    rows.push(cells.map((cell) => cell === "█" || cell === "▀"));
    rows.push(cells.map((cell) => cell === "█" || cell === "▄"));
  }
  return rows;
}

function expectedModules(link: string): boolean[][] {
  const { modules } = qrcode.create(link, { errorCorrectionLevel: "M" });
  const rows: boolean[][] = [];
  for (let y = 0; y < modules.size; y++) {
    const row: boolean[] = [];
    for (let x = 0; x < modules.size; x++) row.push(modules.get(y, x) === 1);
    rows.push(row);
  }
  return rows;
}

const linkOf = (stdout: string): string => /open (\S+#pair=\S+)/.exec(stdout)?.[1] ?? "";

describe("notify relay pair: colour only on a terminal (issue 21, item 19)", () => {
  it("into a pipe: no escape codes, and the plain QR code is the code of the printed link", async () => {
    const piped = await runCli(["relay", "pair", ...target], plainEnv());
    expect(piped.code).toBe(0);
    expect(piped.stdout).not.toContain(ESC);
    const link = linkOf(piped.stdout);
    expect(link).toMatch(/\/app\/#pair=/);
    const drawing = piped.stdout.slice(0, piped.stdout.indexOf("\nScan"));
    const expected = expectedModules(link);
    const drawn = modulesOf(drawing).slice(0, expected.length);
    expect(drawn).toEqual(expected);
  });

  it("FORCE_COLOR turns colour on even into a pipe", async () => {
    const forced = await runCli(["relay", "pair", ...target], plainEnv({ FORCE_COLOR: "1" }));
    expect(forced).toMatchObject({ code: 0, stderr: "" });
    expect(forced.stdout).toContain(`${ESC}[47m`);
  });

  it("on a terminal: colour, unless NO_COLOR is set", async () => {
    const script = spawnSync("script", ["--version"], { encoding: "utf8" });
    if (script.error !== undefined) {
      if (process.env.CI === "true") throw new Error("util-linux `script` is missing (apt-get install bsdutils)");
      console.warn("SKIPPED: util-linux `script` is missing (apt-get install bsdutils)");
      return;
    }
    const command = [process.execPath, CLI, "relay", "pair", ...target].map((part) => `'${part}'`).join(" ");
    // Not spawnSync: the broker of this test runs in this process and must go on answering.
    const onTerminal = (env: NodeJS.ProcessEnv): Promise<string> =>
      new Promise((resolve, reject) => {
        const child = spawn("script", ["-qec", command, "/dev/null"], { env, stdio: ["ignore", "pipe", "inherit"] });
        let stdout = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
        });
        child.once("error", reject);
        child.once("close", () => resolve(stdout));
      });
    expect(await onTerminal(plainEnv())).toContain(`${ESC}[47m`);
    const refused = await onTerminal(plainEnv({ NO_COLOR: "1" }));
    expect(refused).toContain("#pair=");
    expect(refused).not.toContain(ESC);
  });
});
