// What bench/hooks/cost.mjs is made of: the process runner (rusage-runner.py), a broker that reports each request's
// accepted-to-answered time (broker-timing.mjs), the hooks a `notify hooks install` writes, and the summaries.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BENCH_DIR, percentile, REPO_ROOT, stopChild } from "../broker/lib.mjs";

export const HOOKS_BENCH_DIR = join(BENCH_DIR, "..", "hooks");
export const NODE = process.execPath;

/** The runner: one request at a time, answered in order. */
export function startRunner() {
  const child = spawn("python3", [join(HOOKS_BENCH_DIR, "rusage-runner.py")], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = [];
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.resolve(JSON.parse(line)));
  child.once("exit", (code) => {
    for (const entry of waiting.splice(0)) entry.reject(new Error(`the process runner exited (${code})`));
  });
  const ask = (request) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify(request)}\n`);
    }).then((answer) => {
      if (answer.error) throw new Error(`process runner: ${answer.error}`);
      return answer;
    });
  return { ask, stop: () => stopChild(child, 2_000) };
}

/** The broker's request timings, as they arrive on fd 3 (broker-timing.mjs), with waiters for the next match. */
class Timings {
  /** Requests answered, in the order their answers went out. */
  lines = [];
  /** Every request accepted, answered or not. */
  starts = [];
  waiters = [];

  push(line) {
    const entry = JSON.parse(line);
    entry.startNs = BigInt(entry.startNs);
    if (entry.phase === "start") {
      this.starts.push(entry);
      return;
    }
    entry.endNs = BigInt(entry.endNs);
    this.lines.push(entry);
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(entry)) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      clearTimeout(waiter.timer);
      waiter.resolve(entry);
    }
  }

  /** The first request (already seen or still to come) that `match` accepts, within `timeoutMs`. */
  next(match, what, timeoutMs = 60_000) {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve };
      waiter.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no ${what} at the broker within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The requests accepted in [fromNs, toNs], answered or not. */
  between(fromNs, toNs) {
    return this.starts.filter((entry) => entry.startNs >= fromNs && entry.startNs <= toNs);
  }

  /** The answered requests accepted in [fromNs, toNs]. */
  answeredBetween(fromNs, toNs) {
    return this.lines.filter((entry) => entry.startNs >= fromNs && entry.startNs <= toNs);
  }
}

function cleanEnv() {
  const env = { ...process.env };
  for (const name of ["NOTIFY_TOKEN", "NOTIFY_PORT", "NOTIFY_DATA_DIR", "NOTIFY_HOOK_TOKEN"]) delete env[name];
  return env;
}

/**
 * `notify serve --port 0` (this checkout's, or another built one's) on a fresh data dir, with broker-timing.mjs loaded: `timings` holds
 * every request it served, accepted to answered, on CLOCK_MONOTONIC.
 */
export async function startTimedBroker(root, checkout = REPO_ROOT) {
  const dataDir = join(root, "data");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString("base64url");
  writeFileSync(
    join(dataDir, "config.json"),
    `${JSON.stringify({ authToken: token, rateLimitPerSecond: 1_000_000 }, null, 2)}\n`,
    { mode: 0o600 },
  );
  const cli = join(checkout, "packages", "broker", "dist", "cli", "main.js");
  const preload = join(HOOKS_BENCH_DIR, "broker-timing.mjs");
  // The served broker's V8 flag given here, as a service gives it: the broker does not re-execute itself, which
  // would lose the timing pipe.
  const flags = ["--max-semi-space-size=4", "--import", preload];
  const child = spawn(NODE, [...flags, cli, "serve", "--port", "0", "--data-dir", dataDir], {
    cwd: REPO_ROOT,
    env: { ...cleanEnv(), BENCH_BROKER_TIMING_FD: "3" },
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  const timings = new Timings();
  createInterface({ input: child.stdio[3] }).on("line", (line) => timings.push(line));
  const log = [];
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker: not listening within 30 s\n${log.join("\n")}`)), 30_000);
    createInterface({ input: child.stderr }).on("line", (line) => {
      log.push(line);
      if (log.length > 200) log.shift();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`broker exited early (${code})\n${log.join("\n")}`)));
  });
  return {
    child,
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    token,
    dataDir,
    timings,
    log,
    stop: () => stopChild(child),
  };
}

/** Splits a POSIX shell command line as `shellQuote` (hooks/install/entries.ts) writes it: words and '...' only. */
export function shellWords(command) {
  const words = [];
  let word;
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i];
    if (c === " ") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated quote in ${command}`);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (c === "\\") {
      word = (word ?? "") + command[i + 1];
      i += 1;
    } else if (/["$`;&|<>()*?]/.test(c)) {
      throw new Error(`not a plain command line: ${command}`);
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * Runs `notify hooks install claude-code` of a checkout (this one or a baseline) in a sandbox HOME, against the
 * bench's broker, and returns the settings it wrote with, for each event, the command's words (command hooks).
 */
export function installHooks(checkout, home, broker, kindArgs) {
  const cli = join(checkout, "packages", "broker", "bin", "notify");
  const args = [
    "hooks",
    "install",
    "claude-code",
    ...kindArgs,
    "--port",
    String(broker.port),
    "--data-dir",
    broker.dataDir,
  ];
  const run = spawnSync(cli, args, { env: { ...cleanEnv(), HOME: home }, encoding: "utf8", timeout: 60_000 });
  if (run.status !== 0) throw new Error(`${cli} ${args.join(" ")} failed: ${run.stderr}`);
  const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
  const commands = {};
  const kinds = {};
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    for (const group of groups) {
      for (const hook of group.hooks ?? []) {
        kinds[event] = hook.type;
        if (hook.type === "command") commands[event] = shellWords(hook.command);
      }
    }
  }
  return { settings, commands, kinds };
}

/** A temp dir for one run of the bench. */
export const benchRoot = () => mkdtempSync(join(tmpdir(), "notify-bench-hook-cost-"));

const round = (value, digits = 1) => (Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null);

/** Median, p95 and mean of a list of numbers (nearest-rank, as the other benches). */
export function stats(samples, digits = 1) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50), digits),
    p95: round(percentile(sorted, 95), digits),
    mean: round(sorted.length ? sum / sorted.length : Number.NaN, digits),
    min: round(sorted.length ? sorted[0] : Number.NaN, digits),
    max: round(sorted.length ? sorted[sorted.length - 1] : Number.NaN, digits),
  };
}

export const nsToMs = (ns) => Number(ns) / 1e6;
