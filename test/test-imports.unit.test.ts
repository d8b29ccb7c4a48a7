import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Tests stay in their package (issue 31, item 10; docs/testing.md, "What the suites share"): a file under
 * packages/<name>/test imports from its own package, from another package's public entry (`@notify/relay`), or from
 * the test kit, never another package's files by path (`../../../relay/test/processes.js`) nor by a deep package path
 * (`@notify/relay/test/...`). What two suites share goes to packages/test-kit.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = join(ROOT, "packages");
const SOURCE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
/** Every way a module is named: import/export ... from, a bare import, import(), require(), vi.mock and friends. */
const SPECIFIERS = [
  /\b(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\b(?:import|require|require\.resolve|vi\.mock|vi\.doMock|vi\.importActual|vi\.importMock)\s*\(\s*["'`]([^"'`]+)["'`]/g,
];
/** A deep path into a workspace package's own files rather than its exports. */
const DEEP = /^@notify\/[^/]+\/(?:test|src|dist|scripts)(?:\/|$)/;

/** The module specifiers `text` names. */
function specifiersOf(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) {
    for (const match of text.matchAll(pattern)) if (match[1] !== undefined) found.add(match[1]);
  }
  return [...found];
}

/** What in a test file of package `packageDir` reaches outside it: each offending specifier. */
function crossPackageImports(file: string, text: string, packageDir: string): string[] {
  return specifiersOf(text).filter((specifier) => {
    if (DEEP.test(specifier)) return true;
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) return false;
    const target = relative(packageDir, resolve(dirname(file), specifier));
    return target === ".." || target.startsWith(`..${sep}`);
  });
}

function testFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...testFiles(path));
    else if (SOURCE.test(entry.name)) files.push(path);
  }
  return files;
}

describe("tests stay in their package", () => {
  it("finds what reaches out, however it is written", () => {
    const packageDir = join(PACKAGES, "broker");
    const file = join(packageDir, "test", "routing", "example.test.ts");
    const text = [
      'import { spawnRelay } from "../../../relay/test/processes.js";',
      'import type { Json } from "../helpers.js";',
      'import { startBroker } from "../../src/broker.js";',
      'export { CHROMIUM_ARGS } from "../../../web/scripts/chromium.mjs";',
      'const late = await import("../../../relay/src/app.js");',
      'type T = typeof import("../../../contracts/src/index.js");',
      'import "../../../phone/test/setup.js";',
      'import { call } from "@notify/relay/test/processes.js";',
      'import { buildApp } from "@notify/relay";',
      'import { until } from "@notify/test-kit";',
      'import { readFileSync } from "node:fs";',
    ].join("\n");
    expect(crossPackageImports(file, text, packageDir)).toEqual([
      "../../../relay/test/processes.js",
      "../../../web/scripts/chromium.mjs",
      "@notify/relay/test/processes.js",
      "../../../phone/test/setup.js",
      "../../../relay/src/app.js",
      "../../../contracts/src/index.js",
    ]);
  });

  it("no test file of any package imports another package's files", () => {
    const offending: string[] = [];
    let scanned = 0;
    for (const name of readdirSync(PACKAGES)) {
      const packageDir = join(PACKAGES, name);
      let files: string[];
      try {
        files = testFiles(join(packageDir, "test"));
      } catch {
        continue; // no test folder
      }
      for (const file of files) {
        scanned += 1;
        for (const specifier of crossPackageImports(file, readFileSync(file, "utf8"), packageDir)) {
          offending.push(`${relative(ROOT, file)}: ${specifier}`);
        }
      }
    }
    expect(scanned).toBeGreaterThan(100);
    expect(offending).toEqual([]);
  });
});
