// One side of bench:context (run.mjs starts it as a child, so each side's memory is its own): a relay and a broker
// with a "phone" route (bench/phone/lib.mjs), then 1,000 permission questions through POST /v1/events, each with a
// 64 KiB diff context posted first (`--context`) or without. Prints one JSON line on stdout.
import { statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { summary, world } from "../phone/lib.mjs";
import { diffContext } from "./diff.mjs";

const withContext = process.argv.includes("--context");
const count = Number(process.argv.find((arg) => arg.startsWith("--count="))?.slice(8) ?? 1000);

const w = await world(1);
const samples = [];
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
for (let index = 0; index < count; index++) {
  const context = withContext ? diffContext(index) : undefined;
  const t0 = performance.now();
  let extensions;
  if (context) {
    const posted = await w.call("POST", "/v1/contexts", context);
    if (posted.status !== 201) throw new Error(`context ${posted.status}`);
    extensions = { "x-notify-context": { id: posted.body.id } };
  }
  const created = await w.call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: `bench-${index}`,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "claude-code" },
    request: {
      key: `bench-${index}`,
      kind: "permission",
      message: `Claude Code wants to change a file with Edit: src/file-${index}.ts`,
      response: {
        kind: "permission",
        choices: [
          { id: "allow", label: "Allow" },
          { id: "deny", label: "Deny" },
        ],
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    },
    ...(extensions ? { extensions } : {}),
  });
  if (created.status !== 201) throw new Error(`event ${created.status} ${JSON.stringify(created.body)}`);
  samples.push(performance.now() - t0);
}
const created = performance.now() - started;
// Every question sealed and stored at the relay (its outbox drained).
const phone = w.phones[0];
let envelopes = 0;
let cursor;
while (envelopes < count * 2) {
  const query = new URLSearchParams({ wait: "5", limit: "100" });
  if (cursor) query.set("since", cursor);
  const page = await fetch(`${w.relayUrl}/v1/envelopes?${query}`, {
    headers: { authorization: `Bearer ${phone.token}` },
  });
  const body = await page.json();
  envelopes += body.envelopes.length;
  cursor = body.next_cursor;
  if (body.envelopes.length === 0 && performance.now() - started > 600_000) break;
}
const delivered = performance.now() - started;
globalThis.gc?.();
const memory = process.memoryUsage();
const dbBytes = ["notify.db", "notify.db-wal"].reduce((sum, name) => {
  try {
    return sum + statSync(join(w.dataDir, name)).size;
  } catch {
    return sum;
  }
}, 0);
process.stdout.write(
  `${JSON.stringify({
    context: withContext,
    create: summary(samples),
    createdMs: Math.round(created),
    deliveredMs: Math.round(delivered),
    envelopes,
    rssMiB: Math.round((memory.rss / 1048576) * 10) / 10,
    rssGrowthMiB: Math.round(((memory.rss - rssBefore) / 1048576) * 10) / 10,
    heapUsedMiB: Math.round((memory.heapUsed / 1048576) * 10) / 10,
    dbMiB: Math.round((dbBytes / 1048576) * 10) / 10,
  })}\n`,
);
await w.close();
