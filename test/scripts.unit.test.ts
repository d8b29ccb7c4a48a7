import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The root scripts run what they name against a fresh build (issue 31, item 10: `npm run test:unit` ran against a
// stale dist/ of @notify/contracts after a change to it), and type-check every test folder there is.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts;

describe("the root package.json scripts", () => {
  it.each(["test", "test:unit", "test:e2e"])("%s builds the packages (tsc -b) before it runs a test", (name) => {
    expect(scripts[name]).toMatch(/^tsc -b && /);
  });

  it("typecheck:tests covers every test folder", () => {
    const folders = readdirSync(join(ROOT, "packages"))
      .filter((name) => existsSync(join(ROOT, "packages", name, "test", "tsconfig.json")))
      .map((name) => `packages/${name}/test`);
    const checked = [...(scripts["typecheck:tests"] ?? "").matchAll(/tsc -p (\S+)/g)].map((match) => match[1]);
    expect(checked.sort()).toEqual(["test", ...folders].sort());
  });
});
