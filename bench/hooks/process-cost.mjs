// What one `notify` process costs (issue 33, item 2): wall time and CPU per call of `notify --version` and of the
// hook commands Codex and Claude Code run on every tool call, beside a bare `node -e 0` on the same pinned Node,
// alternating one run of each per round so machine load falls on all of them alike. The hooks get the agents'
// documented PostToolUse input (packages/broker/test/hooks/fixtures.ts) on stdin, a data dir whose config.json holds
// a token (the broker has run once) and no open question, so they make no request: the process start and what it
// loads are the whole cost. Linux only (CPU is read from /proc).
// `notify hooks install` writes the hook as `<node> <package>/dist/cli/main.js hook ...` (no shell launcher): that
// form is measured too. --before DIR adds the same commands run from another checkout or copy of the repository
// (built), alternating with these, for before/after figures from one run.
// Usage: node bench/hooks/process-cost.mjs [--runs 30] [--before DIR] [--json]

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 30;
const json = args.includes("--json");
const before = args.includes("--before") ? resolve(args[args.indexOf("--before") + 1]) : undefined;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The Node the launcher runs the CLI on; the bare start uses the same binary. */
const NODE = join(ROOT, "node_modules", "node", "bin", "node");

const codexPostToolUse = {
  session_id: "019a7d6c-0b3a-7f10-9a52-4c1e2f7d9b01",
  turn_id: "019a7d6c-2e44-7c21-8f3b-71a0d5e6c902",
  transcript_path: "/home/dev/.codex/sessions/2026/11/23/rollout.jsonl",
  cwd: "/home/dev/notify",
  model: "gpt-5",
  permission_mode: "default",
  hook_event_name: "PostToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -f /tmp/example.txt" },
  tool_response: "",
  tool_use_id: "call_Yx2",
};
const claudePostToolUse = {
  session_id: "abc123",
  transcript_path: "/Users/dev/.claude/projects/my-project/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  cwd: "/Users/dev/my-project",
  permission_mode: "default",
  hook_event_name: "PostToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf node_modules", description: "Remove node_modules directory" },
  tool_response: { stdout: "", stderr: "", interrupted: false },
  tool_use_id: "toolu_01ABC123",
};

/** The commands of one checkout, named with `label` when it is not this one. */
function notifyCases(root, label) {
  const notify = join(root, "packages", "broker", "bin", "notify");
  const main = join(root, "packages", "broker", "dist", "cli", "main.js");
  const suffix = label === undefined ? "" : ` (${label})`;
  return [
    { name: `notify --version${suffix}`, command: notify, args: ["--version"], stdin: "" },
    {
      name: `notify hook codex PostToolUse${suffix}`,
      command: notify,
      args: ["hook", "codex", "PostToolUse"],
      stdin: JSON.stringify(codexPostToolUse),
    },
    {
      name: `notify hook claude-code PostToolUse${suffix}`,
      command: notify,
      args: ["hook", "claude-code", "PostToolUse"],
      stdin: JSON.stringify(claudePostToolUse),
    },
    {
      name: `node main.js hook codex PostToolUse${suffix}`,
      command: NODE,
      args: [main, "hook", "codex", "PostToolUse"],
      stdin: JSON.stringify(codexPostToolUse),
    },
  ];
}

const CASES = [
  { name: "node -e 0", command: NODE, args: ["-e", "0"], stdin: JSON.stringify(codexPostToolUse) },
  ...(before !== undefined ? notifyCases(before, "before") : []),
  ...notifyCases(ROOT),
];

const TICKS_PER_SECOND = 100;
/** CPU (user + sys, ms) of this process's waited-for children so far: fields 16 and 17 of /proc/self/stat. */
function childrenCpuMs() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

function runOnce(spec, env) {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(spec.command, spec.args, { input: spec.stdin, env, encoding: "utf8" });
  const wallMs = performance.now() - started;
  const cpuMs = childrenCpuMs() - cpuBefore;
  if (result.status !== 0 || result.stderr !== "") {
    throw new Error(`${spec.name} exited ${result.status}: ${result.stderr || result.error}`);
  }
  return { wallMs, cpuMs };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), mean };
}

const dataDir = mkdtempSync(join(tmpdir(), "notify-process-cost-"));
writeFileSync(join(dataDir, "config.json"), JSON.stringify({ authToken: "b".repeat(43), port: 9 }), { mode: 0o600 });
const env = { ...process.env, NOTIFY_DATA_DIR: dataDir };
delete env.NOTIFY_TOKEN;
delete env.NOTIFY_PORT;
delete env.NODE_OPTIONS;

try {
  // Warm-up: the compile cache (cli/compile-cache.ts) and the page cache, as on any machine after the first call.
  for (const spec of CASES) for (let i = 0; i < 3; i++) runOnce(spec, env);
  const samples = CASES.map(() => ({ wall: [], cpu: [] }));
  for (let round = 0; round < runs; round++) {
    CASES.forEach((spec, index) => {
      const { wallMs, cpuMs } = runOnce(spec, env);
      samples[index].wall.push(wallMs);
      samples[index].cpu.push(cpuMs);
    });
  }
  const bare = { wall: summarize(samples[0].wall), cpu: summarize(samples[0].cpu) };
  const rows = CASES.map((spec, index) => {
    const wall = summarize(samples[index].wall);
    const cpu = summarize(samples[index].cpu);
    return {
      name: spec.name,
      wall,
      cpu,
      wallRatio: wall.median / bare.wall.median,
      cpuRatio: cpu.median / bare.cpu.median,
      cpuMeanRatio: cpu.mean / bare.cpu.mean,
    };
  });
  if (json) {
    process.stdout.write(`${JSON.stringify({ runs, node: process.version, rows }, null, 2)}\n`);
  } else {
    const f = (ms) => ms.toFixed(1).padStart(6);
    console.log(`${runs} runs each, alternating; CPU = user + sys of the child (10 ms ticks: see the mean)`);
    console.log(
      `${"".padEnd(46)} wall med    p95  ratio |  CPU med    p95   mean  ratio(med) ratio(mean)`.replace(/\s+$/, ""),
    );
    for (const row of rows) {
      console.log(
        `${row.name.padEnd(46)} ${f(row.wall.median)} ${f(row.wall.p95)} ${row.wallRatio.toFixed(2).padStart(5)}x |` +
          ` ${f(row.cpu.median)} ${f(row.cpu.p95)} ${f(row.cpu.mean)} ${row.cpuRatio.toFixed(2).padStart(9)}x` +
          ` ${row.cpuMeanRatio.toFixed(2).padStart(10)}x`,
      );
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
