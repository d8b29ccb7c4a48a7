// Allocation sampling of a process started with --inspect=127.0.0.1:0, over the inspector protocol on loopback:
// HeapProfiler.startSampling with objects collected by minor and major GC included, so the result is what was
// allocated (garbage too) per call site, not only what is still alive.
import { round } from "./lib.mjs";

/**
 * The inspector's WebSocket URL from the child's last "Debugger listening on ws://..." line: `notify serve`
 * re-executes itself in place with its V8 flags (process.execve), so the first URL is the one before that.
 */
export function inspectorUrl(lines) {
  let url;
  for (const line of lines) {
    const match = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(line);
    if (match) url = match[0];
  }
  return url;
}

export async function connectInspector(url) {
  const socket = new WebSocket(url);
  await new Promise((resolveOpen, reject) => {
    socket.addEventListener("open", resolveOpen, { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot open the inspector at ${url}`)), { once: true });
  });
  let nextId = 0;
  const pending = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${message.error.message} (${message.error.code})`));
    else waiter.resolve(message.result);
  });
  const call = (method, params = {}) =>
    new Promise((resolveCall, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve: resolveCall, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/** Starts allocation sampling; the returned function stops it and summarizes the profile. */
export async function startAllocationSampling(inspector, { samplingInterval = 4096 } = {}) {
  await inspector.call("HeapProfiler.enable");
  await inspector.call("HeapProfiler.startSampling", {
    samplingInterval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async ({ root = process.cwd(), units = 1 } = {}) => {
    const { profile } = await inspector.call("HeapProfiler.stopSampling");
    return summarizeSamplingProfile(profile, { root, units });
  };
}

/** Self and inclusive sampled bytes per function (function name and file:line). */
export function summarizeSamplingProfile(profile, { root = process.cwd(), units = 1 } = {}) {
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  const label = (frame) => {
    let url = frame.url.replace(/^file:\/\//, "");
    if (url.includes("/node_modules/")) url = url.slice(url.lastIndexOf("/node_modules/") + 1);
    else if (url.startsWith(root)) url = url.slice(root.length + 1);
    return `${frame.functionName || "(anonymous)"}${url ? ` ${url}:${frame.lineNumber + 1}` : ""}`;
  };
  // Iterative walk: each entry is a node and the set of function labels already on its stack.
  const stack = [{ node: profile.head, seen: [] }];
  while (stack.length > 0) {
    const { node, seen } = stack.pop();
    const name = label(node.callFrame);
    total += node.selfSize;
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const onStack = seen.includes(name) ? seen : [...seen, name];
    if (node.selfSize > 0)
      for (const frame of onStack) inclusive.set(frame, (inclusive.get(frame) ?? 0) + node.selfSize);
    for (const child of node.children) stack.push({ node: child, seen: onStack });
  }
  const rows = (map) =>
    [...map]
      .filter(([name]) => name !== "(root)")
      .sort((a, b) => b[1] - a[1])
      .map(([name, bytes]) => ({ name, mb: round(bytes / 1048576, 1), pct: round((100 * bytes) / total, 1) }));
  return {
    totalMb: round(total / 1048576, 1),
    kbPerUnit: round(total / 1024 / units, 1),
    self: rows(self).slice(0, 30),
    inclusive: rows(inclusive).slice(0, 50),
  };
}
