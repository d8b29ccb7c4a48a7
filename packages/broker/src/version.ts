import { readFileSync } from "node:fs";

/** Product version string, read once from this package's package.json (dist/version.js -> ../package.json). */
export const VERSION: string = (() => {
  try {
    const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
    const parsed = JSON.parse(text) as { version?: unknown };
    return typeof parsed.version === "string" ? parsed.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

export const API_VERSION = "v1";
