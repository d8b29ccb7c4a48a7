// Follow-ups (issue 35): from the tap on the phone to the agent's next model request, beside the same path for a
// permission answer in the same run. A relay (SQLite) and a real broker (followUp.waitSeconds 300, maxInARow 1000)
// run in this process on loopback with one simulated phone paired (bench/phone/lib.mjs); `notify hooks install
// claude-code` writes Notify's http hooks into a temp HOME; two real Claude Code 2.1.330 sessions (`-p`) run against
// two loopback model mocks (@notify/test-kit) that note when each model request arrives:
// - follow-up: the model always answers text, so every turn ends; the Stop hook opens a follow-up; the phone opens
//   the sealed question and taps a text reply (t0); the next model request, carrying the reply, arrives (t1);
// - permission (the baseline): the model always calls Bash (`touch`); the PermissionRequest question reaches the
//   phone; the phone taps allow (t0); the command runs and the next model request, carrying its result, arrives (t1).
// The two take turns, one tap at a time (the other session is parked on its question meanwhile), so both see the
// same machine load. Then "present": with a visible /ui page the wall time of a `notify hook claude-code Stop`
// process beside the same with followUp.waitSeconds 0, alternating.
// Usage: npm run bench:follow-up [-- --rounds=50 --warmup=3 --present-runs=30]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { json, nextQuestion, ROOT, summary, tap, world } from "../phone/lib.mjs";

const { startModelMock } = await import(join(ROOT, "packages/test-kit/dist/model-mock.js"));
const { startBroker } = await import(join(ROOT, "packages/broker/dist/broker.js"));

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "50" },
    warmup: { type: "string", default: "3" },
    "present-runs": { type: "string", default: "30" },
  },
});
const rounds = Number(args.rounds);
const warmup = Number(args.warmup);
const presentRuns = Number(args["present-runs"]);
const CLI = join(ROOT, "packages/broker/dist/cli/main.js");
const CLAUDE = join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const CLAUDE_TEST_KEY = "sk-ant-test-not-a-real-key-0123456789";
const DEADLINE_MS = 120_000; // any one step, across processes on a loaded machine
// The Claude Code processes this bench started, killed on any exit (a deadline's error, Ctrl-C).
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
const progress = (message) => process.stderr.write(`[bench:follow-up] ${message}\n`);
const loads = [];
const noteLoad = (when) => loads.push({ when, loadavg: os.loadavg().map((value) => Math.round(value * 100) / 100) });

/** The environment without anything that would point the CLI at another broker or token. */
function cliEnv() {
  const env = { ...process.env, NO_COLOR: "1" };
  delete env.NOTIFY_TOKEN;
  delete env.NOTIFY_PORT;
  delete env.NOTIFY_DATA_DIR;
  return env;
}

function run(command, argv, env, stdin) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

const withDeadline = (what, promise) =>
  Promise.race([
    promise,
    new Promise((_, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: no progress in ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
      timer.unref();
    }),
  ]);

/** A model mock that notes when each streamed model request arrives and lets the bench wait for the next one. */
async function recordingMock(answer) {
  const arrivals = [];
  let waiter;
  const mock = await startModelMock({
    models: [],
    reply: (turn) => {
      if (turn.stream) {
        const arrival = { at: performance.now(), turn };
        arrivals.push(arrival);
        waiter?.(arrival);
        waiter = undefined;
      }
      return answer(turn);
    },
  });
  return {
    mock,
    arrivals,
    /** The next streamed request to arrive after this call. */
    next: () => new Promise((resolve) => (waiter = resolve)),
  };
}

function claudeEnv(home, deadProxy, mock) {
  const env = {};
  for (const name of ["PATH", "LANG", "USER", "SHELL"])
    if (process.env[name] !== undefined) env[name] = process.env[name];
  return {
    ...env,
    HOME: home,
    TERM: "dumb",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "1000",
    HTTPS_PROXY: deadProxy,
    HTTP_PROXY: deadProxy,
    ALL_PROXY: deadProxy,
    https_proxy: deadProxy,
    http_proxy: deadProxy,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    ANTHROPIC_BASE_URL: mock.origin,
    ANTHROPIC_API_KEY: CLAUDE_TEST_KEY,
  };
}

/** The user texts of a Messages request (to check that a follow-up's next request carries the reply). */
const userTexts = (turn) =>
  (turn.body.messages ?? [])
    .filter((message) => message.role === "user")
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => (typeof part.text === "string" ? part.text : "")).join(""),
    );

async function replyChain() {
  const root = mkdtempSync(join(os.tmpdir(), "bench-follow-up-"));
  const home = join(root, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  const w = await world(1, { followUp: { waitSeconds: 300, maxInARow: 1000 } });
  const phone = w.phones[0];
  let stopping = false;
  let turns = 0;
  let commands = 0;
  const text = await recordingMock(() => ({ text: `Turn ${++turns} done.` }));
  const permission = await recordingMock((turn) =>
    turn.stream && turn.tools.some((tool) => tool.name === "Bash")
      ? { tool: "Bash", input: { command: `touch marker-${++commands}`, description: "Create a marker file" } }
      : { text: "OK" },
  );
  // A loopback port nothing listens on (discard), for the proxy variables: nothing outside loopback is reachable.
  const deadProxy = "http://127.0.0.1:9";
  try {
    const target = ["--port", String(w.broker.port), "--data-dir", w.dataDir];
    const installed = await run(process.execPath, [CLI, "hooks", "install", "claude-code", ...target], {
      ...cliEnv(),
      HOME: home,
      // The pinned Claude Code on PATH (as under npm run): its version decides http hooks (2.1.330 has them).
      PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
    });
    if (installed.code !== 0) throw new Error(`notify hooks install: ${installed.stderr}`);
    const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
    const kinds = Object.fromEntries(
      Object.entries(settings.hooks).map(([event, [entry]]) => [event, entry.hooks[0].type]),
    );
    if (kinds.PermissionRequest !== "http") throw new Error("expected http hooks for Claude Code");
    progress(`hooks: PermissionRequest ${kinds.PermissionRequest}, Stop ${kinds.Stop}`);

    // The phone's side: one long-poll loop, questions sorted by kind into queues.
    const queues = { text: [], permission: [] };
    const wanted = {};
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const question = await nextQuestion(w, phone);
        const kind = question.payload.interaction.kind === "text" ? "text" : "permission";
        if (wanted[kind]) {
          wanted[kind](question);
          delete wanted[kind];
        } else queues[kind].push(question);
      }
    })().catch((error) => {
      if (polling) throw error;
    });
    const take = (kind) =>
      withDeadline(
        `the next ${kind} question on the phone`,
        queues[kind].length > 0
          ? Promise.resolve(queues[kind].shift())
          : new Promise((resolve) => (wanted[kind] = resolve)),
      );

    const sessions = { text, permission };
    const started = { text: 0, permission: 0 };
    // Notify's http Stop hook stops asking at Claude Code's default cap of 8 blocks in a row (it cannot read the
    // agent's CLAUDE_CODE_STOP_HOOK_BLOCK_CAP; docs/hooks.md, "Loops"), so the follow-up chain is a series of
    // sessions: when one ends at the cap, the next starts, outside any measured interval.
    const startSession = (kind) => {
      started[kind]++;
      const cwd = join(root, kind);
      mkdirSync(cwd, { recursive: true });
      const child = spawn(CLAUDE, ["-p", kind === "text" ? "say hello" : "create the marker files"], {
        cwd,
        env: claudeEnv(home, deadProxy, sessions[kind].mock),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
      child.once("close", (code) => {
        children.delete(child);
        if (stopping) return;
        if (kind === "text" && code === 0) return startSession(kind);
        progress(`claude (${kind}) exited early with ${code}: ${output.slice(-2000)}`);
      });
      children.add(child);
    };
    startSession("text");
    startSession("permission");
    const held = { text: await take("text"), permission: await take("permission") };
    progress("both sessions hold a question; tapping");
    const samples = { followUp: [], permission: [] };
    let carried = 0;
    for (let round = 0; round < warmup + rounds; round++) {
      const order = round % 2 === 0 ? ["text", "permission"] : ["permission", "text"];
      for (const kind of order) {
        const session = sessions[kind];
        const reply = `Continue with step ${round}.`;
        const arrived = session.next();
        const started = performance.now();
        const posted = await tap(w, phone, held[kind], kind === "text" ? { text: reply } : { choice_id: "allow" });
        if (posted.status !== 201) throw new Error(`tap (${kind}): ${posted.status} ${JSON.stringify(posted.body)}`);
        const arrival = await withDeadline(`the next ${kind} model request`, arrived);
        const elapsed = arrival.at - started;
        if (kind === "text" && userTexts(arrival.turn).some((line) => line.includes(reply))) carried++;
        if (kind === "permission" && arrival.turn.toolResults.length === 0) throw new Error("no tool result carried");
        if (round >= warmup) samples[kind === "text" ? "followUp" : "permission"].push(elapsed);
        // Park this session on its next question before the other one's tap: one thing moves at a time.
        held[kind] = await take(kind);
      }
      if (round === warmup) noteLoad("chain start");
      if ((round + 1) % 10 === 0) progress(`round ${round + 1}/${warmup + rounds}`);
    }
    noteLoad("chain end");
    polling = false;
    if (carried !== warmup + rounds) throw new Error(`only ${carried} follow-up requests carried the reply`);
    void poller;
    return { samples, carried, sessions: started };
  } finally {
    stopping = true;
    for (const child of children) child.kill("SIGTERM");
    await text.mock.close();
    await permission.mock.close();
    await w.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A broker of its own with `config`, Notify's hooks installed for it into a temp HOME (so its hook token exists):
 * `target` for the CLI, `ui` for /ui/api, `hookToken` for its http hook.
 */
async function hookBroker(config) {
  const dataDir = mkdtempSync(join(os.tmpdir(), "bench-follow-up-broker-"));
  const home = mkdtempSync(join(os.tmpdir(), "bench-follow-up-home-"));
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(dataDir, "config.json"), JSON.stringify({ rateLimitPerSecond: 1_000_000, ...config }));
  const broker = await startBroker({ dataDir, port: 0, env: {} });
  const target = ["--port", String(broker.port), "--data-dir", dataDir];
  const installed = await run(process.execPath, [CLI, "hooks", "install", "claude-code", ...target], {
    ...cliEnv(),
    HOME: home,
    PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
  });
  if (installed.code !== 0) throw new Error(`notify hooks install: ${installed.stderr}`);
  return {
    broker,
    target,
    hookToken: readFileSync(join(dataDir, "hooks", "hook-token"), "utf8").trim(),
    ui: (path, body) =>
      json(`${broker.url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: `Bearer ${broker.settings.authToken}`,
          "x-notify-ui": "1",
          "content-type": "application/json",
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    close: async () => {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * Present at the desk: a Stop returns at once with no question held. Each run times one Stop as the command hook
 * (`notify hook claude-code Stop`, a process, stdin the payload) and as the http hook Claude Code 2.1.330 gets
 * (`POST /v1/hooks/claude-code`, keep-alive), against a broker with followUp.waitSeconds 300 and one with follow-ups
 * off (waitSeconds 0), both with a visible page. Each run: the http pair, then the command pair, each pair's order
 * swapped every other run, so the first of a pair (just after the page's report or the last hook process, when the
 * machine is still busy with it) is each broker's as often. An earlier order that put one broker's http Stop after
 * a hook process half the time made it 1.3-1.6x slower at p50.
 */
async function presentStop() {
  const brokers = {
    present: await hookBroker({ followUp: { waitSeconds: 300 } }),
    off: await hookBroker({ followUp: { waitSeconds: 0 } }),
  };
  const env = cliEnv();
  const cases = [
    ["present", "http"],
    ["off", "http"],
    ["present", "command"],
    ["off", "command"],
  ];
  const samples = Object.fromEntries(cases.map(([name, form]) => [`${name}-${form}`, []]));
  try {
    for (let index = 0; index < presentRuns + 3; index++) {
      // A visible page reports its activity to both brokers at the start of each run (the web page does every 30 s),
      // so the two differ only in the window.
      for (const broker of Object.values(brokers)) {
        const activity = await broker.ui("/ui/api/presence/activity", { page: "bench-follow-up", visible: true });
        if (activity.status !== 200) throw new Error(`presence activity: ${activity.status}`);
      }
      const order = index % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
      for (const [name, form] of order.map((at) => cases[at])) {
        const target = brokers[name];
        const stop = JSON.stringify({
          session_id: `bench-${name}-${form}-${index}`,
          transcript_path: "/tmp/none.jsonl",
          cwd: "/tmp/bench-project",
          permission_mode: "default",
          hook_event_name: "Stop",
          stop_hook_active: false,
          last_assistant_message: "Done.",
        });
        const started = performance.now();
        let output;
        if (form === "command") {
          const result = await run(process.execPath, [CLI, "hook", "claude-code", "Stop", ...target.target], env, stop);
          if (result.code !== 0) throw new Error(`Stop (${name}, command): ${result.code} ${result.stderr}`);
          output = result.stdout.trim();
        } else {
          const response = await fetch(`${target.broker.url}/v1/hooks/claude-code`, {
            method: "POST",
            headers: { authorization: `Bearer ${target.hookToken}`, "content-type": "application/json" },
            body: stop,
          });
          output = (await response.text()).trim();
          if (response.status !== 200) throw new Error(`Stop (${name}, http): ${response.status} ${output}`);
        }
        const elapsed = performance.now() - started;
        // No decision: the turn ends (nothing printed, or an http hook's `{}`).
        if (output !== "" && output !== "{}") throw new Error(`Stop (${name}, ${form}) said ${output}`);
        if (index >= 3) samples[`${name}-${form}`].push(elapsed);
      }
    }
    for (const broker of Object.values(brokers)) {
      const follow = await broker.ui("/v1/follow-up");
      if (follow.body.presence !== "present") throw new Error(`presence ${follow.body.presence}`);
    }
    const pending = await brokers.present.ui("/v1/interactions?pending=true");
    if (pending.body.length !== 0) throw new Error("a question was held while present");
  } finally {
    await brokers.present.close();
    await brokers.off.close();
  }
  return samples;
}

progress(
  `node ${process.version}, ${os.cpus().length} cpus, ${rounds} replies (+${warmup} warm-up), ${presentRuns} present runs`,
);
noteLoad("start");
const chain = await replyChain();
progress("present: Stop hook wall time");
noteLoad("present start");
const presentSamples = await presentStop();
noteLoad("end");

const followUp = summary(chain.samples.followUp);
const permission = summary(chain.samples.permission);
const present = Object.fromEntries(Object.entries(presentSamples).map(([name, list]) => [name, summary(list)]));
const ratio = (a, b) => Math.round((a / b) * 100) / 100;
const ratios = {
  p50: ratio(followUp.p50, permission.p50),
  p99: ratio(followUp.p99, permission.p99),
  presentCommand: { p50: ratio(present["present-command"].p50, present["off-command"].p50) },
  presentHttp: { p50: ratio(present["present-http"].p50, present["off-http"].p50) },
};
const row = (name, s) => `| ${name} | ${s.n} | ${s.p50} | ${s.p90} | ${s.p99} | ${s.max} |`;
const lines = [
  "| path (ms) | n | p50 | p90 | p99 | max |",
  "| --- | --: | --: | --: | --: | --: |",
  row("follow-up: tap to next model request", followUp),
  row("permission: tap to next model request (baseline)", permission),
  row("present: Stop, http hook (POST /v1/hooks/claude-code)", present["present-http"]),
  row("present, followUp.waitSeconds 0: same (baseline)", present["off-http"]),
  row("present: Stop, command hook (`notify hook claude-code Stop`)", present["present-command"]),
  row("present, followUp.waitSeconds 0: same (baseline)", present["off-command"]),
  "",
  `follow-up / permission: p50 ${ratios.p50}x, p99 ${ratios.p99}x (target within 1.5x)`,
  `present / off at p50: http ${ratios.presentHttp.p50}x, command ${ratios.presentCommand.p50}x`,
  `Claude Code sessions: follow-up ${chain.sessions.text} (8 replies in a row each, the http Stop hook's cap), permission ${chain.sessions.permission}`,
  `load averages (1/5/15 min): ${loads.map((load) => `${load.when} ${load.loadavg.join("/")}`).join("; ")}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
const file = join(ROOT, "bench/results", `follow-up-${new Date().toISOString().replaceAll(":", "-")}.json`);
writeFileSync(
  file,
  JSON.stringify(
    {
      node: process.version,
      cpus: os.cpus().length,
      rounds,
      warmup,
      sessions: chain.sessions,
      summary: { followUp, permission, ratios, present },
      loads,
      raw: { ...chain.samples, ...presentSamples },
    },
    null,
    2,
  ),
);
progress(`raw results: ${file}`);
process.exit(0);
