// Summarizes V8 .cpuprofile files (node --cpu-prof): self time per function, and inclusive ("total") time per
// function, so a hotspot and the call that leads to it both show.
//
// Usage: node bench/router/cpuprofile-top.mjs FILE_OR_DIR... [--top 25] [--json]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";

/**
 * Per-function self and inclusive time (ms) of one or more profiles, merged. `window` ({fromUs, toUs}, on the
 * monotonic clock of process.hrtime, which V8's profiler timestamps share on Linux) keeps only the samples taken
 * inside it, e.g. one load phase of a longer run.
 */
export function summarizeProfiles(paths, { root = process.cwd(), window } = {}) {
  const self = new Map();
  const total = new Map();
  let totalMs = 0;
  let idleMs = 0;
  let gcMs = 0;
  for (const path of paths) {
    const profile = JSON.parse(readFileSync(path, "utf8"));
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    // Time of each sample: the delta to the next one (timeDeltas[i] is the gap before sample i).
    const deltas = profile.timeDeltas;
    const counts = new Map();
    let at = profile.startTime;
    for (let index = 0; index < profile.samples.length; index++) {
      at += deltas[index];
      if (window && (at < window.fromUs || at > window.toUs)) continue;
      const id = profile.samples[index];
      const ms = (deltas[index + 1] ?? 0) / 1000;
      counts.set(id, (counts.get(id) ?? 0) + ms);
    }
    const label = (node) => {
      const frame = node.callFrame;
      const name = frame.functionName || "(anonymous)";
      if (!frame.url) return name;
      let file = frame.url.replace(/^file:\/\//, "");
      file = file.includes("/node_modules/")
        ? file.slice(file.lastIndexOf("/node_modules/") + 1)
        : relative(root, file);
      return `${name} ${file}:${frame.lineNumber + 1}`;
    };
    for (const [id, ms] of counts) {
      const node = byId.get(id);
      const name = label(node);
      totalMs += ms;
      if (name === "(idle)") idleMs += ms;
      if (name === "(garbage collector)") gcMs += ms;
      self.set(name, (self.get(name) ?? 0) + ms);
      // Inclusive: every distinct function on the stack of this sample gets the time once.
      const seen = new Set();
      for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor)) {
        const frameName = label(byId.get(cursor));
        if (seen.has(frameName)) continue;
        seen.add(frameName);
        total.set(frameName, (total.get(frameName) ?? 0) + ms);
      }
    }
  }
  const busyMs = totalMs - idleMs;
  const rows = (map) =>
    [...map]
      .filter(([name]) => name !== "(idle)" && name !== "(root)")
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => ({ name, ms: Math.round(ms), pctOfBusy: Math.round((1000 * ms) / busyMs) / 10 }));
  return {
    profiledMs: Math.round(totalMs),
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idleMs),
    gcMs: Math.round(gcMs),
    self: rows(self),
    inclusive: rows(total),
  };
}

export function profileFiles(inputs) {
  const files = [];
  for (const input of inputs) {
    if (statSync(input).isDirectory()) {
      for (const name of readdirSync(input)) if (name.endsWith(".cpuprofile")) files.push(join(input, name));
    } else files.push(input);
  }
  return files;
}

export function formatSummary(summary, top = 25) {
  const lines = [
    `profiled ${summary.profiledMs} ms, busy ${summary.busyMs} ms (GC ${summary.gcMs} ms), idle ${summary.idleMs} ms`,
    "",
    "| self ms | % of busy | function |",
    "|---:|---:|---|",
    ...summary.self.slice(0, top).map((row) => `| ${row.ms} | ${row.pctOfBusy} | \`${row.name}\` |`),
    "",
    "| inclusive ms | % of busy | function |",
    "|---:|---:|---|",
    ...summary.inclusive.slice(0, top).map((row) => `| ${row.ms} | ${row.pctOfBusy} | \`${row.name}\` |`),
  ];
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "25" }, json: { type: "boolean", default: false } },
  });
  const summary = summarizeProfiles(profileFiles(positionals));
  if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else process.stdout.write(`${formatSummary(summary, Number(values.top))}\n`);
}
