#!/usr/bin/env node
// Packs the packages a user installs into tarballs that `npm install -g` installs with a Node >= 22.13, with their
// dependencies from the registry and nothing compiled at install (docs/install.md): @notify/broker (`notify`, with the
// web UI's built files in ui/), @notify/relay (`notify-relay`, with the phone app's in app/), and the two packages
// they import, @notify/contracts and @notify/router. Installed together, the four resolve one another as siblings in
// the global prefix, as they will from the registry once published. (Bundling the two into the others instead makes
// npm leave their dependencies as empty directories and turn an optional addon's failed build into a fatal one.)
//
// Usage: node scripts/pack.mjs [--out DIR]   (after `npm run build`; prints each tarball's path on stdout)
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outIndex = process.argv.indexOf("--out");
const out = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(root, ".tmp", "packed"));

/**
 * The published packages, in dependency order, the built front end each serves, and extra folders shipped as they
 * are (the relay's systemd unit and Caddyfile, docs/relay.md "Deploy on a Debian host").
 */
const PACKAGES = [
  { dir: "contracts" },
  { dir: "router" },
  { dir: "broker", assets: { from: "web/dist", to: "ui" } },
  { dir: "relay", assets: { from: "phone/dist", to: "app" }, extra: ["deploy"] },
];

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

/** dist/ without source maps and build info: what runs, nothing a user's disk does not need. */
function copyDist(from, to) {
  if (!existsSync(join(from, "dist"))) fail(`${from}/dist is missing: run \`npm run build\` first`);
  cpSync(join(from, "dist"), join(to, "dist"), {
    recursive: true,
    filter: (source) => !source.endsWith(".map") && !source.endsWith(".tsbuildinfo"),
  });
}

/** A package.json as published: no workspace-only fields, runtime dependencies only. */
function publishedManifest(manifest, extra = {}) {
  const { private: _private, devDependencies: _dev, scripts: _scripts, ...rest } = manifest;
  return { ...rest, ...extra };
}

function stage(spec, stagingRoot) {
  const source = join(root, "packages", spec.dir);
  const manifest = readJson(join(source, "package.json"));
  const staged = join(stagingRoot, spec.dir);
  mkdirSync(staged, { recursive: true });
  copyDist(source, staged);
  const files = ["dist"];
  if (existsSync(join(source, "bin"))) {
    cpSync(join(source, "bin"), join(staged, "bin"), { recursive: true });
    files.push("bin");
  }
  for (const folder of spec.extra ?? []) {
    cpSync(join(source, folder), join(staged, folder), { recursive: true });
    files.push(folder);
  }
  if (spec.assets !== undefined) {
    const assets = join(root, "packages", spec.assets.from);
    if (!existsSync(join(assets, "index.html"))) fail(`${spec.assets.from} is not built: run \`npm run build\` first`);
    cpSync(assets, join(staged, spec.assets.to), { recursive: true });
    files.push(spec.assets.to);
  }
  const published = publishedManifest(manifest, { files, license: manifest.license ?? "UNLICENSED" });
  writeFileSync(join(staged, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  writeFileSync(join(staged, "README.md"), readme(published));
  return staged;
}

function readme(manifest) {
  return `# ${manifest.name}\n\n${manifest.description}\n\nPart of Notify; see docs/install.md in its repository.\n`;
}

mkdirSync(out, { recursive: true });
const stagingRoot = mkdtempSync(join(tmpdir(), "notify-pack-"));
try {
  for (const spec of PACKAGES) {
    const staged = stage(spec, stagingRoot);
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
        cwd: staged,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    )[0];
    const file = join(out, packed.filename);
    process.stderr.write(
      `pack: ${packed.name}@${packed.version}: ${(statSync(file).size / 1024).toFixed(0)} KiB packed, ` +
        `${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${packed.entryCount} files\n`,
    );
    process.stdout.write(`${file}\n`);
  }
} finally {
  rmSync(stagingRoot, { recursive: true, force: true });
}
