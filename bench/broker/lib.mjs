// Shared helpers for the broker benchmarks: child processes, /proc readings, percentiles, a tiny HTTP client.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(BENCH_DIR, "..", "..");
export const BROKER_CLI = join(REPO_ROOT, "packages", "broker", "dist", "cli", "main.js");

/** Progress goes to stderr; stdout carries only the summary. */
export function progress(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
}

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** p50/p90/p99/max/mean of a list of millisecond samples. */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted.length ? sorted[0] : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}

const CLOCK_TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux x86-64 / arm64

/** Fields of /proc/<pid>/status we care about, in kB. */
export function procMemory(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text);
    return match ? Number(match[1]) : Number.NaN;
  };
  return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
}

/** CPU seconds (user + system) a process has used so far. */
export function procCpuSeconds(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may contain spaces; fields after ") " start at field 3 (state).
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLOCK_TICKS_PER_SECOND;
}

/** CPU seconds all CPUs of the machine spent busy so far (/proc/stat, everything but idle and iowait). */
export function machineBusySeconds() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
}

/**
 * Machine-wide TCP counters from /proc/net/netstat: ListenOverflows/ListenDrops count connections dropped because
 * a listen (accept) queue was full, TCPSynRetrans the SYNs clients had to send again (1 s, then 3 s later).
 */
export function tcpCounters() {
  const lines = readFileSync("/proc/net/netstat", "utf8")
    .split("\n")
    .filter((line) => line.startsWith("TcpExt:"));
  const names = lines[0].trim().split(/\s+/);
  const values = lines[1].trim().split(/\s+/);
  const pick = (name) => Number(values[names.indexOf(name)]);
  return {
    listenOverflows: pick("ListenOverflows"),
    listenDrops: pick("ListenDrops"),
    synRetrans: pick("TCPSynRetrans"),
  };
}

export function counterDelta(before, after) {
  return Object.fromEntries(Object.keys(before).map((key) => [key, after[key] - before[key]]));
}

/** Number of open file descriptors of a process. */
export function procOpenFds(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

/** ESTABLISHED TCP sockets on 127.0.0.1 whose local port is `port` (the server side of each connection). */
export function establishedOnPort(port) {
  const text = readFileSync("/proc/net/tcp", "utf8");
  const wanted = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  let count = 0;
  for (const line of text.split("\n")) {
    // "  sl  local_address rem_address   st ..." -> local is column 1, state column 3
    const columns = line.trim().split(/\s+/);
    if (columns.length < 4) continue;
    if (columns[1].endsWith(wanted) && columns[3] === "01") count++;
  }
  return count;
}

/**
 * Waits until the process has used (almost) no CPU for `quietMs`: all queued work is handled. Bounded by
 * `maxMs`; returns how long it took.
 */
export async function waitForQuiet(pid, { quietMs = 300, stepMs = 100, maxMs = 15_000 } = {}) {
  const started = Date.now();
  let last = procCpuSeconds(pid);
  let quietSince = Date.now();
  while (Date.now() - started < maxMs) {
    await sleep(stepMs);
    const now = procCpuSeconds(pid);
    if (now - last > 0.01) quietSince = Date.now();
    last = now;
    if (Date.now() - quietSince >= quietMs) return Date.now() - started;
  }
  return Date.now() - started;
}

function cleanEnv() {
  const env = { ...process.env };
  for (const name of ["NOTIFY_TOKEN", "NOTIFY_PORT", "NOTIFY_DATA_DIR"]) delete env[name];
  return env;
}

/** Collects a child's output lines (the pipe must be drained or the child blocks on stderr writes). */
function captureLines(stream, keep = 200) {
  const lines = [];
  let partial = "";
  stream.setEncoding("utf8");
  const listeners = new Set();
  stream.on("data", (chunk) => {
    partial += chunk;
    let index = partial.indexOf("\n");
    while (index !== -1) {
      const line = partial.slice(0, index);
      partial = partial.slice(index + 1);
      lines.push(line);
      if (lines.length > keep) lines.shift();
      for (const listener of listeners) listener(line);
      index = partial.indexOf("\n");
    }
  });
  return { lines, onLine: (listener) => listeners.add(listener), offLine: (listener) => listeners.delete(listener) };
}

function waitForLine(capture, child, pattern, what, timeoutMs = 20_000) {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => fail(new Error(`${what}: no "${pattern}" line within ${timeoutMs} ms`)), timeoutMs);
    const onExit = (code, signal) => fail(new Error(`${what} exited early (code ${code}, signal ${signal})`));
    const onLine = (line) => {
      const match = pattern.exec(line);
      if (!match) return;
      cleanup();
      resolvePromise(match);
    };
    function cleanup() {
      clearTimeout(timer);
      capture.offLine(onLine);
      child.off("exit", onExit);
    }
    function fail(error) {
      cleanup();
      error.message += `\n--- last output of ${what} ---\n${capture.lines.join("\n")}`;
      reject(error);
    }
    capture.onLine(onLine);
    child.once("exit", onExit);
  });
}

/** Stops a child we started: SIGTERM, then SIGKILL after `graceMs`. */
export function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Starts `notify serve --port 0` as a child process on a fresh temp data dir whose config.json sets the token and
 * a rate limit high enough not to cap the benchmark. Resolves once the "listening on" line appears.
 */
export async function startBroker(label, { rateLimitPerSecond = 1_000_000, cli = BROKER_CLI } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), `notify-bench-${label}-`));
  const token = randomBytes(32).toString("base64url");
  writeFileSync(join(dataDir, "config.json"), `${JSON.stringify({ authToken: token, rateLimitPerSecond }, null, 2)}\n`);
  // BENCH_BROKER_NODE_ARGS passes extra node flags to the broker, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_BROKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, cli, "serve", "--port", "0", "--data-dir", dataDir], {
    cwd: REPO_ROOT,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr = captureLines(child.stderr);
  captureLines(child.stdout);
  const match = await waitForLine(stderr, child, /listening on http:\/\/127\.0\.0\.1:(\d+)/, `broker (${label})`);
  const port = Number(match[1]);
  return {
    label,
    child,
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    token,
    dataDir,
    dbPath: join(dataDir, "notify.db"),
    log: stderr.lines,
    stop: () => stopChild(child),
  };
}

/** Rows in a stopped broker's notifications table (checked against the 201s a run counted). */
export function countNotifications(dbPath) {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(db.prepare("SELECT count(*) AS n FROM notifications").get().n);
  } finally {
    db.close();
  }
}

/** Starts the bare-fastify baseline server as a child process; it prints {"port": N} on stdout. */
export async function startBaseline() {
  const nodeArgs = (process.env.BENCH_BASELINE_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(BENCH_DIR, "baseline-server.mjs")], {
    cwd: REPO_ROOT,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = captureLines(child.stdout);
  captureLines(child.stderr);
  const match = await waitForLine(stdout, child, /"port":\s*(\d+)/, "baseline fastify server");
  const port = Number(match[1]);
  return {
    label: "baseline",
    child,
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: () => stopChild(child),
  };
}

/**
 * One HTTP request; resolves with status, parsed JSON body and the performance.now() at which the body ended.
 * `onFinish` fires once the request is flushed to the socket.
 */
export function request(agent, url, { method = "GET", token, body, onFinish } = {}) {
  return new Promise((resolvePromise, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    if (payload !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(payload);
    }
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        const endedAt = performance.now();
        const text = Buffer.concat(chunks).toString("utf8");
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolvePromise({ status: res.statusCode, body: json, text, endedAt });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (onFinish) req.once("finish", onFinish);
    req.end(payload);
  });
}

export function ensureDir(path) {
  mkdirSync(path, { recursive: true });
  return path;
}

export const round = (value, digits = 2) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value;
