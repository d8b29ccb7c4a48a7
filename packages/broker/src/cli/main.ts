#!/usr/bin/env node

/**
 * The `notify` entry, and the only place that ends the process (through process.exitCode). stdout carries data,
 * stderr messages.
 *
 * It loads nothing before it knows the command (issue 33, item 2): agents run `notify hook <agent> <event>` on every
 * tool call, so `hook` runs from one bundled file (hook-line.ts, built into hook-line.cjs by scripts/bundle.mjs),
 * with no commander, no schemas and no server code, and `--version` loads nothing at all. Every other command line,
 * and a `hook` line the light parser leaves alone (`--help`, an unknown option), goes through commander
 * (program.ts), each command loading only its own modules.
 */

import type * as Fs from "node:fs";

/** The bundle beside this file, and its built form's unbundled twin, used when the bundle is missing or stale. */
const HOOK_BUNDLE = "./hook-line.cjs";
const HOOK_MODULE = "./hook-line.js";

interface HookLine {
  runHookLine(args: string[]): Promise<number> | undefined;
}

/** node:sqlite needs Node >= 22.13 without flags; say so instead of failing on a missing built-in module. */
function nodeIsRecentEnough(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

/**
 * Said when the CLI finds itself on an older Node: the `notify` launcher found no pinned Node (an install whose
 * `node` package did not run its install script), or the CLI file was started with another Node. The advice works
 * outside a checkout too (docs/install.md, "Which Node runs notify").
 */
function oldNodeAdvice(version: string = process.version, execPath: string = process.execPath): string {
  return (
    `notify: Node.js >= 22.13 is required, and this is ${version} (${execPath}).\n` +
    "notify:   An installed notify runs on the Node its @notify/runtime package carries; it is missing here, so\n" +
    "notify:   install Notify again (docs/install.md, Installing), or put a Node >= 22.13 first on PATH\n" +
    "notify:   (`npm install -g node@24` puts one in npm's prefix). In a checkout: npm start, npx notify.\n"
  );
}

/**
 * Built-in modules through process.getBuiltinModule rather than `import`: an ESM import of node:fs builds its whole
 * namespace, which loads fs/promises and the stream modules this path never uses.
 */
const fs = (): typeof Fs => process.getBuiltinModule("node:fs");

/** This package's version (as version.ts reads it), without loading anything else. */
function version(): string {
  try {
    const parsed = JSON.parse(fs().readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof parsed.version === "string" ? parsed.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * The bundle, unless a build changed one of the files it was made from after it (a checkout where `tsc -b` ran
 * without `npm run build`): then the modules themselves, which behave the same and load slower. An installed
 * package's files are the ones it was packed with (scripts/pack.mjs bundles first), so it is not checked there.
 */
async function loadHookLine(): Promise<HookLine> {
  try {
    const bundle = new URL(HOOK_BUNDLE, import.meta.url);
    const loaded = process.getBuiltinModule("node:module").createRequire(import.meta.url)(HOOK_BUNDLE) as HookLine & {
      bundleInputs?: string[];
    };
    if (installed(bundle) || isFresh(bundle, loaded.bundleInputs ?? [])) return loaded;
  } catch {
    // No bundle (a build without the bundling step): the modules.
  }
  return (await import(HOOK_MODULE)) as HookLine;
}

const installed = (file: URL): boolean => /\/node_modules\/@notify\/broker\//.test(file.pathname);

function isFresh(bundle: URL, inputs: string[]): boolean {
  const { statSync } = fs();
  const builtAt = statSync(bundle).mtimeMs;
  return inputs.every((input) => {
    const modified = statSync(new URL(input, bundle), { throwIfNoEntry: false })?.mtimeMs;
    return modified === undefined || modified <= builtAt;
  });
}

async function main(args: string[]): Promise<number> {
  if (!nodeIsRecentEnough()) {
    process.stderr.write(oldNodeAdvice());
    return 1;
  }
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (args[0] === "hook") {
    const status = (await loadHookLine()).runHookLine(args.slice(1));
    if (status !== undefined) return await status;
  }
  // Before any command's modules load, commander's included.
  (await import("./compile-cache.js")).enableCompileCache();
  return (await import("./program.js")).runProgram(process.argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 1;
  },
);
