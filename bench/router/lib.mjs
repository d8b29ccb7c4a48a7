// Helpers for the router benchmark: child processes, /proc readings, percentiles, free ports, SSE text extraction.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// Helpers that are the same for both benchmarks live in the broker benchmark's lib.
export { ensureDir, machineBusySeconds, percentile, round, sleep } from "../broker/lib.mjs";

import { machineBusySeconds, percentile, round, sleep } from "../broker/lib.mjs";

export const ROUTER_BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(ROUTER_BENCH_DIR, "..", "..");
export const BROKER_CLI = join(REPO_ROOT, "packages", "broker", "dist", "cli", "main.js");
export const PEERS_DIR = join(ROUTER_BENCH_DIR, "peers");
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");

/** The reply text every mock response carries, and the text of a fast / slow stream. */
export const REPLY = "Hello from the mock upstream.";
const WORDS = ["Hello", " from", " the", " mock", " upstream", "."];
export const streamText = (chunks) =>
  Array.from({ length: chunks }, (_, index) => WORDS[index % WORDS.length]).join("");

/** `http.request` options for a POST of `payload` (a string) to `target` (a URL) through `agent`. */
export function postOptions(target, agent, headers, payload, timeoutMs) {
  return {
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: "POST",
    agent,
    headers: { ...headers, "content-length": Buffer.byteLength(payload) },
    timeout: timeoutMs,
  };
}

export function progress(message) {
  process.stderr.write(`[bench:router ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
}

/** count/mean/p50/p90/p99/max of millisecond samples (kept at microsecond resolution). */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const r = (value) => round(value, 3);
  return {
    count: sorted.length,
    mean: r(sorted.length ? sum / sorted.length : Number.NaN),
    p50: r(percentile(sorted, 50)),
    p90: r(percentile(sorted, 90)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted.length ? sorted[sorted.length - 1] : Number.NaN),
  };
}

const CLOCK_TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** VmRSS and VmHWM (peak RSS) of a process, in kB. */
export function procMemory(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN);
    return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
  } catch {
    return { rssKb: Number.NaN, hwmKb: Number.NaN };
  }
}

/** CPU seconds (user + system) a process has used so far. */
export function procCpuSeconds(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Waits (bounded) until the whole machine stays under `maxBusyCores` for `quietMs`; returns how long it waited. */
export async function waitForIdleMachine(maxWaitSeconds, { maxBusyCores = 0.25, quietMs = 3000 } = {}) {
  const started = Date.now();
  let quietSince = Date.now();
  let last = machineBusySeconds();
  while (Date.now() - started < maxWaitSeconds * 1000) {
    await sleep(500);
    const now = machineBusySeconds();
    if (now - last > maxBusyCores * 0.5) quietSince = Date.now();
    last = now;
    if (Date.now() - quietSince >= quietMs) return { waitedMs: Date.now() - started, idle: true };
  }
  return { waitedMs: Date.now() - started, idle: false };
}

/** A TCP port that was free a moment ago (for peers that need --port=N). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Collects a child's output lines (a pipe must be drained or the child blocks). */
export function captureLines(stream, keep = 200) {
  const lines = [];
  const listeners = new Set();
  let partial = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    partial += chunk;
    let index = partial.search(/[\r\n]/);
    while (index !== -1) {
      const line = partial.slice(0, index);
      partial = partial.slice(index + 1);
      if (line.trim() !== "") {
        lines.push(line);
        if (lines.length > keep) lines.shift();
        for (const listener of listeners) listener(line);
      }
      index = partial.search(/[\r\n]/);
    }
  });
  return { lines, onLine: (listener) => listeners.add(listener), offLine: (listener) => listeners.delete(listener) };
}

/** Resolves with the first match of `pattern` on any of `captures`; rejects on exit or after `timeoutMs`. */
export function waitForLine(captures, child, pattern, what, timeoutMs = 20_000) {
  return new Promise((resolveMatch, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`${what}: no line matching ${pattern} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onExit = (code, signal) => fail(new Error(`${what} exited early (code ${code}, signal ${signal})`));
    const onLine = (line) => {
      const match = pattern.exec(line);
      if (!match) return;
      cleanup();
      resolveMatch(match);
    };
    function cleanup() {
      clearTimeout(timer);
      for (const capture of captures) capture.offLine(onLine);
      child.off("exit", onExit);
    }
    function fail(error) {
      cleanup();
      error.output = captures.flatMap((capture) => capture.lines).slice(-40);
      reject(error);
    }
    for (const capture of captures) capture.onLine(onLine);
    child.once("exit", onExit);
  });
}

/** Polls until `url` answers anything over HTTP (peers that print no parsable "listening" line). */
export async function waitForHttp(url, child, what, timeoutMs = 20_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return Date.now() - started;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${what}: ${url} did not answer within ${timeoutMs} ms`);
}

/** Stops a child we started: SIGTERM, then SIGKILL after `graceMs`. */
export function stopChild(child, graceMs = 10_000, signal = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill(signal);
  });
}

/** Spawns a node script with the same node binary as this process; output lines are kept. */
export function spawnNode(script, argv, { cwd = REPO_ROOT, env = process.env, nodeArgs = [] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, script, ...argv], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = captureLines(child.stdout);
  const stderr = captureLines(child.stderr);
  return { child, stdout, stderr };
}

/** The environment for children: none of the broker's own variables, no proxies. */
export function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(NOTIFY_|HTTPS?_PROXY$|ALL_PROXY$|NO_PROXY$)/i.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}

/** Server-sent events of a whole body: [{event, data}]. */
export function parseSse(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event;
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}

/**
 * The assistant text and whether the terminal event arrived, for a client-wire response body (JSON or SSE).
 * Throws with a short reason when the body is not the wire's shape.
 */
export function replyOf(wire, stream, text) {
  if (!stream) {
    const json = JSON.parse(text);
    if (wire === "chat") {
      const content = json?.choices?.[0]?.message?.content;
      if (typeof content !== "string") throw new Error(`not a chat completion: ${text.slice(0, 200)}`);
      return { text: content, complete: true };
    }
    const blocks = Array.isArray(json?.content) ? json.content : undefined;
    if (!blocks) throw new Error(`not a messages response: ${text.slice(0, 200)}`);
    return { text: blocks.map((block) => block.text ?? "").join(""), complete: true };
  }
  let out = "";
  let complete = false;
  for (const { event, data } of parseSse(text)) {
    if (wire === "chat") {
      if (data === "[DONE]") {
        complete = true;
        continue;
      }
      const chunk = JSON.parse(data);
      if (chunk.error) throw new Error(`chat error chunk: ${data.slice(0, 200)}`);
      out += chunk?.choices?.[0]?.delta?.content ?? "";
    } else {
      const payload = JSON.parse(data);
      const type = payload.type ?? event;
      if (type === "error") throw new Error(`messages error event: ${data.slice(0, 200)}`);
      if (type === "content_block_delta" && payload.delta?.type === "text_delta") out += payload.delta.text;
      if (type === "message_stop") complete = true;
    }
  }
  return { text: out, complete };
}
