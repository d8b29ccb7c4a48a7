// Hook latency (issue 12): from the answer's 200 to the agent's hook process exiting with the decision, p50/p99
// over N runs, side by side with a bare Node long-poller (baseline-waiter.mjs) on the same broker.
// Usage: npm run bench:hooks [-- --runs 50]

import { spawn } from "node:child_process";
import { Agent } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { BENCH_DIR, BROKER_CLI, progress, request, startBroker, summarize } from "../broker/lib.mjs";

const args = process.argv.slice(2);
const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 50;
const HOOK_DIR = join(BENCH_DIR, "..", "hooks");

/** Claude Code's documented PermissionRequest input (test/hooks/fixtures.ts), one session per run. */
const permissionRequest = (session) => ({
  session_id: session,
  transcript_path: "/tmp/transcript.jsonl",
  cwd: "/tmp/bench-project",
  permission_mode: "default",
  hook_event_name: "PermissionRequest",
  tool_name: "Bash",
  tool_input: { command: `echo run ${session}`, description: "bench" },
});

/** Starts a waiter; resolves once it announced its interaction id, with a promise of its exit time and stdout. */
function startWaiter(command, args, stdin) {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [command, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  const exited = new Promise((resolve) =>
    child.once("exit", (code) => resolve({ at: performance.now(), code, stdout: () => stdout })),
  );
  const announced = new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
      const match = /waiting for an answer to interaction (int_\S+)/.exec(stderr);
      if (match) resolve({ id: match[1], openMs: performance.now() - spawnedAt });
    });
    child.once("exit", () => reject(new Error(`waiter exited before waiting: ${stderr}`)));
  });
  child.stdin.end(stdin ?? "");
  return { announced, exited };
}

async function answer(broker, agent, id) {
  const { body: question } = await request(agent, `${broker.url}/v1/interactions/${id}`, { token: broker.token });
  const reply = await request(agent, `${broker.url}/v1/interactions/${id}/respond`, {
    method: "POST",
    token: broker.token,
    body: {
      response_id: `bench-${id}`,
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "allow",
      source: "bench",
    },
  });
  if (reply.status !== 200) throw new Error(`respond answered ${reply.status}`);
  return reply.endedAt;
}

async function oneHook(broker, agent, run) {
  const waiter = startWaiter(
    BROKER_CLI,
    ["hook", "claude-code", "PermissionRequest", "--port", String(broker.port), "--data-dir", broker.dataDir],
    JSON.stringify(permissionRequest(`bench-${run}`)),
  );
  const { id, openMs } = await waiter.announced;
  opened.push(openMs);
  const answeredAt = await answer(broker, agent, id);
  const exit = await waiter.exited;
  const decision = JSON.parse(exit.stdout()).hookSpecificOutput?.decision?.behavior;
  if (exit.code !== 0 || decision !== "allow") throw new Error(`hook ended ${exit.code} with ${exit.stdout()}`);
  return exit.at - answeredAt;
}

async function oneBaseline(broker, agent) {
  const { body: question } = await request(agent, `${broker.url}/v1/interactions/request`, {
    method: "POST",
    token: broker.token,
    body: { prompt: "bench baseline" },
  });
  const waiter = startWaiter(join(HOOK_DIR, "baseline-waiter.mjs"), [broker.url, broker.token, question.id]);
  await waiter.announced;
  // The baseline announces before its first request is out; give it the same head start the hook has.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const answeredAt = await answer(broker, agent, question.id);
  const exit = await waiter.exited;
  if (exit.code !== 0 || exit.stdout() !== "allow\n") throw new Error(`baseline ended ${exit.code}`);
  return exit.at - answeredAt;
}

const round2 = (value) => Math.round(value * 100) / 100;
/** Spawn to "question open" (Node start, CLI load, the ARC event): what the agent waits before the question shows. */
const opened = [];
const broker = await startBroker("hooks");
const agent = new Agent({ keepAlive: true });
try {
  const hook = [];
  const baseline = [];
  // Alternating, so both see the same drift of this shared machine.
  for (let run = 0; run < runs; run += 1) {
    if (run % 2 === 0) {
      hook.push(await oneHook(broker, agent, run));
      baseline.push(await oneBaseline(broker, agent));
    } else {
      baseline.push(await oneBaseline(broker, agent));
      hook.push(await oneHook(broker, agent, run));
    }
    if ((run + 1) % 10 === 0) progress(`${run + 1}/${runs} runs`);
  }
  const summary = (samples) => Object.fromEntries(Object.entries(summarize(samples)).map(([k, v]) => [k, round2(v)]));
  const hookSummary = summary(hook);
  const baselineSummary = summary(baseline);
  const result = {
    runs,
    node: process.version,
    hook: hookSummary,
    baseline: baselineSummary,
    hookStartToQuestionOpen: summary(opened),
    ratio: { p50: round2(hookSummary.p50 / baselineSummary.p50), p99: round2(hookSummary.p99 / baselineSummary.p99) },
    target: { p99BelowMs: 50, met: hookSummary.p99 < 50 },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  agent.destroy();
  await broker.stop();
}
