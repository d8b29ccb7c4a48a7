// Benchmarks 2 and 3: many concurrent long-poll waiters held, and answer-to-wake latency.
import { randomUUID } from "node:crypto";
import http from "node:http";
import {
  counterDelta,
  establishedOnPort,
  procCpuSeconds,
  procMemory,
  procOpenFds,
  progress,
  request,
  round,
  sleep,
  summarize,
  tcpCounters,
  waitForQuiet,
} from "./lib.mjs";

const roundStats = (stats) => Object.fromEntries(Object.entries(stats).map(([k, v]) => [k, round(v, 3)]));

export async function createInteraction(broker, agent, index) {
  const result = await request(agent, `${broker.url}/v1/interactions/request`, {
    method: "POST",
    token: broker.token,
    body: {
      agent: "bench",
      kind: "permission",
      prompt: `bench question ${index}: may the agent run the next step?`,
      ttl_seconds: 3600,
    },
  });
  if (result.status !== 201) throw new Error(`create interaction: HTTP ${result.status} ${result.text}`);
  return result.body;
}

function respondBody(interaction) {
  return {
    response_id: `bench-${randomUUID()}`,
    request_digest: interaction.request_digest,
    nonce: interaction.nonce,
    choice_id: interaction.choices[0].id,
    source: "cli",
  };
}

/** Races a promise against a deadline; the benchmark never waits unboundedly. */
function withDeadline(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Opens `count` long-polls spread over `interactions`, in batches. With `pacePid`, each batch also waits until
 * that server process is idle again: a flushed request only means the kernel completed the handshake, and
 * connections the server has not accept()ed yet pile up in its listen queue (backlog 511), whose overflow drops
 * SYNs that the client resends only after 1 s. Returns the waiter records; each gets `result` once answered.
 */
export async function openWaiters(
  broker,
  agent,
  interactions,
  count,
  { batchSize = 500, onEarly, urlFor, pacePid } = {},
) {
  const waiters = [];
  for (let start = 0; start < count; start += batchSize) {
    const flushed = [];
    for (let index = start; index < Math.min(count, start + batchSize); index++) {
      const interaction = interactions[index % interactions.length];
      const url = urlFor ? urlFor(index) : `${broker.url}/v1/interactions/${interaction.id}/wait?timeout=300`;
      const waiter = { index, interactionId: interaction.id, result: undefined, error: undefined };
      let markFlushed;
      flushed.push(
        new Promise((done) => {
          markFlushed = done;
        }),
      );
      waiter.done = request(agent, url, {
        token: broker.token,
        onFinish: markFlushed,
      }).then(
        (result) => {
          waiter.result = result;
          onEarly?.(waiter);
        },
        (error) => {
          waiter.error = error;
          markFlushed();
        },
      );
      waiters.push(waiter);
    }
    await withDeadline(Promise.all(flushed), 30_000, `flushing long-poll batch at ${start}`);
    if (pacePid) await waitForQuiet(pacePid, { quietMs: 100, stepMs: 25, maxMs: 10_000 });
  }
  return waiters;
}

/**
 * Benchmark 2: `interactionCount` interactions x `perInteraction` waiters held at once. Checks that none returns
 * before the answer, reads the broker's RSS before and while holding, then answers every interaction and checks
 * that every waiter woke with the answered interaction.
 */
export async function runHold({ broker, interactionCount, perInteraction, holdSeconds }) {
  const total = interactionCount * perInteraction;
  const apiAgent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  const waitAgent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: total });
  try {
    progress(`hold: creating ${interactionCount} interactions`);
    const interactions = [];
    for (let i = 0; i < interactionCount; i++) interactions.push(await createInteraction(broker, apiAgent, i));
    await waitForQuiet(broker.pid, { quietMs: 300 });
    const before = {
      ...procMemory(broker.pid),
      fds: procOpenFds(broker.pid),
      established: establishedOnPort(broker.port),
    };
    progress(`hold: broker RSS before ${(before.rssKb / 1024).toFixed(1)} MB; opening ${total} long-polls`);

    let answeringStarted = false;
    let early = 0;
    const cpuBeforeOpen = procCpuSeconds(broker.pid);
    const tcpBefore = tcpCounters();
    const openStart = performance.now();
    const waiters = await openWaiters(broker, waitAgent, interactions, total, {
      pacePid: broker.pid,
      onEarly: () => {
        if (!answeringStarted) early++;
      },
    });
    const flushedMs = performance.now() - openStart;
    await waitForQuiet(broker.pid, { quietMs: 500, maxMs: 30_000 });
    // The broker went idle about one quiet window (500 ms) before waitForQuiet returned.
    const registeredMs = Math.max(flushedMs, performance.now() - 500 - openStart);
    const openCpuSeconds = procCpuSeconds(broker.pid) - cpuBeforeOpen;
    const tcpWhileOpening = counterDelta(tcpBefore, tcpCounters());
    const openErrors = waiters.filter((w) => w.error).length;
    progress(
      `hold: ${total} long-polls flushed in ${(flushedMs / 1000).toFixed(2)} s, broker idle again after ` +
        `~${(registeredMs / 1000).toFixed(2)} s (broker CPU ${openCpuSeconds.toFixed(2)} s, TCP ${JSON.stringify(tcpWhileOpening)}); ` +
        `holding ${holdSeconds} s`,
    );

    let peakRssKb = 0;
    const holdEnd = Date.now() + holdSeconds * 1000;
    while (Date.now() < holdEnd) {
      peakRssKb = Math.max(peakRssKb, procMemory(broker.pid).rssKb);
      await sleep(250);
    }
    const holding = {
      ...procMemory(broker.pid),
      peakRssKbSampled: peakRssKb,
      fds: procOpenFds(broker.pid),
      established: establishedOnPort(broker.port),
      returnedEarly: early,
      openErrors,
      stillOpen: waiters.filter((w) => !w.result && !w.error).length,
    };
    progress(
      `hold: holding ${holding.stillOpen}/${total} (returned early ${early}, errors ${openErrors}), ` +
        `${holding.established} established server sockets, broker RSS ${(holding.rssKb / 1024).toFixed(1)} MB`,
    );

    progress(`hold: answering ${interactionCount} interactions`);
    answeringStarted = true;
    const sentAt = new Map();
    const wakeStart = performance.now();
    const respondStatuses = {};
    await Promise.all(
      interactions.map(async (interaction) => {
        // Per-waiter latency counts from the moment this respond request was flushed to its socket.
        const result = await request(apiAgent, `${broker.url}/v1/interactions/${interaction.id}/respond`, {
          method: "POST",
          token: broker.token,
          body: respondBody(interaction),
          onFinish: () => sentAt.set(interaction.id, performance.now()),
        });
        respondStatuses[result.status] = (respondStatuses[result.status] ?? 0) + 1;
      }),
    );
    let wakeTimedOut = false;
    try {
      await withDeadline(Promise.all(waiters.map((w) => w.done)), 60_000, "waking all long-polls");
    } catch (error) {
      wakeTimedOut = true;
      progress(String(error.message));
    }
    const woke = waiters.filter((w) => w.result?.status === 200 && w.result.body?.status === "answered");
    const lastWake = Math.max(...woke.map((w) => w.result.endedAt));
    const wakeLatencies = woke.map((w) => w.result.endedAt - sentAt.get(w.interactionId));
    const after = { ...procMemory(broker.pid), fds: procOpenFds(broker.pid) };
    const result = {
      interactions: interactionCount,
      waitersPerInteraction: perInteraction,
      waiters: total,
      holdSeconds,
      openFlushSeconds: round(flushedMs / 1000, 3),
      openUntilBrokerIdleSeconds: round(registeredMs / 1000, 3),
      brokerCpuSecondsToOpen: round(openCpuSeconds, 2),
      brokerCpuMsPerWait: round((1000 * openCpuSeconds) / total, 3),
      tcpWhileOpening,
      before,
      holding,
      after,
      rssBeforeMb: round(before.rssKb / 1024, 1),
      rssHoldingMb: round(holding.rssKb / 1024, 1),
      rssPeakMb: round(Math.max(holding.peakRssKbSampled, holding.rssKb) / 1024, 1),
      rssDeltaMb: round((holding.rssKb - before.rssKb) / 1024, 1),
      respondStatuses,
      woke: woke.length,
      notWoken: total - woke.length,
      wakeTimedOut,
      allWokeSeconds: round((lastWake - wakeStart) / 1000, 3),
      wakeLatencyMs: roundStats(summarize(wakeLatencies)),
    };
    progress(
      `hold: ${woke.length}/${total} woke answered in ${result.allWokeSeconds} s ` +
        `(per-waiter p50 ${result.wakeLatencyMs.p50} ms, p99 ${result.wakeLatencyMs.p99} ms)`,
    );
    return result;
  } finally {
    waitAgent.destroy();
    apiAgent.destroy();
  }
}

/**
 * Baseline for benchmark 2: the bare fastify server holding the same number of pending GETs (no timers, no
 * database; each is a promise resolved by POST /release). Shows how much of the broker's RSS is Node + fastify.
 */
export async function runHoldBaseline({ baseline, total }) {
  const apiAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const waitAgent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: total });
  try {
    await waitForQuiet(baseline.pid, { quietMs: 300 });
    const before = procMemory(baseline.pid);
    let early = 0;
    let releasing = false;
    const cpuBefore = procCpuSeconds(baseline.pid);
    const tcpBefore = tcpCounters();
    const openStart = performance.now();
    const waiters = await openWaiters(baseline, waitAgent, [{ id: "baseline" }], total, {
      pacePid: baseline.pid,
      urlFor: () => `${baseline.url}/hold`,
      onEarly: () => {
        if (!releasing) early++;
      },
    });
    const flushedMs = performance.now() - openStart;
    await waitForQuiet(baseline.pid, { quietMs: 500, maxMs: 30_000 });
    const cpuSeconds = procCpuSeconds(baseline.pid) - cpuBefore;
    const tcpWhileOpening = counterDelta(tcpBefore, tcpCounters());
    await sleep(1000);
    const holding = procMemory(baseline.pid);
    const held = waiters.filter((w) => !w.result && !w.error).length;
    releasing = true;
    const released = await request(apiAgent, `${baseline.url}/release`, { method: "POST", body: {} });
    await withDeadline(Promise.all(waiters.map((w) => w.done)), 60_000, "releasing baseline holds");
    const ok = waiters.filter((w) => w.result?.status === 200).length;
    const result = {
      waiters: total,
      held,
      returnedEarly: early,
      released: released.body?.released,
      ok,
      openFlushSeconds: round(flushedMs / 1000, 3),
      cpuSecondsToOpen: round(cpuSeconds, 2),
      cpuMsPerRequest: round((1000 * cpuSeconds) / total, 3),
      tcpWhileOpening,
      rssBeforeMb: round(before.rssKb / 1024, 1),
      rssHoldingMb: round(holding.rssKb / 1024, 1),
      rssDeltaMb: round((holding.rssKb - before.rssKb) / 1024, 1),
    };
    progress(
      `baseline hold: ${held}/${total} held, RSS ${result.rssBeforeMb} -> ${result.rssHoldingMb} MB, ` +
        `opened in ${result.openFlushSeconds} s (CPU ${result.cpuSecondsToOpen} s), ${ok} released`,
    );
    return result;
  } finally {
    waitAgent.destroy();
    apiAgent.destroy();
  }
}

/**
 * Benchmark 3: time from sending POST /respond to each waiter's response having fully arrived, `waiterCount`
 * waiters on one interaction, `rounds` rounds (plus `warmupRounds` not counted).
 */
export async function runWakeLatency({ broker, waiterCount, rounds, warmupRounds }) {
  const apiAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const waitAgent = new http.Agent({
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    maxFreeSockets: waiterCount + 10,
  });
  const samples = [];
  const firstWake = [];
  const lastWake = [];
  const respondLatencies = [];
  const healthRtts = [];
  let early = 0;
  let bad = 0;
  try {
    for (let roundIndex = 0; roundIndex < warmupRounds + rounds; roundIndex++) {
      const counted = roundIndex >= warmupRounds;
      const interaction = await createInteraction(broker, apiAgent, roundIndex);
      let answering = false;
      let roundEarly = 0;
      const waiters = await openWaiters(broker, waitAgent, [interaction], waiterCount, {
        onEarly: () => {
          if (!answering) roundEarly++;
        },
      });
      // Let the broker register every wait: a short pause for one, until its CPU is idle for many.
      if (waiterCount === 1) await sleep(10);
      else await waitForQuiet(broker.pid, { quietMs: 150, stepMs: 50, maxMs: 10_000 });
      answering = true;
      const t0 = performance.now();
      const responded = await request(apiAgent, `${broker.url}/v1/interactions/${interaction.id}/respond`, {
        method: "POST",
        token: broker.token,
        body: respondBody(interaction),
      });
      await withDeadline(Promise.all(waiters.map((w) => w.done)), 30_000, `round ${roundIndex} wake`);
      if (responded.status !== 200) bad++;
      const ends = [];
      for (const waiter of waiters) {
        if (waiter.result?.status !== 200 || waiter.result.body?.status !== "answered") {
          bad++;
          continue;
        }
        ends.push(waiter.result.endedAt - t0);
      }
      if (!counted) continue;
      // Baseline: one GET /health round trip on the same connection after the same kind of idle pause.
      if (waiterCount === 1) await sleep(10);
      else await waitForQuiet(broker.pid, { quietMs: 150, stepMs: 50, maxMs: 10_000 });
      const h0 = performance.now();
      const health = await request(apiAgent, `${broker.url}/health`);
      healthRtts.push(health.endedAt - h0);
      early += roundEarly;
      respondLatencies.push(responded.endedAt - t0);
      for (const value of ends) samples.push(value);
      firstWake.push(Math.min(...ends));
      lastWake.push(Math.max(...ends));
    }
  } finally {
    waitAgent.destroy();
    apiAgent.destroy();
  }
  return {
    waiters: waiterCount,
    rounds,
    warmupRounds,
    returnedEarly: early,
    failedOrNotAnswered: bad,
    wakeLatencyMs: roundStats(summarize(samples)),
    firstWakePerRoundMs: roundStats(summarize(firstWake)),
    lastWakePerRoundMs: roundStats(summarize(lastWake)),
    respondLatencyMs: roundStats(summarize(respondLatencies)),
    baselineHealthRttMs: roundStats(summarize(healthRtts)),
  };
}
