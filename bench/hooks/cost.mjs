// What a hook costs the agent (issue 33, "Must show"), in one run on one broker:
// 1. Per hook call, for each event type (PostToolUse, Notification, Stop with no follow-up, PermissionRequest up to
//    the question being open), wall and CPU time of the whole process (start to exit, every thread; the kernel's
//    own accounting through wait4, rusage-runner.py), median and p95 over N calls, for: a bare `node -e 0` given the
//    same stdin (the floor of any Node process), a `curl` POST of the same JSON to the broker's hook route (what a
//    Claude Code "type": "http" hook sends, from a process), `notify hook claude-code <Event>` as `notify hooks
//    install --kind command` writes it, and with --baseline=DIR the same from an older built checkout. The four
//    alternate call by call, so each sees the same drift of this shared machine. For the HTTP route, the broker's
//    own time per request (headers in to the last byte out; broker-timing.mjs) is what Claude Code's own request
//    takes there.
// 2. The real Claude Code (the pinned 2.1.330 binary), `claude -p` through a loopback mock model that asks for M
//    tool calls (Read of a small file) and then ends its turn: wall time per session with no hooks, with command
//    hooks (this checkout's, and the baseline's), and with http hooks, the variants alternated session by session.
// Usage: npx tsc -b && npm run bench:hook-cost [-- --quick] [--calls=50] [--sessions=3] [--tool-calls=50]
//        [--baseline=DIR (node bench/hooks/make-baseline.mjs 4e1d36d DIR makes one)] [--current=DIR (the checkout
//        measured as "notify hook" and serving as the broker: this one by default)] [--no-calls] [--no-sessions]
// Results: a Markdown summary on stdout, everything in bench/results/hook-cost-<time>.json.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { ensureDir, machineBusySeconds, procCpuSeconds, progress, REPO_ROOT } from "../broker/lib.mjs";
import { benchRoot, installHooks, NODE, nsToMs, startRunner, startTimedBroker, stats } from "./cost-lib.mjs";

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
function option(name, fallback) {
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  if (inline !== undefined) return inline.slice(name.length + 3);
  const index = args.indexOf(`--${name}`);
  return index !== -1 && args[index + 1] !== undefined ? args[index + 1] : fallback;
}
const quick = flag("quick");
const CALLS = Number(option("calls", quick ? 5 : 50));
const SESSIONS = Number(option("sessions", quick ? 1 : 3));
const TOOL_CALLS = Number(option("tool-calls", quick ? 5 : 50));
const BASELINE = option("baseline", undefined);
/** The checkout whose broker serves and whose `notify hook` is measured: this one, or a built copy of a commit. */
const CURRENT = resolve(option("current", REPO_ROOT));
const CLAUDE = join(REPO_ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const CLAUDE_TEST_KEY = "sk-ant-test-not-a-real-key-0123456789";
const FINAL_TEXT = "Read them all.";

if (BASELINE !== undefined && !existsSync(join(BASELINE, "packages/broker/dist/cli/main.js"))) {
  throw new Error(`--baseline=${BASELINE}: no built broker there (node bench/hooks/make-baseline.mjs COMMIT DIR)`);
}
const runSessions = !flag("no-sessions");
if (runSessions && !existsSync(CLAUDE)) throw new Error(`no Claude Code binary at ${CLAUDE} (npm ci)`);

const root = benchRoot();
const work = join(root, "project");
mkdirSync(work, { recursive: true });
writeFileSync(join(work, "small.txt"), "one small file\n");

const runner = startRunner();
const broker = await startTimedBroker(root, CURRENT);
progress(`broker on ${broker.url}, sandbox ${root}`);

/** A HOME as a person who used Claude Code before has it (no first-run screen), with nothing installed yet. */
function makeHome(name) {
  const home = join(root, `home-${name}`);
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [CLAUDE_TEST_KEY.slice(-20)], rejected: [] },
      projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
  return home;
}

const homes = { none: makeHome("none"), command: makeHome("command"), http: makeHome("http") };
const installed = { command: installHooks(CURRENT, homes.command, broker, ["--kind", "command"]) };
if (BASELINE !== undefined) {
  homes.baseline = makeHome("baseline");
  installed.baseline = installHooks(resolve(BASELINE), homes.baseline, broker, []);
}
// Last: every http install makes a new hook token, and the broker takes only the newest.
installed.http = installHooks(CURRENT, homes.http, broker, ["--kind", "http"]);
for (const [name, { kinds }] of Object.entries(installed)) {
  const want = name === "http" ? "http" : "command";
  const wrong = Object.entries(kinds).filter(([, kind]) => kind !== want);
  if (wrong.length > 0) throw new Error(`${name} install wrote ${JSON.stringify(kinds)}`);
}
const hookToken = installed.http.settings.env?.NOTIFY_HOOK_TOKEN;
if (typeof hookToken !== "string") throw new Error("the http install wrote no NOTIFY_HOOK_TOKEN");
// curl reads the header from a file: the token is never on a command line.
const headerFile = join(root, "curl-headers");
writeFileSync(headerFile, `Authorization: Bearer ${hookToken}\nContent-Type: application/json\n`, { mode: 0o600 });

const hookUrl = `${broker.url}/v1/hooks/claude-code`;
const hookPath = "/v1/hooks/claude-code";

// ---------------------------------------------------------------------------------------------------------------
// 1. Per hook call.

const QUIET_SESSION = "bench-quiet-session";
const common = (session) => ({
  session_id: session,
  transcript_path: join(root, "transcript.jsonl"),
  cwd: work,
  permission_mode: "default",
});
/** Claude Code's documented inputs (test/hooks/fixtures.ts), in a session that never had a hook question. */
const EVENTS = {
  PostToolUse: (i) => ({
    ...common(QUIET_SESSION),
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: `echo step ${i}`, description: "Print a step" },
    tool_response: { stdout: `step ${i}\n`, stderr: "", interrupted: false },
    tool_use_id: `toolu_bench_${i}`,
  }),
  Notification: () => ({
    ...common(QUIET_SESSION),
    hook_event_name: "Notification",
    message: "Claude is waiting for your input",
    notification_type: "idle_prompt",
  }),
  Stop: () => ({
    ...common(QUIET_SESSION),
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: "I've completed the refactoring. Here's a summary...",
  }),
  PermissionRequest: (i, caller) => ({
    ...common(`bench-permission-${caller}-${i}`),
    hook_event_name: "PermissionRequest",
    tool_name: "Bash",
    tool_input: { command: `rm -rf build-${i}`, description: "Remove the build directory" },
    permission_suggestions: [{ type: "toolAlwaysAllow", tool: "Bash" }],
  }),
};
const OPENS_QUESTION = new Set(["PermissionRequest"]);

const callers = [
  { id: "node -e 0", argv: () => [NODE, "-e", "0"] },
  {
    id: "curl POST",
    argv: () => [
      "curl",
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "-H",
      `@${headerFile}`,
      "--data-binary",
      "@-",
      hookUrl,
    ],
    isCurl: true,
  },
  { id: "notify hook", argv: (event) => installed.command.commands[event], isHook: true },
];
if (BASELINE !== undefined) {
  callers.push({ id: "notify hook (baseline)", argv: (event) => installed.baseline.commands[event], isHook: true });
}
const runEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: homes.command, LANG: process.env.LANG ?? "C.UTF-8" };

function checkExit(caller, event, result) {
  const ok = caller.isCurl ? result.stdout === "200" : result.code === 0;
  if (!ok) {
    throw new Error(`${caller.id} ${event} ended ${result.code}/${result.signal}: ${result.stdout} ${result.stderr}`);
  }
}

/** One call that runs to its end: wall and CPU of the whole process. */
async function oneCall(caller, event, i) {
  const result = await runner.ask({
    op: "run",
    argv: caller.argv(event),
    env: runEnv,
    cwd: work,
    stdin: JSON.stringify(EVENTS[event](i, caller.id.replace(/\W+/g, "-"))),
    timeoutMs: 60_000,
  });
  if (caller.id !== "node -e 0") checkExit(caller, event, result);
  return {
    spawnNs: BigInt(result.spawnNs),
    endNs: BigInt(result.exitNs),
    wallMs: nsToMs(BigInt(result.exitNs) - BigInt(result.spawnNs)),
    cpuMs: (result.userUs + result.sysUs) / 1000,
    maxRssKb: result.maxRssKb,
  };
}

/**
 * One PermissionRequest up to its question being open: from the spawn to the broker's answer to the POST /v1/events
 * that opens it (the same moment for the hook process and for the broker's own HTTP route), and the process's CPU
 * read right then; then the caller is stopped (SIGTERM: the hook withdraws its question; curl's close makes the
 * broker withdraw it) before the next call.
 */
async function oneOpen(caller, event, i) {
  const started = await runner.ask({
    op: "start",
    argv: caller.argv(event),
    env: runEnv,
    cwd: work,
    stdin: JSON.stringify(EVENTS[event](i, caller.id.replace(/\W+/g, "-"))),
  });
  const spawnNs = BigInt(started.spawnNs);
  const isCreate = (entry) => entry.method === "POST" && entry.path === "/v1/events" && entry.startNs > spawnNs;
  const opening = broker.timings.next(isCreate, `question of ${caller.id} call ${i}`, 60_000);
  const opened = await opening.catch(() => undefined);
  const stopped = await runner.ask({ op: "stop", timeoutMs: 15_000 });
  if (opened === undefined)
    await opening.catch((error) => Promise.reject(new Error(`${error.message}: ${stopped.stderr}`)));
  if (opened.status !== 200 && opened.status !== 201) throw new Error(`the question's event answered ${opened.status}`);
  if (caller.isCurl) {
    // The broker withdraws the question once curl's connection closes: wait for it, so calls do not overlap.
    await broker.timings
      .next((entry) => isCreate(entry) && entry.startNs > opened.endNs, "withdrawal", 15_000)
      .catch(() => progress(`call ${i}: no withdrawal of the curl question seen`));
  }
  return {
    spawnNs,
    endNs: opened.endNs,
    wallMs: nsToMs(opened.endNs - spawnNs),
    cpuMs: stopped.cpuSoFarUs / 1000,
    maxRssKb: stopped.maxRssKb,
  };
}

async function perCall() {
  const events = Object.keys(EVENTS);
  const raw = {};
  for (const event of events) {
    raw[event] = Object.fromEntries(callers.map((caller) => [caller.id, []]));
    for (let i = 0; i < CALLS; i += 1) {
      // Each call index starts with the next caller, so none is always first after the previous event's work.
      const order = callers.map((_, k) => callers[(k + i) % callers.length]);
      for (const caller of order) {
        const opens = OPENS_QUESTION.has(event) && caller.id !== "node -e 0";
        raw[event][caller.id].push(opens ? await oneOpen(caller, event, i) : await oneCall(caller, event, i));
      }
    }
    progress(`${event}: ${CALLS} calls each`);
  }
  // Every request the broker served has reached us once it answered one more (its lines come in order).
  await fetch(`${broker.url}/v1/health`).then((response) => response.arrayBuffer());
  await broker.timings.next((entry) => entry.path === "/v1/health", "the closing health check", 15_000);
  const summary = {};
  for (const event of events) {
    summary[event] = {};
    const floor = raw[event]["node -e 0"];
    for (const caller of callers) {
      const samples = raw[event][caller.id];
      const requests = samples.map((sample) => broker.timings.between(sample.spawnNs, sample.endNs));
      const hookRoute = samples.flatMap((sample) =>
        broker.timings.answeredBetween(sample.spawnNs, sample.endNs).filter((entry) => entry.path === hookPath),
      );
      const hookStarts = requests.map((list) => list.find((entry) => entry.path === hookPath));
      const wall = stats(samples.map((sample) => sample.wallMs));
      const cpu = stats(samples.map((sample) => sample.cpuMs));
      summary[event][caller.id] = {
        wallMs: wall,
        cpuMs: cpu,
        peakRssMiB: stats(samples.map((sample) => sample.maxRssKb / 1024)),
        brokerRequestsPerCall: stats(
          requests.map((list) => list.length),
          2,
        ),
        ...(hookStarts.some((entry) => entry !== undefined)
          ? {
              // Accepted to answered; for PermissionRequest to the question being open (the answer waits for a person).
              brokerHookRouteMs: OPENS_QUESTION.has(event)
                ? stats(
                    samples.map((sample, k) =>
                      hookStarts[k] ? nsToMs(sample.endNs - hookStarts[k].startNs) : Number.NaN,
                    ),
                    2,
                  )
                : stats(
                    hookRoute.map((entry) => nsToMs(entry.endNs - entry.startNs)),
                    2,
                  ),
            }
          : {}),
        vsNode: {
          wallP50: Math.round((wall.p50 / stats(floor.map((s) => s.wallMs)).p50) * 100) / 100,
          cpuP50: Math.round((cpu.p50 / stats(floor.map((s) => s.cpuMs)).p50) * 100) / 100,
        },
      };
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------------------------
// 2. The real Claude Code, one session per variant in turn.

async function sessionsBench() {
  const { startModelMock } = await import(join(REPO_ROOT, "packages/test-kit/dist/model-mock.js"));
  let wanted = TOOL_CALLS;
  let seenResults = 0;
  /** When each model turn of the session's loop came in: the gap between two is one tool call's round. */
  let turnTimes = [];
  const reply = (turn) => {
    const offersRead = turn.tools.some((tool) => tool.name === "Read");
    if (!turn.stream || !offersRead) return { text: "OK" };
    seenResults = Math.max(seenResults, turn.toolResults.length);
    turnTimes.push(process.hrtime.bigint());
    if (turn.toolResults.length < wanted) return { tool: "Read", input: { file_path: join(work, "small.txt") } };
    return { text: FINAL_TEXT };
  };
  const mock = await startModelMock({ reply, models: [] });
  const deadProxy = "http://127.0.0.1:9";
  const env = (home) => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: process.env.LANG ?? "C.UTF-8",
    USER: process.env.USER ?? "bench",
    SHELL: "/bin/bash",
    HOME: home,
    TERM: "dumb",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    HTTPS_PROXY: deadProxy,
    HTTP_PROXY: deadProxy,
    ALL_PROXY: deadProxy,
    https_proxy: deadProxy,
    http_proxy: deadProxy,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    ANTHROPIC_BASE_URL: mock.origin,
    ANTHROPIC_API_KEY: CLAUDE_TEST_KEY,
  });
  const variants = ["none", "command", ...(BASELINE !== undefined ? ["baseline"] : []), "http"];
  const one = async (variant, toolCalls) => {
    wanted = toolCalls;
    seenResults = 0;
    turnTimes = [];
    mock.hits.length = 0;
    const brokerCpuBefore = procCpuSeconds(broker.pid);
    const result = await runner.ask({
      op: "run",
      argv: [CLAUDE, "-p", "Read small.txt again and again until I say stop."],
      env: env(homes[variant]),
      cwd: work,
      stdin: "",
      timeoutMs: 600_000,
    });
    // Let the last hook requests' lines arrive (a health check is served after them).
    await fetch(`${broker.url}/v1/health`).then((response) => response.arrayBuffer());
    const health = await broker.timings.next(
      (entry) => entry.path === "/v1/health" && entry.startNs > BigInt(result.exitNs),
      "the closing health check",
      15_000,
    );
    const brokerCpuMs = (procCpuSeconds(broker.pid) - brokerCpuBefore) * 1000;
    if (result.code !== 0 || !result.stdout.includes(FINAL_TEXT) || seenResults !== toolCalls) {
      throw new Error(
        `${variant} session: code ${result.code}, ${seenResults}/${toolCalls} tool results: ${result.stdout}\n${result.stderr}`,
      );
    }
    const requests = broker.timings.answeredBetween(BigInt(result.spawnNs), health.startNs - 1n);
    // In accepted order: a `-p` session posts UserPromptSubmit, then PostToolUse per tool call, then Stop.
    const hookRequests = requests
      .filter((entry) => entry.path === hookPath)
      .sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
    const unanswered = broker.timings.between(BigInt(result.spawnNs), health.startNs - 1n).length - requests.length;
    if (unanswered !== 0) throw new Error(`${variant} session: ${unanswered} requests to the broker never answered`);
    const events = requests.filter((entry) => entry.path === "/v1/events");
    const expected = variant === "none" ? events.length === 0 : events.length >= 1;
    if (!expected || (variant === "http") !== hookRequests.length > 0) {
      throw new Error(`${variant} session: ${events.length} events and ${hookRequests.length} hook requests`);
    }
    if (variant === "http" && hookRequests.length < toolCalls) {
      throw new Error(`http session: ${hookRequests.length} hook requests for ${toolCalls} tool calls`);
    }
    return {
      wallMs: nsToMs(BigInt(result.exitNs) - BigInt(result.spawnNs)),
      turnGapsMs: turnTimes.slice(1).map((time, k) => nsToMs(time - turnTimes[k])),
      claudeCpuMs: (result.userUs + result.sysUs) / 1000,
      brokerCpuMs,
      hookRequests: hookRequests.map((entry, k) => ({
        event:
          hookRequests.length !== toolCalls + 2
            ? "?"
            : k === 0
              ? "UserPromptSubmit"
              : k === hookRequests.length - 1
                ? "Stop"
                : "PostToolUse",
        ms: nsToMs(entry.endNs - entry.startNs),
      })),
    };
  };
  // A short session per variant first: Claude Code's first start in a HOME writes its caches.
  for (const variant of variants) await one(variant, 2);
  const raw = Object.fromEntries(variants.map((variant) => [variant, []]));
  for (let round = 0; round < SESSIONS; round += 1) {
    const order = variants.map((_, k) => variants[(k + round) % variants.length]);
    for (const variant of order) {
      raw[variant].push(await one(variant, TOOL_CALLS));
      progress(`session round ${round + 1}/${SESSIONS}: ${variant} ${Math.round(raw[variant].at(-1).wallMs)} ms`);
    }
  }
  await mock.close();
  const noneP50 = stats(raw.none.map((session) => session.wallMs)).p50;
  const noneGapP50 = stats(raw.none.flatMap((session) => session.turnGapsMs)).p50;
  // Claude Code's own CPU with every hook process it ran (wait4 counts reaped children), plus the broker's.
  const totalCpu = (session) => session.claudeCpuMs + session.brokerCpuMs;
  const noneCpuP50 = stats(raw.none.map(totalCpu)).p50;
  // Hooks a session runs: UserPromptSubmit, a PostToolUse per tool call, Stop.
  const hooksPerSession = TOOL_CALLS + 2;
  const perHook = (value) => Math.round(value / hooksPerSession);
  const summary = {};
  for (const variant of variants) {
    const sessions = raw[variant];
    const wall = stats(sessions.map((session) => session.wallMs));
    const cpu = stats(sessions.map(totalCpu));
    const gap = stats(sessions.flatMap((session) => session.turnGapsMs));
    summary[variant] = {
      wallMs: sessions.map((session) => Math.round(session.wallMs)),
      wallP50Ms: wall.p50,
      vsNoHooks: Math.round((wall.p50 / noneP50) * 1000) / 1000,
      claudeCpuMsP50: stats(sessions.map((session) => session.claudeCpuMs)).p50,
      brokerCpuMsP50: stats(sessions.map((session) => session.brokerCpuMs)).p50,
      totalCpuMsP50: cpu.p50,
      // From one model turn to the next: the model's answer streamed, the tool run, its hooks, the next request.
      toolRoundMs: { ...gap, vsNoHooks: Math.round((gap.p50 / noneGapP50) * 1000) / 1000 },
      cpuVsNoHooks: Math.round((cpu.p50 / noneCpuP50) * 1000) / 1000,
      // What one hook adds to the session, from the medians: (variant - no hooks) / hooks per session.
      perHookMs: { wall: perHook(wall.p50 - noneP50), cpu: perHook(cpu.p50 - noneCpuP50) },
      ...(variant === "http"
        ? {
            hookRequestsPerSession: stats(sessions.map((session) => session.hookRequests.length)).p50,
            brokerHookRouteMs: stats(
              sessions.flatMap((session) => session.hookRequests.map((request) => request.ms)),
              2,
            ),
            brokerHookRouteMsByEvent: Object.fromEntries(
              ["UserPromptSubmit", "PostToolUse", "Stop", "?"].flatMap((event) => {
                const times = sessions.flatMap((session) =>
                  session.hookRequests.filter((request) => request.event === event).map((request) => request.ms),
                );
                return times.length > 0 ? [[event, stats(times, 2)]] : [];
              }),
            ),
          }
        : {}),
    };
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------------------------

const fmt = (value) => (value === null || value === undefined ? "-" : `${value}`);

function markdown(result) {
  const lines = [];
  if (result.perCall) {
    lines.push(
      `Per hook call, ${CALLS} calls each (median / p95, ms; CPU = user + system of the whole process):`,
      "",
      "| event | caller | wall p50 | wall p95 | CPU p50 | CPU p95 | wall, CPU vs node -e 0 | broker requests | broker hook route p50 / p95 |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const [event, byCaller] of Object.entries(result.perCall)) {
      for (const [caller, s] of Object.entries(byCaller)) {
        const route = s.brokerHookRouteMs ? `${s.brokerHookRouteMs.p50} / ${s.brokerHookRouteMs.p95}` : "-";
        lines.push(
          `| ${event} | ${caller} | ${s.wallMs.p50} | ${s.wallMs.p95} | ${s.cpuMs.p50} | ${s.cpuMs.p95} | ${s.vsNode.wallP50}x, ${s.vsNode.cpuP50}x | ${fmt(s.brokerRequestsPerCall.p50)} | ${route} |`,
        );
      }
    }
    lines.push("");
  }
  if (result.sessions) {
    lines.push(
      `Claude Code ${result.claudeVersion ?? ""} \`-p\`, ${TOOL_CALLS} tool calls (Read) per session, ${SESSIONS} sessions per variant:`,
      "",
      "| hooks | session wall (ms) | median | vs no hooks | CPU p50: claude + hooks, broker, total | CPU vs no hooks | per hook: wall, CPU | tool round p50 / p95 (vs no hooks) | hook route p50 / p95 |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const [variant, s] of Object.entries(result.sessions)) {
      const route = s.brokerHookRouteMs ? `${s.brokerHookRouteMs.p50} / ${s.brokerHookRouteMs.p95} ms` : "-";
      lines.push(
        `| ${variant} | ${s.wallMs.join(", ")} | ${s.wallP50Ms} | ${s.vsNoHooks} | ${s.claudeCpuMsP50}, ${s.brokerCpuMsP50}, ${s.totalCpuMsP50} | ${s.cpuVsNoHooks} | ${s.perHookMs.wall}, ${s.perHookMs.cpu} ms | ${s.toolRoundMs.p50} / ${s.toolRoundMs.p95} ms (${s.toolRoundMs.vsNoHooks}) | ${route} |`,
      );
    }
  }
  const byEvent = result.sessions?.http?.brokerHookRouteMsByEvent;
  if (byEvent !== undefined) {
    const parts = Object.entries(byEvent).map(([event, t]) => `${event} ${t.p50} / ${t.p95} ms (${t.n})`);
    lines.push(
      "",
      `Claude Code's own hook requests at the broker, accepted to answered (p50 / p95): ${parts.join(", ")}.`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The commit of a checkout: make-baseline.mjs's note in a copy, else git's HEAD (and "+changes" when dirty). */
function commitOf(checkout) {
  if (checkout === undefined) return undefined;
  const note = join(checkout, "BENCH_COMMIT");
  if (existsSync(note)) return readFileSync(note, "utf8").trim();
  const head = spawnSync("git", ["-C", checkout, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
  if (head === "") return "unknown";
  const dirty = spawnSync("git", ["-C", checkout, "status", "--porcelain", "--untracked-files=no"], {
    encoding: "utf8",
  }).stdout.trim();
  return dirty === "" ? head : `${head}+changes`;
}

const startedAt = new Date();
const busyBefore = machineBusySeconds();
const result = {
  startedAt: startedAt.toISOString(),
  node: process.version,
  loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  calls: CALLS,
  sessionsPerVariant: SESSIONS,
  toolCallsPerSession: TOOL_CALLS,
  baseline: BASELINE,
  baselineCommit: commitOf(BASELINE),
  current: CURRENT,
  currentCommit: commitOf(CURRENT),
  hookCommand: installed.command.commands.PostToolUse?.map((word) => word.replace(root, "<sandbox>")),
  baselineHookCommand: installed.baseline?.commands.PostToolUse?.map((word) => word.replace(root, "<sandbox>")),
};
try {
  if (runSessions) {
    const version = readFileSync(join(REPO_ROOT, "node_modules/@anthropic-ai/claude-code/package.json"), "utf8");
    result.claudeVersion = JSON.parse(version).version;
  }
} catch {}
try {
  if (!flag("no-calls")) result.perCall = await perCall();
  if (runSessions) result.sessions = await sessionsBench();
} finally {
  await broker.stop();
  await runner.stop();
  rmSync(root, { recursive: true, force: true });
}
const elapsed = (Date.now() - startedAt.getTime()) / 1000;
result.elapsedSeconds = Math.round(elapsed);
result.machineBusyCores = Math.round(((machineBusySeconds() - busyBefore) / elapsed) * 100) / 100;
result.loadAverageAtEnd = loadavg().map((value) => Math.round(value * 100) / 100);
const file = join(
  ensureDir(join(REPO_ROOT, "bench", "results")),
  `hook-cost-${startedAt.toISOString().replaceAll(":", "-").replace(".", "-")}.json`,
);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(markdown(result));
process.stdout.write(
  `\nmachine busy ${result.machineBusyCores} of 2 cores on average, load ${result.loadAverageAtStart[0]} -> ${result.loadAverageAtEnd[0]}; ${file}\n`,
);
