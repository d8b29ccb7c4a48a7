// A/B of two broker builds on the router's passthrough path: one mock upstream, two brokers (each its own
// `notify` CLI), alternating slices of the same load so both see the same machine drift; the broker not under
// load is stopped (SIGSTOP) for the slice. Reports each broker's CPU per request (from /proc, robust to other load
// on the machine) and latency percentiles, per slice and as medians.
//
// Usage: node bench/router/ab.mjs --a packages/broker/dist/cli/main.js --b /other/checkout/packages/broker/dist/cli/main.js|bare
//          [--slices 6] [--seconds 3] [--connections 10] [--rate 500] [--stream] [--client chat|messages] [--upstream chat|messages]
// --rate paces the load (each connection on its own schedule, `rate` requests/s in all); 0 is closed loop.
import { parseArgs } from "node:util";
import { percentile, procCpuSeconds, progress, round } from "./lib.mjs";
import { autocannonRun, chatBody, messagesBody, pacedRun } from "./load.mjs";
import { startBareProxy, startMock, startRouter } from "./targets.mjs";

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    slices: { type: "string", default: "6" },
    seconds: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    rate: { type: "string", default: "500" },
    stream: { type: "boolean", default: false },
    // The client's wire and the upstream: chat (passthrough to mockchat) or messages (translated to mockchat).
    client: { type: "string", default: "chat" },
    // The upstream's wire: chat (mockchat) or messages (mockmsg); a messages client to messages is passthrough.
    upstream: { type: "string", default: "chat" },
  },
});
if (!args.a || !args.b) throw new Error("--a and --b (paths to notify CLIs) are required");
const slices = Number(args.slices);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const rate = Number(args.rate);

const upstreamSlug = args.upstream === "messages" ? "mockmsg" : "mockchat";
const mock = await startMock({ slowChunks: 20, slowDelayMs: 100, fastChunks: 8 });
// "bare" instead of a CLI path: bench/router/bare-proxy.mjs (the floor; --a bare --b bare measures its own spread).
const start = (cli, label) => (cli === "bare" ? startBareProxy(mock) : startRouter(mock, { cli, label }));
const brokers = { a: await start(args.a, "ab-a"), b: await start(args.b, "ab-b") };
const rows = { a: [], b: [] };

async function slice(name, durationSeconds) {
  const broker = brokers[name];
  const other = brokers[name === "a" ? "b" : "a"];
  other.child.kill("SIGSTOP");
  try {
    const messages = args.client === "messages";
    const bare = broker.key === undefined;
    const request = {
      url: `${broker.url}${bare ? "/v1" : "/router/v1"}/${messages ? "messages" : "chat/completions"}`,
      headers: { "content-type": "application/json", ...(bare ? {} : { authorization: `Bearer ${broker.key}` }) },
      body: (messages ? messagesBody : chatBody)(bare ? "mock-fast" : `${upstreamSlug}/mock-fast`, args.stream),
      connections,
      durationSeconds,
    };
    const cpu0 = procCpuSeconds(broker.pid);
    const { result, samples } = rate > 0 ? await pacedRun({ ...request, rate }) : await autocannonRun(request);
    const cpu = procCpuSeconds(broker.pid) - cpu0;
    const ok = result["2xx"];
    samples.sort((x, y) => x - y);
    return {
      rps: round(ok / durationSeconds, 1),
      cpuMsPerRequest: round((cpu * 1000) / ok, 3),
      p50: round(percentile(samples, 50), 3),
      p99: round(percentile(samples, 99), 3),
      errors: (result.non2xx ?? 0) + (result.errors ?? 0),
    };
  } finally {
    other.child.kill("SIGCONT");
  }
}

try {
  await slice("a", 1);
  await slice("b", 1);
  for (let index = 0; index < slices; index++) {
    const order = index % 2 === 0 ? ["a", "b"] : ["b", "a"];
    for (const name of order) {
      const row = await slice(name, seconds);
      rows[name].push(row);
      progress(`${name}: ${JSON.stringify(row)}`);
    }
  }
  const median = (values) => {
    const sorted = [...values].sort((x, y) => x - y);
    return sorted[Math.floor(sorted.length / 2)];
  };
  for (const name of ["a", "b"]) {
    const list = rows[name];
    process.stdout.write(
      `${name}: median rps ${median(list.map((row) => row.rps))}, CPU ms/req ${median(list.map((row) => row.cpuMsPerRequest))}, p50 ${median(list.map((row) => row.p50))} ms, p99 ${median(list.map((row) => row.p99))} ms\n`,
    );
  }
} finally {
  await Promise.all([brokers.a.stop(), brokers.b.stop(), mock.stop()]);
}
