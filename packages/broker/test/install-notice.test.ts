// Issue 21, item 23: `npm install` on a system Node 20 printed 75 lines of EBADENGINE warnings that read like a
// failure. npm cannot silence that warning alone (its engine check reads process.version, and loglevel would hide
// every other warning too), so the root preinstall explains them. Its notice is checked for each Node npm may run
// on, and, where the system has an older Node and npm, in a real `npm install` of a throwaway project: the notice
// comes right under the warnings, and nothing else is hidden. Issue 32, item 7: the number of warnings the notice
// and the README give is what `npm ci` of this checkout prints today, and the notice names npm's allowScripts list.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    // Issue 32, item 7: the count, and npm 11.16's allowScripts list that follows at the very end.
    expect(old.stderr).toMatch(/warnings above \(\d+ blocks with npm 11 on Node 20\)/);
    expect(old.stderr).toContain('"install scripts not yet covered by\nnotify:   allowScripts": expected too');
    expect(notice("npm/10.9.0 node/v22.12.0 linux x64").stderr).toContain("Node 22.12.0");
    for (const agent of ["npm/11.6.0 node/v24.21.0 linux x64", "npm/10.9.0 node/v22.13.0 darwin arm64", ""]) {
      expect(notice(agent), agent).toEqual({ code: 0, stdout: "", stderr: "" });
    }
  });

  const systemNode = spawnSync("/usr/bin/node", ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim();
  const systemNpm = spawnSync("/usr/bin/npm", ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
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

  const node20npm11 = systemNode?.startsWith("20.") === true && systemNpm.startsWith("11.");
  if (!node20npm11) console.warn("*** SKIPPING the EBADENGINE count: the system has no Node 20 with npm 11 ***");

  it.runIf(node20npm11)(
    "the count the notice and the README give is what npm ci of this checkout prints on Node 20 (issue 32, item 7)",
    () => {
      // The checkout's manifests and lockfile, and the notice as the preinstall; no build (the prepare script).
      // --dry-run prints the same EBADENGINE blocks a real `npm ci` prints (17 in both on 2026-11-27), in 3 s.
      const project = mkdtempSync(join(tmpdir(), "notify-install-count-"));
      try {
        const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
        manifest.scripts = { preinstall: manifest.scripts.preinstall };
        writeFileSync(join(project, "package.json"), JSON.stringify(manifest));
        copyFileSync(join(ROOT, "package-lock.json"), join(project, "package-lock.json"));
        for (const name of readdirSync(join(ROOT, "packages"))) {
          mkdirSync(join(project, "packages", name), { recursive: true });
          copyFileSync(join(ROOT, "packages", name, "package.json"), join(project, "packages", name, "package.json"));
        }
        mkdirSync(join(project, "scripts"));
        copyFileSync(NOTICE, join(project, "scripts", "install-notice.mjs"));
        const run = spawnSync("/usr/bin/npm", ["ci", "--dry-run", "--no-audit", "--no-fund"], {
          cwd: project,
          env: { PATH: "/usr/bin:/bin", HOME: project, npm_config_update_notifier: "false" },
          encoding: "utf8",
          timeout: 120_000,
        });
        expect(run.status, run.stderr).toBe(0);
        const blocks = run.stderr.match(/^npm warn EBADENGINE Unsupported engine \{$/gm)?.length ?? 0;
        expect(blocks).toBeGreaterThan(0);
        expect(run.stderr).toContain(`warnings above (${blocks} blocks with npm 11 on Node 20)`);
        const readme = readFileSync(join(ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
        expect(readme).toContain(`(${blocks} blocks, ${blocks * 5} lines, with npm 11 on Node 20`);
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
