// N concurrent slow SSE streams (e.g. 20 chunks 100 ms apart) opened at once, while the serving process's VmRSS is
// sampled from /proc. Every stream is read to its end and its text checked.
import http from "node:http";
import { postOptions, procCpuSeconds, procMemory, replyOf, round, sleep, summarize } from "./lib.mjs";

/**
 * Opens `count` streams over `rampMs` (in batches, so the listen backlog is not flooded), reads each to the end,
 * samples the RSS of `pid` every `sampleMs`. Bounded: a stream that has not ended after `timeoutMs` is destroyed
 * and counted as failed.
 */
export async function slowStreams({
  url,
  headers,
  body,
  clientWire,
  expectedText,
  count,
  pid,
  rampMs = 250,
  sampleMs = 25,
  timeoutMs = 60_000,
}) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const payload = JSON.stringify(body);
  const target = new URL(url);
  const rssBefore = procMemory(pid);
  const cpuBefore = procCpuSeconds(pid);
  let peakRssKb = rssBefore.rssKb;
  let open = 0;
  let maxOpen = 0;
  let receiving = 0;
  let maxReceiving = 0;
  const sampler = setInterval(() => {
    const { rssKb } = procMemory(pid);
    if (rssKb > peakRssKb) peakRssKb = rssKb;
  }, sampleMs);
  const started = performance.now();

  const one = () =>
    new Promise((resolveStream) => {
      const t0 = performance.now();
      let firstByteMs;
      let counted = false;
      const finish = (outcome) => {
        if (counted) return;
        counted = true;
        open--;
        if (firstByteMs !== undefined) receiving--;
        resolveStream({ ...outcome, firstByteMs, totalMs: performance.now() - t0 });
      };
      open++;
      if (open > maxOpen) maxOpen = open;
      const req = http.request(postOptions(target, agent, headers, payload, timeoutMs), (res) => {
        const chunks = [];
        res.on("data", (chunk) => {
          if (firstByteMs === undefined) {
            firstByteMs = performance.now() - t0;
            receiving++;
            if (receiving > maxReceiving) maxReceiving = receiving;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          if (res.statusCode !== 200) return finish({ ok: false, error: `HTTP ${res.statusCode}` });
          try {
            const reply = replyOf(clientWire, true, Buffer.concat(chunks).toString("utf8"));
            if (reply.text !== expectedText) return finish({ ok: false, error: "unexpected text" });
            if (!reply.complete) return finish({ ok: false, error: "no terminal event" });
            return finish({ ok: true });
          } catch (error) {
            return finish({ ok: false, error: error.message.slice(0, 120) });
          }
        });
        res.on("error", (error) => finish({ ok: false, error: error.code ?? error.message }));
      });
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", (error) => finish({ ok: false, error: error.code ?? error.message }));
      req.end(payload);
    });

  const pending = [];
  const batches = 10;
  for (let batch = 0; batch < batches; batch++) {
    const size = Math.floor(count / batches) + (batch < count % batches ? 1 : 0);
    for (let index = 0; index < size; index++) pending.push(one());
    if (batch < batches - 1) await sleep(rampMs / batches);
  }
  const outcomes = await Promise.all(pending);
  const wallMs = performance.now() - started;
  const cpuSeconds = procCpuSeconds(pid) - cpuBefore;
  clearInterval(sampler);
  agent.destroy();
  const after = procMemory(pid);
  if (after.rssKb > peakRssKb) peakRssKb = after.rssKb;
  const failures = {};
  for (const outcome of outcomes) if (!outcome.ok) failures[outcome.error] = (failures[outcome.error] ?? 0) + 1;
  return {
    streams: count,
    ok: outcomes.filter((outcome) => outcome.ok).length,
    failures,
    wallSeconds: round(wallMs / 1000, 2),
    // CPU the serving process used for the whole pass, and the share of one core it kept busy.
    cpuSeconds: round(cpuSeconds, 2),
    cpuMsPerStream: round((cpuSeconds * 1000) / count, 2),
    coresBusy: round(cpuSeconds / (wallMs / 1000), 2),
    maxOpenRequests: maxOpen,
    maxStreamsReceiving: maxReceiving,
    firstByteMs: summarize(outcomes.filter((o) => o.firstByteMs !== undefined).map((o) => o.firstByteMs)),
    totalMs: summarize(outcomes.map((o) => o.totalMs)),
    rssBeforeMb: round(rssBefore.rssKb / 1024, 1),
    peakRssMb: round(peakRssKb / 1024, 1),
    rssAfterMb: round(after.rssKb / 1024, 1),
    hwmMb: round(after.hwmKb / 1024, 1),
  };
}
