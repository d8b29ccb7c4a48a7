#!/usr/bin/env node
// Packs the packages a user installs into tarballs that `npm install -g` installs with any Node >= 18 on PATH, with
// their dependencies from the registry and nothing compiled at install (docs/install.md): @notify/broker (`notify`,
// with the web UI's built files in ui/), @notify/relay (`notify-relay`, with the phone app's in app/), the two
// packages they import, @notify/contracts and @notify/router, and @notify/runtime, made here, which carries the Node
// they run on (the repository's pinned `node` package, at the lockfile's exact version). Installed together, the five
// resolve one another as siblings in the global prefix, as they will from the registry once published. (Bundling
// them into one another instead makes npm leave their dependencies as empty directories and turn an optional addon's
// failed build into a fatal one.)
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
 * The published packages, in dependency order, the built front end each serves, extra folders shipped as they are
 * (the relay's systemd unit and Caddyfile, docs/relay.md "Deploy on a Debian host"), and whether its commands run
 * on the pinned Node (their bin/ launchers find it through @notify/runtime).
 */
const PACKAGES = [
  { dir: "contracts" },
  { dir: "router" },
  { dir: "broker", assets: { from: "web/dist", to: "ui" }, runtime: true },
  { dir: "relay", assets: { from: "phone/dist", to: "app" }, extra: ["deploy"], runtime: true },
];

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

/**
 * What installing the packages needs: npm, and a `node` on PATH for the `node` package's install script. Their code
 * runs on the pinned Node the launchers start, so the Node >= 22.13 the workspace manifests ask for is not asked of
 * the user's Node (docs/install.md, "Which Node runs notify"); npm then warns only about dependencies' engines.
 */
const PUBLISHED_ENGINES = { node: ">=18" };

/** The pinned Node: the exact version of the root's devDependency `node` in package-lock.json. */
function pinnedNodeVersion() {
  const version = readJson(join(root, "package-lock.json")).packages?.["node_modules/node"]?.version;
  if (typeof version !== "string") fail("package-lock.json has no node_modules/node: run `npm install` first");
  return version;
}

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

/**
 * @notify/runtime, which exists only as a tarball: the `node` package (its install script fetches that Node's
 * binary for this platform from the registry). One package that both commands depend on, so installing the broker
 * and the relay together puts one Node on disk, not two.
 */
function stageRuntime(stagingRoot, version) {
  const staged = join(stagingRoot, "runtime");
  mkdirSync(staged, { recursive: true });
  const manifest = {
    name: "@notify/runtime",
    version,
    description: "The Node.js that notify and notify-relay run on, whatever Node is on PATH",
    license: "UNLICENSED",
    files: [],
    dependencies: { node: pinnedNodeVersion() },
  };
  writeFileSync(join(staged, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(staged, "README.md"), readme(manifest));
  return staged;
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
  const published = publishedManifest(manifest, {
    files,
    license: manifest.license ?? "UNLICENSED",
    engines: PUBLISHED_ENGINES,
    ...(spec.runtime ? { dependencies: { ...manifest.dependencies, "@notify/runtime": manifest.version } } : {}),
  });
  writeFileSync(join(staged, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  writeFileSync(join(staged, "README.md"), readme(published));
  return staged;
}

function readme(manifest) {
  return `# ${manifest.name}\n\n${manifest.description}\n\nPart of Notify; see docs/install.md in its repository.\n`;
}

/**
 * The CLI's bundled light entries (packages/broker/scripts/bundle.mjs), made again from dist/ as it is now: an
 * installed package runs its bundle without checking it against the files it came from.
 */
function bundleCli() {
  if (!existsSync(join(root, "packages", "broker", "dist", "cli", "hook-line.js"))) {
    fail("packages/broker/dist is missing: run `npm run build` first");
  }
  const pinned = join(root, "node_modules", "node", "bin", "node");
  const script = join(root, "packages", "broker", "scripts", "bundle.mjs");
  execFileSync(existsSync(pinned) ? pinned : process.execPath, [script], { stdio: ["ignore", "inherit", "inherit"] });
}

mkdirSync(out, { recursive: true });
bundleCli();
const stagingRoot = mkdtempSync(join(tmpdir(), "notify-pack-"));
try {
  const version = readJson(join(root, "packages", "broker", "package.json")).version;
  const staged = [stageRuntime(stagingRoot, version)];
  for (const spec of PACKAGES) staged.push(stage(spec, stagingRoot));
  for (const dir of staged) {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
        cwd: dir,
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
