// CPU profile of one broker under one load (development aid):
// node bench/router/prof-one.mjs [--stream] [--rate N] [--client chat|messages] [--upstream chat|messages]
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatSummary, profileFiles, summarizeProfiles } from "./cpuprofile-top.mjs";
import { autocannonRun, chatBody, messagesBody, pacedRun } from "./load.mjs";
import { startMock, startRouter } from "./targets.mjs";

const { values: args } = parseArgs({
  options: {
    stream: { type: "boolean", default: false },
    rate: { type: "string", default: "0" },
    seconds: { type: "string", default: "6" },
    dir: { type: "string", default: "/tmp/prof" },
    cli: { type: "string" },
    // chat: passthrough to mockchat; messages: a messages client translated to mockchat.
    client: { type: "string", default: "chat" },
    // The upstream's wire: chat (mockchat) or messages (mockmsg); a messages client to messages is passthrough.
    upstream: { type: "string", default: "chat" },
  },
});
rmSync(args.dir, { recursive: true, force: true });
const upstreamSlug = args.upstream === "messages" ? "mockmsg" : "mockchat";
const mock = await startMock({ slowChunks: 20, slowDelayMs: 100, fastChunks: 8 });
const broker = await startRouter(mock, {
  ...(args.cli ? { cli: args.cli } : {}),
  nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${args.dir}`],
});
const messages = args.client === "messages";
const request = {
  url: `${broker.url}/router/v1/${messages ? "messages" : "chat/completions"}`,
  headers: { "content-type": "application/json", authorization: `Bearer ${broker.key}` },
  body: (messages ? messagesBody : chatBody)(`${upstreamSlug}/mock-fast`, args.stream),
  connections: 10,
  durationSeconds: Number(args.seconds),
};
const rate = Number(args.rate);
const { result } = rate > 0 ? await pacedRun({ ...request, rate }) : await autocannonRun(request);
process.stderr.write(`${result["2xx"]} ok\n`);
await broker.stop();
await mock.stop();
process.stdout.write(`${formatSummary(summarizeProfiles(profileFiles([args.dir])), 40)}\n`);
