#!/usr/bin/env node
// Adds lockfile entries for optional platform packages that this machine's registry does not serve.
//
// Packages such as Biome or Rolldown list one optional dependency per platform (`@biomejs/cli-darwin-arm64`, ...).
// The registry reached here serves only the Linux builds, so `npm install` writes a lockfile without the others, and
// `npm ci` then refuses it ("Missing: ... from lock file"). Each missing entry gets the platform fields its name
// states (os, cpu, libc) and is marked optional: `npm ci` skips it on every other platform without fetching, and on
// its own platform fetches it by name and version. Run after any change to package-lock.json:
//   node scripts/complete-lockfile.mjs            (rewrites package-lock.json, prints what it added to stderr)
//   node scripts/complete-lockfile.mjs --check    (exit 1 when an entry is missing; CI runs this)
import { readFileSync, writeFileSync } from "node:fs";

const OS = ["darwin", "linux", "win32", "android", "freebsd", "openbsd", "netbsd", "sunos", "aix", "openharmony"];
const CPU = ["x64", "arm64", "arm", "ia32", "ppc64", "s390x", "riscv64", "loong64", "wasm32", "mips64el"];

/** os, cpu and libc from a platform package's name, e.g. `cli-linux-x64-musl`; undefined when it names none. */
function platformOf(name) {
  // OpenCode names its Windows builds `opencode-windows-x64`: Node's platform for that is win32.
  const parts = name
    .split("/")
    .pop()
    .split("-")
    .map((part) => (part === "windows" ? "win32" : part));
  const os = parts.find((part) => OS.includes(part));
  const cpu = parts.find((part) => CPU.includes(part));
  if (!os || !cpu) return undefined;
  const fields = { os: [os], cpu: [cpu] };
  if (parts.includes("musl")) fields.libc = ["musl"];
  else if (os === "linux" && parts.includes("gnu")) fields.libc = ["glibc"];
  return fields;
}

const check = process.argv.includes("--check");
const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const added = [];
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === "" ? "" : `${location}/`;
    const candidates = [`${base}node_modules/${name}`, `node_modules/${name}`];
    if (candidates.some((candidate) => lock.packages[candidate])) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    // Platform packages are published in lockstep with their parent, pinned to its exact version.
    const version = /^\d+\.\d+\.\d+/.test(range) ? range : entry.version;
    // Written in the key order npm itself uses, so a later `npm install` leaves these entries as they are.
    lock.packages[`node_modules/${name}`] = {
      version,
      cpu: platform.cpu,
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: platform.libc } : {}),
      optional: true,
      os: platform.os,
    };
    added.push(`${name}@${version}`);
  }
}
if (check) {
  if (added.length > 0) {
    process.stderr.write(
      `package-lock.json lacks ${added.length} optional platform entries (run node scripts/complete-lockfile.mjs):\n  ${added.join("\n  ")}\n`,
    );
    process.exit(1);
  }
  process.exit(0);
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([left], [right]) =>
    left === "" ? -1 : right === "" ? 1 : left < right ? -1 : left > right ? 1 : 0,
  ),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stderr.write(
  added.length === 0 ? "package-lock.json complete\n" : `added ${added.length}:\n  ${added.join("\n  ")}\n`,
);
