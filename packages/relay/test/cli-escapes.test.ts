/**
 * Issue 21, item 9: `notify-relay devices` and `notify-relay installations` printed names raw, so a pairing request
 * could clear the operator's screen (ESC[2J), ring the bell, forge table lines (CR/LF) or reverse text (U+202E).
 * Names are stored as sent and shown with visible escapes, in the table and in --json. Issue 31, item 1: the escapes
 * are the broker CLI's too (terminalText in @notify/contracts/text), bidi controls as the web page's `<U+202E>`.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { terminalText } from "@notify/contracts/text";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { RelayHarness, tempDir } from "./helpers.js";

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

const DEVICE_NAME = "Pixel\u001b[2J\u0007\r\nFAKE-ROW dev_x\u202etxt.exe\u009b31m";
const INSTALLATION_NAME = "laptop\u001b]0;pwned\u0007\u2066x\u2069\u200f\u061c\\end";
/** What a terminal would act on: C0 (with CR, LF, ESC, BEL), DEL, C1 and the bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("names from the network are escaped on the operator's terminal", () => {
  const dir = tempDir();
  beforeAll(async () => {
    const relay = new RelayHarness(new SqliteStore(join(dir.path, "relay.db")));
    const installation = await relay.enroll(INSTALLATION_NAME);
    await relay.pair(installation, { device_name: DEVICE_NAME });
    await relay.close();
  });
  afterAll(() => dir.remove());

  const cli = async (...args: string[]) =>
    (await run(process.execPath, [MAIN, ...args, "--data-dir", dir.path], { env: { ...process.env } })).stdout;

  it("devices: one line per device, every control and bidi character visible", async () => {
    const out = await cli("devices");
    expect(out).not.toMatch(ACTIVE);
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("Pixel\\x1B[2J\\x07\\r\\nFAKE-ROW dev_x<U+202E>txt.exe\\x9B31m");
  });

  it("installations: the same for installation names (OSC title, isolates, marks; a backslash stays one)", async () => {
    const out = await cli("installations");
    expect(out).not.toMatch(ACTIVE);
    expect(out.trimEnd().split("\n")).toHaveLength(2);
    expect(out).toContain("laptop\\x1B]0;pwned\\x07<U+2066>x<U+2069><U+200F><U+061C>\\end");
  });

  it("--json keeps the exact names, with the same characters escaped", async () => {
    const devices = await cli("devices", "--json");
    const installations = await cli("installations", "--json");
    for (const out of [devices, installations]) expect(out).not.toMatch(ACTIVE);
    expect(JSON.parse(devices)[0].device_name).toBe(DEVICE_NAME);
    expect(JSON.parse(installations)[0].name).toBe(INSTALLATION_NAME);
  });

  it("plain names are shown unchanged", () => {
    expect(terminalText("Pixel 9 (Jana's) — ünïcödé 📱")).toBe("Pixel 9 (Jana's) — ünïcödé 📱");
  });
});
