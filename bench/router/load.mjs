// Scenarios (who is asked, on which wire, streaming or not), a one-request check that each answers correctly, and
// the closed-loop autocannon run with per-request latencies kept at microsecond resolution.
import http from "node:http";
import autocannon from "autocannon";
import {
  machineBusySeconds,
  postOptions,
  procCpuSeconds,
  procMemory,
  REPLY,
  replyOf,
  round,
  streamText,
  summarize,
} from "./lib.mjs";

const SYSTEM = "You are terse.";
const PROMPT = "Say hello.";

export function chatBody(model, stream) {
  return {
    model,
    max_tokens: 64,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: PROMPT },
    ],
    stream,
  };
}

export function messagesBody(model, stream) {
  return { model, max_tokens: 64, system: SYSTEM, messages: [{ role: "user", content: PROMPT }], stream };
}

const PATHS = { chat: "/chat/completions", messages: "/messages" };

/**
 * Every scenario of the run. `kind`: direct (client to mock), passthrough (same wire both sides) or translated.
 * `group` puts the runs that are compared with each other next to each other in time.
 */
export function scenarios({
  mock,
  router,
  bare,
  portkey,
  ccr,
  fastChunks,
  latencyConnections = [],
  latencyRates = [],
  connections: defaultConnections = 10,
}) {
  const list = [];
  const add = (target, clientWire, upstreamWire, stream, request, connections, rate) => {
    const kind =
      target === "direct"
        ? "direct"
        : target === "bare"
          ? "floor"
          : clientWire === upstreamWire
            ? "passthrough"
            : "translated";
    const mode = stream ? "stream" : "json";
    const suffix = connections === undefined ? "" : `@c${connections}${rate === undefined ? "" : `r${rate}`}`;
    list.push({
      id: `${target}:${clientWire}->${upstreamWire}:${mode}${suffix}`,
      target,
      kind,
      clientWire,
      upstreamWire,
      stream,
      group: `${clientWire}->${upstreamWire}:${mode}${suffix}`,
      expectedText: stream ? streamText(fastChunks) : REPLY,
      ...(connections === undefined ? {} : { connections }),
      ...(rate === undefined ? {} : { rate }),
      ...request,
    });
  };
  // Added latency without queueing: direct and router passthrough (chat wire) at fewer connections, and at the
  // target's connection count with a fixed total request rate below saturation (autocannon overallRate).
  const latencyRuns = [
    ...latencyConnections.map((connections) => ({ connections })),
    ...latencyRates.map((rate) => ({ connections: defaultConnections, rate })),
  ];
  for (const { connections, rate } of latencyRuns) {
    for (const stream of [false, true]) {
      add(
        "direct",
        "chat",
        "chat",
        stream,
        {
          url: `${mock.base}/chat/completions`,
          headers: { "content-type": "application/json" },
          body: chatBody("mock-fast", stream),
        },
        connections,
        rate,
      );
      if (bare) {
        add(
          "bare",
          "chat",
          "chat",
          stream,
          {
            url: `${bare.url}/v1/chat/completions`,
            headers: { "content-type": "application/json" },
            body: chatBody("mock-fast", stream),
          },
          connections,
          rate,
        );
      }
      if (router) {
        add(
          "router",
          "chat",
          "chat",
          stream,
          {
            url: `${router.url}/router/v1/chat/completions`,
            headers: { "content-type": "application/json", authorization: `Bearer ${router.key}` },
            body: chatBody("mockchat/mock-fast", stream),
          },
          connections,
          rate,
        );
      }
    }
  }
  for (const stream of [false, true]) {
    // Same wire end to end: the baseline, the router's passthrough, and a peer's passthrough for context.
    for (const wire of ["chat", "messages"]) {
      const body = wire === "chat" ? chatBody : messagesBody;
      add("direct", wire, wire, stream, {
        url: `${mock.base}${PATHS[wire]}`,
        headers: { "content-type": "application/json", ...(wire === "messages" ? { "x-api-key": "mock" } : {}) },
        body: body("mock-fast", stream),
      });
      if (bare && wire === "chat") {
        add("bare", "chat", "chat", stream, {
          url: `${bare.url}/v1/chat/completions`,
          headers: { "content-type": "application/json" },
          body: chatBody("mock-fast", stream),
        });
      }
      if (router) {
        add("router", wire, wire, stream, {
          url: `${router.url}/router/v1${PATHS[wire]}`,
          headers:
            wire === "chat"
              ? { "content-type": "application/json", authorization: `Bearer ${router.key}` }
              : { "content-type": "application/json", "x-api-key": router.key, "anthropic-version": "2023-06-01" },
          body: body(wire === "chat" ? "mockchat/mock-fast" : "mockmsg/mock-fast", stream),
        });
      }
      if (ccr && wire === "messages") {
        // claude-code-router's passthrough: messages in, its messages-wire provider `mockmsg` out.
        add("ccr", "messages", "messages", stream, {
          url: `${ccr.url}/v1/messages`,
          headers: { "content-type": "application/json", "x-api-key": ccr.apiKey, "anthropic-version": "2023-06-01" },
          body: messagesBody("mockmsg,mock-fast", stream),
        });
      }
      if (portkey) {
        add("portkey", wire, wire, stream, {
          url: `${portkey.url}/v1${PATHS[wire]}`,
          headers:
            wire === "chat"
              ? portkeyHeaders("openai", mock)
              : { ...portkeyHeaders("anthropic", mock), "anthropic-version": "2023-06-01" },
          body: body("mock-fast", stream),
        });
      }
    }
  }
  for (const stream of [false, true]) {
    // Translated: chat client to a messages-wire upstream.
    if (router) {
      add("router", "chat", "messages", stream, {
        url: `${router.url}/router/v1/chat/completions`,
        headers: { "content-type": "application/json", authorization: `Bearer ${router.key}` },
        body: chatBody("mockmsg/mock-fast", stream),
      });
    }
    if (portkey) {
      add("portkey", "chat", "messages", stream, {
        url: `${portkey.url}/v1/chat/completions`,
        headers: portkeyHeaders("anthropic", mock),
        body: chatBody("mock-fast", stream),
      });
    }
    if (ccr) {
      // claude-code-router has no chat-wire entry point; the check records what it answers.
      add("ccr", "chat", "messages", stream, {
        url: `${ccr.url}/v1/chat/completions`,
        headers: { "content-type": "application/json", authorization: `Bearer ${ccr.apiKey}` },
        body: chatBody("mock,mock-fast", stream),
      });
    }
  }
  for (const stream of [false, true]) {
    // Translated: messages client to a chat-wire upstream.
    if (router) {
      add("router", "messages", "chat", stream, {
        url: `${router.url}/router/v1/messages`,
        headers: { "content-type": "application/json", "x-api-key": router.key, "anthropic-version": "2023-06-01" },
        body: messagesBody("mockchat/mock-fast", stream),
      });
    }
    if (portkey) {
      add("portkey", "messages", "chat", stream, {
        url: `${portkey.url}/v1/messages`,
        headers: { ...portkeyHeaders("openai", mock), "anthropic-version": "2023-06-01" },
        body: messagesBody("mock-fast", stream),
      });
    }
    if (ccr) {
      add("ccr", "messages", "chat", stream, {
        url: `${ccr.url}/v1/messages`,
        headers: { "content-type": "application/json", "x-api-key": ccr.apiKey, "anthropic-version": "2023-06-01" },
        body: messagesBody("mock,mock-fast", stream),
      });
    }
  }
  return list;
}

function portkeyHeaders(provider, mock) {
  return {
    "content-type": "application/json",
    authorization: "Bearer mock-upstream-key",
    "x-portkey-provider": provider,
    "x-portkey-custom-host": mock.base,
  };
}

/** The first line of an error body's message (`error.message` or `message`), else the start of the body. */
function errorText(text) {
  try {
    const json = JSON.parse(text);
    const message = json?.error?.message ?? json?.message;
    if (typeof message === "string") return message.split("\n")[0].slice(0, 200);
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

/** One request: 200 and the expected assistant text (and, for a stream, its terminal event), or why not. */
export async function check(scenario) {
  let status;
  let text = "";
  try {
    const response = await fetch(scenario.url, {
      method: "POST",
      headers: scenario.headers,
      body: JSON.stringify(scenario.body),
      signal: AbortSignal.timeout(15_000),
    });
    status = response.status;
    text = await response.text();
    if (status !== 200)
      return { ok: false, status, error: `HTTP ${status}: ${errorText(text)}`, body: text.slice(0, 2000) };
    const reply = replyOf(scenario.clientWire, scenario.stream, text);
    if (reply.text !== scenario.expectedText)
      return { ok: false, status, error: `unexpected text ${JSON.stringify(reply.text.slice(0, 120))}` };
    if (!reply.complete) return { ok: false, status, error: "stream ended without its terminal event" };
    return { ok: true, status, bytes: Buffer.byteLength(text) };
  } catch (error) {
    return { ok: false, status, error: `${error.name}: ${error.message}`.slice(0, 300) };
  }
}

/**
 * A paced run: `connections` keep-alive connections, each sending one request every `connections / rate` seconds
 * on its own staggered schedule (autocannon's overallRate sends each second's quota in a burst, which measures its
 * own queue). A request whose slot has passed is sent at once. Returns autocannon-shaped counters and the
 * latencies (float ms) of 2xx answers, each read to its end.
 */
export async function pacedRun({ url, headers, body, connections, durationSeconds, rate }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const payload = JSON.stringify(body);
  const target = new URL(url);
  const intervalMs = (1000 * connections) / rate;
  const samples = [];
  const counts = { "2xx": 0, non2xx: 0, errors: 0, timeouts: 0 };
  const one = () =>
    new Promise((resolveOne) => {
      const t0 = performance.now();
      const req = http.request(postOptions(target, agent, headers, payload, 10_000), (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode >= 200 && res.statusCode < 300) {
            counts["2xx"]++;
            samples.push(performance.now() - t0);
          } else counts.non2xx++;
          resolveOne();
        });
      });
      req.on("timeout", () => {
        counts.timeouts++;
        req.destroy();
      });
      req.on("error", () => {
        counts.errors++;
        resolveOne();
      });
      req.end(payload);
    });
  const started = performance.now();
  const endAt = started + durationSeconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, lane) => {
      for (let slot = 0; ; slot++) {
        const due = started + (lane * intervalMs) / connections + slot * intervalMs;
        if (due >= endAt) return;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolveWait) => setTimeout(resolveWait, wait));
        await one();
      }
    }),
  );
  agent.destroy();
  return { result: { ...counts, duration: (performance.now() - started) / 1000 }, samples };
}

/** A closed-loop autocannon run; latencies of 2xx answers are kept from its `response` events (float ms). */
export function autocannonRun({ url, headers, body, connections, durationSeconds }) {
  return new Promise((resolveRun, reject) => {
    const samples = [];
    const instance = autocannon(
      {
        url,
        method: "POST",
        headers,
        body: JSON.stringify(body),
        connections,
        pipelining: 1,
        duration: durationSeconds,
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolveRun({ result, samples })),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
    });
  });
}

/**
 * Slices of one scenario measured at different times (see `--rounds`) as one measurement: counts and CPU added up,
 * latency percentiles over all the samples, cores and other load weighted by each slice's time.
 */
export function mergeSlices(slices) {
  const sum = (pick) => slices.reduce((total, slice) => total + (pick(slice) ?? 0), 0);
  const elapsed = sum((slice) => slice.elapsedSeconds);
  const weighted = (pick) => round(sum((slice) => pick(slice) * slice.elapsedSeconds) / elapsed, 2);
  const requests = sum((slice) => slice.requests);
  const duration = sum((slice) => slice.durationSeconds);
  const last = slices.at(-1);
  const cpu = slices.every((slice) => slice.targetCpuSeconds !== undefined)
    ? sum((slice) => slice.targetCpuSeconds)
    : undefined;
  return {
    connections: last.connections,
    ...(last.rate === undefined ? {} : { rate: last.rate }),
    slices: slices.length,
    requests,
    non2xx: sum((slice) => slice.non2xx),
    errors: sum((slice) => slice.errors),
    timeouts: sum((slice) => slice.timeouts),
    durationSeconds: round(duration, 3),
    rps: round(requests / duration, 1),
    latencyMs: summarize(slices.flatMap((slice) => slice.samples)),
    upstreamRequests: sum((slice) => slice.upstreamRequests),
    cores: Object.fromEntries(Object.keys(last.cores).map((name) => [name, weighted((slice) => slice.cores[name])])),
    machineCores: weighted((slice) => slice.machineCores),
    foreignCores: weighted((slice) => slice.foreignCores),
    targetCpuMsPerRequest: cpu === undefined ? undefined : round((cpu * 1000) / requests, 3),
    targetRssMb: last.targetRssMb,
    targetHwmMb: Math.max(...slices.map((slice) => slice.targetHwmMb)),
    sliceRps: slices.map((slice) => slice.rps),
  };
}

/**
 * Warm-up, then the measured run, with CPU seconds of every process involved and of the whole machine (what is
 * left over is other work on the machine, reported as `foreignCores`).
 */
export async function measure(scenario, { connections, durationSeconds, warmupSeconds, pids, mock }) {
  const request = {
    url: scenario.url,
    headers: scenario.headers,
    body: scenario.body,
    connections: scenario.connections ?? connections,
    rate: scenario.rate,
  };
  const run = request.rate === undefined ? autocannonRun : pacedRun;
  if (warmupSeconds > 0) await run({ ...request, durationSeconds: warmupSeconds });
  await mock.resetStats();
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, procCpuSeconds(pid)]));
  const selfBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  const { result, samples } = await run({ ...request, durationSeconds });
  const elapsedSeconds = (performance.now() - started) / 1000;
  const machineCores = (machineBusySeconds() - machineBefore) / elapsedSeconds;
  const self = process.cpuUsage(selfBefore);
  const cores = { bench: (self.user + self.system) / 1e6 / elapsedSeconds };
  for (const [name, pid] of Object.entries(pids))
    cores[name] = (procCpuSeconds(pid) - cpuBefore[name]) / elapsedSeconds;
  const ours = Object.values(cores).reduce((sum, value) => sum + value, 0);
  const upstream = await mock.stats();
  const ok = result["2xx"];
  const targetPid = pids[scenario.target === "direct" ? "mock" : scenario.target];
  return {
    samples,
    connections: request.connections,
    ...(request.rate === undefined ? {} : { rate: request.rate }),
    requests: ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: round(result.duration, 3),
    rps: round(ok / result.duration, 1),
    latencyMs: summarize(samples),
    upstreamRequests: upstream.chatJson + upstream.chatStream + upstream.messagesJson + upstream.messagesStream,
    cores: Object.fromEntries(Object.entries(cores).map(([name, value]) => [name, round(value, 2)])),
    machineCores: round(machineCores, 2),
    foreignCores: round(Math.max(0, machineCores - ours), 2),
    elapsedSeconds,
    targetCpuSeconds: scenario.target === "direct" ? undefined : cores[scenario.target] * elapsedSeconds,
    targetCpuMsPerRequest:
      scenario.target === "direct" ? undefined : round((cores[scenario.target] * elapsedSeconds * 1000) / ok, 3),
    targetRssMb: round(procMemory(targetPid).rssKb / 1024, 1),
    // VmHWM: the process's peak RSS since it started (every row so far on this process, warm-ups included).
    targetHwmMb: round(procMemory(targetPid).hwmKb / 1024, 1),
  };
}
