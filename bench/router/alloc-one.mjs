// Allocation profile of one broker under one closed-loop load (development aid): sampled bytes per request by the
// function that allocated them, garbage included. The inspector listens on 127.0.0.1 only.
// node bench/router/alloc-one.mjs [--stream] [--client chat|messages] [--upstream chat|messages] [--cli PATH]
import { parseArgs } from "node:util";
import { connectInspector, inspectorUrl, startAllocationSampling } from "./alloc-profile.mjs";
import { REPO_ROOT, sleep } from "./lib.mjs";
import { autocannonRun, chatBody, messagesBody } from "./load.mjs";
import { startMock, startRouter } from "./targets.mjs";

const { values: args } = parseArgs({
  options: {
    stream: { type: "boolean", default: false },
    seconds: { type: "string", default: "4" },
    cli: { type: "string" },
    client: { type: "string", default: "chat" },
    upstream: { type: "string", default: "chat" },
    top: { type: "string", default: "30" },
  },
});
const mock = await startMock({ slowChunks: 20, slowDelayMs: 100, fastChunks: 8 });
const broker = await startRouter(mock, {
  ...(args.cli ? { cli: args.cli } : {}),
  nodeArgs: ["--inspect=127.0.0.1:0"],
  label: "router-alloc",
});
const messages = args.client === "messages";
const slug = args.upstream === "messages" ? "mockmsg" : "mockchat";
const request = {
  url: `${broker.url}/router/v1/${messages ? "messages" : "chat/completions"}`,
  headers: { "content-type": "application/json", authorization: `Bearer ${broker.key}` },
  body: (messages ? messagesBody : chatBody)(`${slug}/mock-fast`, args.stream),
  connections: 10,
};
let inspector;
try {
  let url;
  for (let tries = 0; tries < 50 && url === undefined; tries++) {
    url = inspectorUrl(broker.output());
    if (url === undefined) await sleep(100);
  }
  if (url === undefined) throw new Error("the broker printed no inspector URL");
  inspector = await connectInspector(url);
  await autocannonRun({ ...request, durationSeconds: 1 });
  const stop = await startAllocationSampling(inspector);
  const { result } = await autocannonRun({ ...request, durationSeconds: Number(args.seconds) });
  const summary = await stop({ root: REPO_ROOT, units: result["2xx"] });
  process.stdout.write(`${result["2xx"]} answers, ${summary.kbPerUnit} KB sampled per answer\n`);
  for (const row of summary.self.slice(0, Number(args.top)))
    process.stdout.write(`${row.mb} MB ${row.pct}% ${row.name}\n`);
} finally {
  inspector?.close();
  await broker.stop();
  await mock.stop();
}
