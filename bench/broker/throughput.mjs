// Benchmark 1: notification creates/s and latency at N keep-alive connections, side by side with baselines.
import autocannon from "autocannon";
import { machineBusySeconds, procCpuSeconds, progress, round, summarize } from "./lib.mjs";

export const NOTIFICATION_BODY = {
  title: "bench: build finished",
  message: "The benchmark agent finished a step and wants attention.",
  type: "info",
  priority: "normal",
  agent: "bench",
  project: "notify-bench",
};

/**
 * One autocannon run. With `amount` every request is answered before the run ends (autocannon destroys in-flight
 * requests when a `duration` ends), so the 201 count can be compared exactly with the rows in SQLite.
 * Latencies are taken from each response with sub-millisecond resolution (autocannon's own histogram keeps whole
 * milliseconds); the elapsed time runs from autocannon's start to the last response, which leaves out its up-to-1 s
 * wait for the next sampling tick at the end of an `amount` run. Returns raw figures; `combine` summarizes.
 */
export function cannon({ url, method, headers, body, connections, amount, duration, cpuPid, label }) {
  return new Promise((resolvePromise, reject) => {
    const latencies = [];
    const statuses = {};
    let startedAt;
    let lastResponseAt;
    const cpuBefore = cpuPid ? procCpuSeconds(cpuPid) : 0;
    const clientCpuBefore = process.cpuUsage();
    const machineBefore = machineBusySeconds();
    const calledAt = performance.now();
    const options = {
      url,
      method,
      headers,
      body,
      connections,
      pipelining: 1,
      timeout: 10,
      ...(amount ? { amount } : { duration }),
    };
    const instance = autocannon(options, (error, result) => {
      clearTimeout(guard);
      if (error) {
        reject(error);
        return;
      }
      const clientCpu = process.cpuUsage(clientCpuBefore);
      resolvePromise({
        label,
        latencies,
        statuses,
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        sent: result.requests.sent,
        elapsedSeconds: (lastResponseAt - startedAt) / 1000,
        // CPU figures cover the whole call (set-up and autocannon's closing tick included), so % use this.
        wallSeconds: (performance.now() - calledAt) / 1000,
        serverCpuSeconds: cpuPid ? procCpuSeconds(cpuPid) - cpuBefore : 0,
        clientCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6,
        machineBusySeconds: machineBusySeconds() - machineBefore,
      });
    });
    // A hard bound in case something stalls: autocannon's own per-request timeout is 10 s.
    const limitMs = ((amount ? 60 : duration) + 30) * 1000;
    const guard = setTimeout(() => {
      progress(`${label}: still running after ${limitMs / 1000} s, stopping it`);
      instance.stop();
    }, limitMs);
    instance.on("start", () => {
      startedAt = performance.now();
    });
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      lastResponseAt = performance.now();
      latencies.push(responseTime);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
}

/** Sums raw runs (the slices of one target) into one result: rate over the summed time, percentiles over all. */
export function combine(label, connections, runs) {
  const latencies = runs.flatMap((run) => run.latencies);
  const elapsed = runs.reduce((sum, run) => sum + run.elapsedSeconds, 0);
  const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
  const statuses = {};
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  }
  const serverCpu = sum("serverCpuSeconds");
  const clientCpu = sum("clientCpuSeconds");
  const wall = sum("wallSeconds");
  return {
    label,
    connections,
    slices: runs.length,
    responses: latencies.length,
    statuses,
    non2xx: sum("non2xx"),
    errors: sum("errors"),
    timeouts: sum("timeouts"),
    sent: sum("sent"),
    elapsedSeconds: round(elapsed, 3),
    requestsPerSecond: round(latencies.length / elapsed, 1),
    sliceRequestsPerSecond: runs.map((run) => round(run.latencies.length / run.elapsedSeconds, 0)),
    latencyMs: Object.fromEntries(Object.entries(summarize(latencies)).map(([k, v]) => [k, round(v, 3)])),
    serverCpuPercent: round((100 * serverCpu) / wall, 1),
    // Server CPU per response, over all slices and per slice: the figure least moved by other load on the machine.
    serverCpuMsPerResponse: round((1000 * serverCpu) / latencies.length, 4),
    sliceServerCpuMsPerResponse: runs.map((run) => round((1000 * run.serverCpuSeconds) / run.latencies.length, 4)),
    clientCpuPercent: round((100 * clientCpu) / wall, 1),
    // Everything else the machine did meanwhile (other processes, kernel threads), in % of one CPU: the machine
    // may be shared, and this shows how quiet it was.
    otherCpuPercent: round((100 * (sum("machineBusySeconds") - serverCpu - clientCpu)) / wall, 1),
  };
}

function describe(run) {
  return (
    `${run.label}: ${run.requestsPerSecond} req/s (slices ${run.sliceRequestsPerSecond.join(", ")}), ` +
    `p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms, ${run.responses} responses ${JSON.stringify(run.statuses)}, ` +
    `errors ${run.errors}, CPU server ${run.serverCpuPercent}% client ${run.clientCpuPercent}% other ${run.otherCpuPercent}%`
  );
}

/**
 * For each connection count: bare-fastify POST baseline, broker GET /health, broker POST /v1/notifications.
 * Each target gets a warm-up; then the measured time (`durationSeconds` per target) is cut into `slices` and the
 * targets take turns slice by slice, in alternating order, so a burst of load from elsewhere on the machine hits
 * all of them alike. The broker POST slices are amount-based (the previous slice's rate sets the amount) so that
 * every 201 can be matched with a row. `brokers` ({ name: broker }) instead of `broker` measures several builds in
 * the same turns (bench/ab.mjs): their rows are keyed `name:broker_health` and `name:broker_create`, and
 * `created201` counts each one's 201s.
 */
export async function runThroughput({
  broker,
  brokers,
  baseline,
  connectionCounts,
  durationSeconds,
  warmupSeconds,
  slices,
}) {
  const rows = [];
  const named = brokers ? Object.entries(brokers) : [["", broker]];
  const body = JSON.stringify(NOTIFICATION_BODY);
  const created201 = Object.fromEntries(named.map(([name]) => [name, 0]));
  const sliceSeconds = durationSeconds / slices;

  for (const connections of connectionCounts) {
    const targets = [
      {
        key: "baseline_post",
        label: `baseline fastify POST (c=${connections})`,
        spec: {
          url: `${baseline.url}/v1/notifications`,
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          cpuPid: baseline.pid,
        },
      },
    ];
    for (const [name, target] of named) {
      const prefix = name ? `${name}:` : "";
      targets.push(
        {
          key: `${prefix}broker_health`,
          label: `${prefix}broker GET /health (c=${connections})`,
          spec: { url: `${target.url}/health`, method: "GET", cpuPid: target.pid },
        },
        {
          key: `${prefix}broker_create`,
          label: `${prefix}broker POST /v1/notifications (c=${connections})`,
          spec: {
            url: `${target.url}/v1/notifications`,
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${target.token}` },
            body,
            cpuPid: target.pid,
          },
          counted: name,
        },
      );
    }
    const row = { connections };
    for (const target of targets) {
      const counted = target.counted !== undefined;
      // Warm-up. For the counted target it is amount-based too (no request left in flight).
      const warmupAmount = Math.max(connections * 20, warmupSeconds * 2500);
      const warmup = await cannon({
        ...target.spec,
        connections,
        ...(counted ? { amount: warmupAmount } : { duration: warmupSeconds }),
        label: `${target.label} warm-up`,
      });
      if (counted) created201[target.counted] += warmup.statuses[201] ?? 0;
      target.rate = warmup.latencies.length / warmup.elapsedSeconds;
      target.runs = [];
      target.warmup = combine(`${target.label} warm-up`, connections, [warmup]);
      progress(describe(target.warmup));
    }
    for (let slice = 0; slice < slices; slice++) {
      for (const target of slice % 2 === 0 ? targets : [...targets].reverse()) {
        const counted = target.counted !== undefined;
        const amount = counted ? Math.max(connections * 10, Math.round(target.rate * sliceSeconds)) : undefined;
        const run = await cannon({
          ...target.spec,
          connections,
          ...(amount ? { amount } : { duration: sliceSeconds }),
          label: `${target.label} slice ${slice + 1}/${slices}`,
        });
        if (counted) {
          created201[target.counted] += run.statuses[201] ?? 0;
          target.rate = run.latencies.length / run.elapsedSeconds;
        }
        target.runs.push(run);
      }
      progress(`c=${connections}: slice ${slice + 1}/${slices} done`);
    }
    for (const target of targets) {
      const result = combine(target.label, connections, target.runs);
      result.warmup = { requestsPerSecond: target.warmup.requestsPerSecond, responses: target.warmup.responses };
      progress(describe(result));
      row[target.key] = result;
    }
    rows.push(row);
  }
  const brokerCreated201 = Object.values(created201).reduce((sum, count) => sum + count, 0);
  return { rows, brokerCreated201, ...(brokers ? { created201 } : {}), slices, sliceSeconds };
}
