import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConnectorService } from "../../src/connectors/connector-service.js";
import { connectorService } from "./connector-fixture.js";

/**
 * Issue 21, item 8: a Codex config.toml with a UTF-8 byte order mark or CRLF line ends. Notify's regions go after
 * the BOM and use the file's line ends; the real Codex CLI (`codex mcp list` parses config.toml, no network) accepts
 * the connected file; disconnect restores it byte for byte.
 */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const CODEX = join(ROOT, "node_modules/@openai/codex/bin/codex.js");
if (!existsSync(CODEX)) {
  if (process.env.CI === "true") throw new Error("codex BOM e2e: missing @openai/codex");
  console.warn("\n*** SKIPPING the codex BOM e2e: missing @openai/codex ***\n");
}

const BOM = "\uFEFF";

let root: string;
let home: string;
let service: ConnectorService;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "notify-codex-bom-"));
  home = join(root, "home");
  mkdirSync(join(home, ".codex"), { recursive: true });
  service = connectorService(root, home, "nrk_bom");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `codex mcp list` in this HOME: exit 0 when Codex can load config.toml. */
function codexLoads(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HOME: home, CODEX_HOME: join(home, ".codex") };
    const child = spawn(process.execPath, [CODEX, "mcp", "list"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

const OWNER = ['model = "gpt-5.5"', "", "[tui]", "notifications = true"];

describe.skipIf(!existsSync(CODEX))("Codex config.toml with a BOM or CRLF (issue 21, item 8)", () => {
  for (const { name, bom, newline, trailing } of [
    { name: "BOM and CRLF", bom: true, newline: "\r\n", trailing: true },
    { name: "BOM and LF", bom: true, newline: "\n", trailing: true },
    { name: "CRLF, no BOM", bom: false, newline: "\r\n", trailing: true },
    { name: "BOM, no final newline", bom: true, newline: "\n", trailing: false },
  ]) {
    it(`${name}: the BOM stays first, line ends are kept, Codex loads it, disconnect restores it`, async () => {
      const file = join(home, ".codex", "config.toml");
      const before = (bom ? BOM : "") + OWNER.join(newline) + (trailing ? newline : "");
      writeFileSync(file, before);
      expect((await codexLoads()).code).toBe(0);

      service.connect("codex", {});
      const connected = readFileSync(file, "utf8");
      expect(connected.startsWith(BOM)).toBe(bom);
      expect(connected.indexOf(BOM, 1)).toBe(-1);
      if (newline === "\r\n") expect(connected.replaceAll("\r\n", "")).not.toContain("\n");
      else expect(connected).not.toContain("\r");
      const loaded = await codexLoads();
      expect(loaded.code, loaded.output).toBe(0);

      service.disconnect("codex");
      expect(readFileSync(file).equals(Buffer.from(before, "utf8"))).toBe(true);

      // Changed by the owner after connect: only Notify's regions come out, and the BOM stays first.
      service.connect("codex", {});
      appendFileSync(file, `# mine${newline}`);
      service.disconnect("codex");
      const stripped = readFileSync(file, "utf8");
      expect(stripped.startsWith(BOM)).toBe(bom);
      expect(stripped).toContain(`# mine${newline}`);
      expect((await codexLoads()).code).toBe(0);
    }, 60_000);
  }
});
