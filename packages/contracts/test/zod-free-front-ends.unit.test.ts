import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Issue 23, part 2: the web page and the phone app ship no zod. They may import any contracts subpath for its
 * types (erased by the build), but values only from subpaths whose modules load no zod. Measured on the built
 * bundles in bench/README.md ("JS shipped").
 */

const here = dirname(fileURLToPath(import.meta.url));
const packages = resolve(here, "../..");
const contractsSrc = resolve(here, "../src");
const exportsMap = JSON.parse(readFileSync(resolve(here, "../package.json"), "utf8")).exports as Record<
  string,
  { default: string }
>;

/** `./dist/ui/constants.js` -> the source file it is built from. */
const sourceOf = (distPath: string): string =>
  join(contractsSrc, distPath.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));

/** Every module specifier a source file imports or re-exports at run time (not `import type`/`export type`). */
function runtimeSpecifiers(text: string): string[] {
  const found: string[] = [];
  const statement = /^(import|export)\s+(type\s+)?([^;]*?)\s+from\s+"([^"]+)";/gms;
  for (const match of text.matchAll(statement)) {
    if (match[2]) continue;
    const names = match[3] ?? "";
    // `import { type A, type B } from` is erased too.
    const braces = /^\{([^}]*)\}$/s.exec(names.trim());
    if (braces?.[1]?.split(",").every((name) => name.trim() === "" || name.trim().startsWith("type "))) continue;
    found.push(match[4] as string);
  }
  for (const match of text.matchAll(/^import\s+"([^"]+)";/gm)) found.push(match[1] as string);
  return found;
}

/** The bare packages a contracts module loads, following its relative imports. */
function packagesLoaded(file: string, seen = new Set<string>()): Set<string> {
  const loaded = new Set<string>();
  if (seen.has(file)) return loaded;
  seen.add(file);
  for (const specifier of runtimeSpecifiers(readFileSync(file, "utf8"))) {
    if (specifier.startsWith(".")) {
      for (const name of packagesLoaded(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")), seen)) {
        loaded.add(name);
      }
    } else {
      loaded.add(specifier);
    }
  }
  return loaded;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const zodFree = (subpath: string): boolean => {
  const target = exportsMap[subpath];
  return target !== undefined && !packagesLoaded(sourceOf(target.default)).has("zod");
};

describe("front ends ship no zod (issue 23)", () => {
  it("the constants subpaths load no zod", () => {
    for (const subpath of [
      "./ui-constants",
      "./routing-summary",
      "./ui-timeline-words",
      "./relay-version",
      "./relay-payloads",
      "./text",
    ]) {
      expect({ subpath, zodFree: zodFree(subpath) }).toEqual({ subpath, zodFree: true });
    }
    // The check itself sees zod where it is.
    expect(zodFree("./ui")).toBe(false);
    expect(zodFree("./relay-schemas")).toBe(false);
  });

  for (const app of ["web", "phone"]) {
    it(`${app} takes values only from zod-free contracts subpaths`, () => {
      const offending: string[] = [];
      for (const file of sourceFiles(join(packages, app, "src"))) {
        for (const specifier of runtimeSpecifiers(readFileSync(file, "utf8"))) {
          if (specifier === "zod") offending.push(`${file}: zod`);
          if (!specifier.startsWith("@notify/contracts")) continue;
          const subpath = `.${specifier.slice("@notify/contracts".length)}`;
          if (!zodFree(subpath === "." ? "." : subpath)) offending.push(`${file}: ${specifier}`);
        }
      }
      expect(offending).toEqual([]);
    });
  }
});
