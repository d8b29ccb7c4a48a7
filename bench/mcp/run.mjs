// notify mcp latency (issue 26): from the answer's 200 to the host holding ask_person's tool result, p50/p99 over
// N questions, beside `notify ask` (answer's 200 to the CLI process exiting with the answer) in the same run, on
// the same broker. The host is the official MCP SDK client over stdio, as Claude Code and Codex are hosts: one
// `notify mcp` server for the whole run (a host keeps its servers running), one tool call per question.
// Usage: npm run bench:mcp [-- --runs 200]

import { spawn } from "node:child_process";
import { Agent } from "node:http";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BROKER_CLI, progress, REPO_ROOT, request, startBroker, summarize } from "../broker/lib.mjs";

const args = process.argv.slice(2);
const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 200;
const CHOICES = [
  { id: "pg", label: "Postgres" },
  { id: "sqlite", label: "SQLite" },
];

async function answer(broker, agent, id) {
  const { body: question } = await request(agent, `${broker.url}/v1/interactions/${id}`, { token: broker.token });
  const reply = await request(agent, `${broker.url}/v1/interactions/${id}/respond`, {
    method: "POST",
    token: broker.token,
    body: {
      response_id: `bench-${id}`,
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "sqlite",
      source: "bench",
    },
  });
  if (reply.status !== 200) throw new Error(`respond answered ${reply.status}`);
  return reply.endedAt;
}

/** One ask_person call: its interaction id comes in the first progress notification. */
async function oneMcp(client, broker, agent, run) {
  let resolveId;
  const announced = new Promise((resolve) => {
    resolveId = resolve;
  });
  const startedAt = performance.now();
  const called = client
    .callTool(
      {
        name: "ask_person",
        arguments: { prompt: `bench question ${run}: Postgres or SQLite?`, kind: "single_choice", choices: CHOICES },
      },
      undefined,
      {
        timeout: 3_700_000,
        onprogress: (notification) => {
          const match = /interaction (int_[^,\s)]+)/.exec(notification.message ?? "");
          if (match) resolveId(match[1]);
        },
      },
    )
    .then((result) => ({ result, at: performance.now() }));
  const id = await announced;
  opened.push(performance.now() - startedAt);
  const answeredAt = await answer(broker, agent, id);
  const { result, at } = await called;
  if (result.isError || result.structuredContent?.choice_id !== "sqlite") {
    throw new Error(`ask_person ended with ${JSON.stringify(result)}`);
  }
  return at - answeredAt;
}

/** One `notify ask` process: answer's 200 to its exit with the answer on stdout. */
async function oneAsk(broker, agent, run) {
  const child = spawn(
    process.execPath,
    [
      BROKER_CLI,
      "ask",
      `bench ask ${run}: Postgres or SQLite?`,
      "--kind",
      "single_choice",
      "--choice",
      "pg=Postgres",
      "--choice",
      "sqlite=SQLite",
      "--port",
      String(broker.port),
      "--data-dir",
      broker.dataDir,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve({ at: performance.now(), code })));
  const id = await new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
      const match = /waiting for an answer to interaction (int_\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(`notify ask exited before waiting: ${stderr}`)));
  });
  const answeredAt = await answer(broker, agent, id);
  const exit = await exited;
  if (exit.code !== 0 || stdout.trim() !== "sqlite") throw new Error(`notify ask ended ${exit.code} with ${stdout}`);
  return exit.at - answeredAt;
}

const round2 = (value) => Math.round(value * 100) / 100;
const summary = (samples) => Object.fromEntries(Object.entries(summarize(samples)).map(([k, v]) => [k, round2(v)]));
/** Tool call to "question open" (the server's POST and its first progress notification). */
const opened = [];
const broker = await startBroker("mcp");
const agent = new Agent({ keepAlive: true });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [BROKER_CLI, "mcp", "--port", String(broker.port), "--data-dir", broker.dataDir],
  cwd: REPO_ROOT,
  stderr: "ignore",
});
const client = new Client({ name: "bench-host", version: "1.0.0" });
await client.connect(transport);
try {
  const mcp = [];
  const ask = [];
  // Alternating, so both see the same drift of this shared machine.
  for (let run = 0; run < runs; run += 1) {
    if (run % 2 === 0) {
      mcp.push(await oneMcp(client, broker, agent, run));
      ask.push(await oneAsk(broker, agent, run));
    } else {
      ask.push(await oneAsk(broker, agent, run));
      mcp.push(await oneMcp(client, broker, agent, run));
    }
    if ((run + 1) % 20 === 0) progress(`${run + 1}/${runs} runs`);
  }
  const mcpSummary = summary(mcp);
  const askSummary = summary(ask);
  const result = {
    runs,
    node: process.version,
    mcpAnswerToToolResult: mcpSummary,
    notifyAskAnswerToExit: askSummary,
    mcpCallToQuestionOpen: summary(opened),
    ratio: { p50: round2(mcpSummary.p50 / askSummary.p50), p99: round2(mcpSummary.p99 / askSummary.p99) },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await client.close();
  agent.destroy();
  await broker.stop();
}
