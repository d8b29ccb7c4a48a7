import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

describe("package-lock.json installs with npm ci (issue 10, item 10)", () => {
  it("holds an entry for every optional platform package its packages declare", () => {
    // `npm ci` refuses a lockfile that lacks one ("Missing: ... from lock file"); --check exits 1 then.
    const output = execFileSync(process.execPath, ["scripts/complete-lockfile.mjs", "--check"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output).toBe("");
  });
});
