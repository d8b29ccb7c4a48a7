// Summarizes a V8 .heapsnapshot: self size and count per (node type, constructor or name), largest first, so the
// objects that fill a heap show. Self sizes only (no dominator tree): good enough to see what is allocated per
// stream or per request.
//
// Usage: node bench/router/heapsnapshot-top.mjs FILE [--top 30] [--json]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

export function summarizeHeapSnapshot(path) {
  const snapshot = JSON.parse(readFileSync(path, "utf8"));
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const typeNames = types[typeAt];
  const { nodes, strings } = snapshot;
  const groups = new Map();
  let total = 0;
  for (let index = 0; index < nodes.length; index += width) {
    const type = typeNames[nodes[index + typeAt]];
    const size = nodes[index + sizeAt];
    total += size;
    let name = strings[nodes[index + nameAt]];
    // Strings and numbers are grouped by type only; their names are their values.
    if (type === "string" || type === "concatenated string" || type === "sliced string" || type === "number") name = "";
    else if (name.length > 80) name = `${name.slice(0, 77)}...`;
    const key = `${type}\0${name}`;
    const group = groups.get(key);
    if (group) {
      group.size += size;
      group.count += 1;
    } else groups.set(key, { type, name, size, count: 1 });
  }
  const rows = [...groups.values()].sort((a, b) => b.size - a.size);
  return { totalBytes: total, nodeCount: nodes.length / width, rows };
}

export function formatHeapSummary(summary, top = 30) {
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(2);
  return [
    `heap snapshot: ${mb(summary.totalBytes)} MB in ${summary.nodeCount} objects`,
    "",
    "| self MB | count | type | constructor / name |",
    "|---:|---:|---|---|",
    ...summary.rows.slice(0, top).map((row) => `| ${mb(row.size)} | ${row.count} | ${row.type} | \`${row.name}\` |`),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "30" }, json: { type: "boolean", default: false } },
  });
  const summary = summarizeHeapSnapshot(positionals[0]);
  if (values.json)
    process.stdout.write(`${JSON.stringify({ ...summary, rows: summary.rows.slice(0, 200) }, null, 2)}\n`);
  else process.stdout.write(`${formatHeapSummary(summary, Number(values.top))}\n`);
}
