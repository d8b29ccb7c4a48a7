import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDirs, tempDir } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codex } from "../hooks/fixtures.js";
import { CLI, cliEnv } from "./cli-harness.js";

// Issue 33, item 2: the process an agent starts on every tool call loads what its command needs and nothing else.
// What a process loaded is read from inside it (module.registerHooks sees every import and require, and
// process.moduleLoadList every built-in module), not timed: figures are bench/hooks/process-cost.mjs's.

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const BROKER = join(REPO, "packages", "broker");

/** Loaded before the CLI; writes what the CLI loaded to $TRACE_OUT at exit. Built-ins without `import`, which loads more. */
const TRACER = `
const { registerHooks } = process.getBuiltinModule("node:module");
const { writeFileSync } = process.getBuiltinModule("node:fs");
const before = new Set(process.moduleLoadList);
const files = [];
registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith("file:")) files.push(url);
    return nextLoad(url, context);
  },
});
process.on("exit", () => {
  const builtins = process.moduleLoadList.filter((name) => !before.has(name));
  writeFileSync(process.env.TRACE_OUT, JSON.stringify({ files, builtins }));
});
`;

interface Trace {
  code: number | null;
  stdout: string;
  stderr: string;
  /** file: URLs of every module the CLI loaded, in order. */
  files: string[];
  /** Node's own modules loaded after start ("NativeModule crypto"). */
  builtins: string[];
}

let work: string;
let tracer: string;
let dataDir: string;

beforeAll(() => {
  // The bundle made from dist/ as it is now (npm run build makes it; a `tsc -b` since may have left it behind).
  execFileSync(process.execPath, [join(BROKER, "scripts", "bundle.mjs")], { stdio: "inherit" });
  work = tempDir("notify-light-entry-");
  tracer = join(work, "tracer.mjs");
  writeFileSync(tracer, TRACER);
  // A data dir the broker has run in once (a token), and no hook question ever opened: nothing to ask the broker.
  dataDir = join(work, "data");
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(join(dataDir, "config.json"), JSON.stringify({ authToken: "t".repeat(43), port: 9 }), {
    mode: 0o600,
  });
});
afterAll(removeTempDirs);

function traced(main: string, args: string[], stdin = ""): Promise<Trace> {
  const out = join(work, `trace-${Math.random().toString(36).slice(2)}.json`);
  const child = spawn(process.execPath, ["--import", tracer, main, ...args], {
    env: cliEnv({ NOTIFY_DATA_DIR: dataDir, TRACE_OUT: out }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      const { files, builtins } = JSON.parse(readFileSync(out, "utf8")) as Pick<Trace, "files" | "builtins">;
      resolve({ code, stdout, stderr, files, builtins });
    });
  });
}

const postToolUse = JSON.stringify(codex.postToolUseBash.input);
const relative = (files: string[], root: string): string[] => files.map((url) => fileURLToPath(url).slice(root.length));

/** What no hook that only reports needs: schemas, the server, the router, commander, crypto, streams, sockets. */
function expectNothingHeavy(trace: Trace): void {
  expect(trace.files.filter((url) => /\/(zod|fastify|commander|@notify\/router|router\/dist)\//.test(url))).toEqual([]);
  expect(
    trace.builtins.filter((name) => /^NativeModule (crypto|stream|net|tty|internal\/fs\/promises)$/.test(name)),
  ).toEqual([]);
}

describe("the light entry (issue 33, item 2)", () => {
  it("notify hook codex PostToolUse runs from main.js and its bundle alone", async () => {
    const trace = await traced(CLI, ["hook", "codex", "PostToolUse"], postToolUse);
    expect(trace).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(relative(trace.files, BROKER)).toEqual(["/dist/cli/main.js", "/dist/cli/hook-line.cjs"]);
    expectNothingHeavy(trace);
  });

  it("notify --version loads nothing but main.js", async () => {
    const trace = await traced(CLI, ["--version"]);
    const { version } = JSON.parse(readFileSync(join(BROKER, "package.json"), "utf8")) as { version: string };
    expect(trace).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
    expect(relative(trace.files, BROKER)).toEqual(["/dist/cli/main.js"]);
  });

  it("a hook line the light parser leaves alone goes to commander, with its words", async () => {
    const trace = await traced(CLI, ["hook", "codex"], postToolUse);
    expect(trace.code).toBe(1);
    expect(trace.stderr).toContain("error: missing required argument 'event'");
    expect(trace.files.some((url) => url.includes("/node_modules/commander/"))).toBe(true);
  });

  describe("a copy of the package", () => {
    /** packages/broker and packages/contracts (dist and manifest) under `root`, with the checkout's node_modules. */
    function copyPackages(root: string, brokerDir: string, contractsDir: string): string {
      for (const [from, to] of [
        [BROKER, brokerDir],
        [join(REPO, "packages", "contracts"), contractsDir],
      ] as const) {
        cpSync(join(from, "dist"), join(to, "dist"), { recursive: true });
        cpSync(join(from, "package.json"), join(to, "package.json"));
      }
      symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"));
      return join(brokerDir, "dist", "cli", "main.js");
    }

    /** A file the bundle was made from, rebuilt after it (as a `tsc -b` without `npm run build` leaves it). */
    function rebuildAfterBundle(brokerDir: string): void {
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(brokerDir, "dist", "hooks", "run-hook.js"), later, later);
    }

    it("a checkout whose bundle is older than a file it was made from runs the modules instead, alike", async () => {
      const root = join(work, "checkout");
      const brokerDir = join(root, "packages", "broker");
      const main = copyPackages(root, brokerDir, join(root, "packages", "contracts"));
      rebuildAfterBundle(brokerDir);
      const trace = await traced(main, ["hook", "codex", "PostToolUse"], postToolUse);
      expect(trace).toMatchObject({ code: 0, stdout: "", stderr: "" });
      expect(relative(trace.files, brokerDir)).toContain("/dist/hooks/run-hook.js");
      expect(relative(trace.files, brokerDir)).toContain("/dist/cli/hook-line.js");
    });

    it("an installed package runs its bundle as packed", async () => {
      const root = join(work, "prefix", "lib");
      const brokerDir = join(root, "node_modules", "@notify", "broker");
      const main = copyPackages(join(work, "prefix"), brokerDir, join(root, "node_modules", "@notify", "contracts"));
      rebuildAfterBundle(brokerDir);
      const trace = await traced(main, ["hook", "codex", "PostToolUse"], postToolUse);
      expect(trace).toMatchObject({ code: 0, stdout: "", stderr: "" });
      expect(relative(trace.files, brokerDir)).toEqual(["/dist/cli/main.js", "/dist/cli/hook-line.cjs"]);
    });
  });
});
