// Issue 21, item 23: `npm install` on a system Node 20 printed 75 lines of EBADENGINE warnings that read like a
// failure. npm cannot silence that warning alone (its engine check reads process.version, and loglevel would hide
// every other warning too), so the root preinstall explains them. Its notice is checked for each Node npm may run
// on, and, where the system has an older Node and npm, in a real `npm install` of a throwaway project: the notice
// comes right under the warnings, and nothing else is hidden.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const NOTICE = join(ROOT, "scripts", "install-notice.mjs");

function notice(userAgent: string): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [NOTICE], {
    env: { PATH: process.env.PATH ?? "", npm_config_user_agent: userAgent },
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("the install notice about the pinned Node (issue 21, item 23)", () => {
  it("is the root preinstall", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(manifest.scripts.preinstall).toBe("node scripts/install-notice.mjs");
  });

  it("explains the warnings when npm runs on Node < 22.13, and says nothing otherwise", () => {
    const old = notice("npm/11.19.1 node/v20.20.2 linux x64 workspaces/false");
    expect(old.code).toBe(0);
    expect(old.stdout).toBe("");
    expect(old.stderr).toContain('npm runs on Node 20.20.2 here, so the "EBADENGINE Unsupported engine" warnings');
    expect(old.stderr).toContain("pins Node 24");
    expect(notice("npm/10.9.0 node/v22.12.0 linux x64").stderr).toContain("Node 22.12.0");
    for (const agent of ["npm/11.6.0 node/v24.21.0 linux x64", "npm/10.9.0 node/v22.13.0 darwin arm64", ""]) {
      expect(notice(agent), agent).toEqual({ code: 0, stdout: "", stderr: "" });
    }
  });

  const systemNode = spawnSync("/usr/bin/node", ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim();
  const [major = 99, minor = 0] = (systemNode ?? "").split(".").map(Number);
  const olderSystem = systemNode !== undefined && systemNode !== "" && (major < 22 || (major === 22 && minor < 13));
  if (!olderSystem)
    console.warn("*** SKIPPING the real npm install of the notice: no system Node older than 22.13 ***");

  it.runIf(olderSystem)(
    "a real npm install on the system's older Node: the notice comes right under the warnings",
    () => {
      const project = mkdtempSync(join(tmpdir(), "notify-install-notice-"));
      try {
        mkdirSync(join(project, "scripts"));
        copyFileSync(NOTICE, join(project, "scripts", "install-notice.mjs"));
        writeFileSync(
          join(project, "package.json"),
          JSON.stringify({
            name: "notice-check",
            version: "1.0.0",
            private: true,
            type: "module",
            engines: { node: ">=22.13" },
            scripts: { preinstall: "node scripts/install-notice.mjs" },
          }),
        );
        const run = spawnSync("/usr/bin/npm", ["install", "--no-audit", "--no-fund"], {
          cwd: project,
          env: { PATH: "/usr/bin:/bin", HOME: project },
          encoding: "utf8",
          timeout: 120_000,
        });
        expect(run.status, run.stderr).toBe(0);
        const output = `${run.stdout}\n${run.stderr}`;
        expect(output).toContain("npm warn EBADENGINE Unsupported engine");
        expect(output).toContain(`npm runs on Node ${systemNode} here`);
        expect(run.stderr.indexOf("notify: npm runs on Node")).toBeGreaterThan(
          run.stderr.lastIndexOf("npm warn EBADENGINE"),
        );
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
  );
});
