// Syscalls of one broker per request under one load (development aid; needs strace):
// node bench/router/syscalls.mjs [--stream] [--client chat|messages] [--upstream chat|messages] [--rate N] [--cli PATH|bare]
// Counts each syscall of the broker's main thread during a closed-loop load and divides by the 2xx answers:
// on loopback a socket write runs the receiver's TCP path too, so writes per request are a large part of the cost.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { autocannonRun, chatBody, messagesBody, pacedRun } from "./load.mjs";
import { startBareProxy, startMock, startRouter } from "./targets.mjs";

const { values: args } = parseArgs({
  options: {
    stream: { type: "boolean", default: false },
    seconds: { type: "string", default: "3" },
    cli: { type: "string" },
    client: { type: "string", default: "chat" },
    upstream: { type: "string", default: "chat" },
    // Paced at this total rate (0: closed loop); --cli bare counts bench/router/bare-proxy.mjs instead.
    rate: { type: "string", default: "0" },
  },
});
const mock = await startMock({ slowChunks: 20, slowDelayMs: 100, fastChunks: 8 });
const bare = args.cli === "bare";
const broker = bare ? await startBareProxy(mock) : await startRouter(mock, args.cli ? { cli: args.cli } : {});
const messages = args.client === "messages";
const slug = args.upstream === "messages" ? "mockmsg" : "mockchat";
const request = {
  url: `${broker.url}${bare ? "/v1" : "/router/v1"}/${messages ? "messages" : "chat/completions"}`,
  headers: { "content-type": "application/json", ...(bare ? {} : { authorization: `Bearer ${broker.key}` }) },
  body: (messages ? messagesBody : chatBody)(bare ? "mock-fast" : `${slug}/mock-fast`, args.stream),
  connections: 10,
};
const rate = Number(args.rate);
const run = (options) => (rate > 0 ? pacedRun({ ...options, rate }) : autocannonRun(options));
await run({ ...request, durationSeconds: 1 });
// -p the main thread only (its pid): libuv's worker threads do SQLite and file work elsewhere.
const strace = spawn("strace", ["-c", "-p", String(broker.pid)], { stdio: ["ignore", "ignore", "pipe"] });
let report = "";
strace.stderr.on("data", (chunk) => {
  report += chunk;
});
await new Promise((resolve) => setTimeout(resolve, 500));
const { result } = await run({ ...request, durationSeconds: Number(args.seconds) });
strace.kill("SIGINT");
await new Promise((resolve) => strace.once("close", resolve));
await broker.stop();
await mock.stop();
const ok = result["2xx"];
process.stdout.write(`${ok} answers\n`);
for (const line of report.split("\n")) {
  const fields = line.trim().split(/\s+/);
  const calls = Number(fields[3]);
  const name = fields.at(-1);
  if (Number.isFinite(calls) && calls > 0 && /^[a-z_0-9]+$/.test(name ?? ""))
    process.stdout.write(`${name.padEnd(16)} ${(calls / ok).toFixed(2)} per answer\n`);
}
