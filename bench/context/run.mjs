// bench:context (issue 36): what questions' contexts cost the broker. Each side runs in its own child process
// (worker.mjs: a relay, a broker with a "phone" route, 1,000 permission questions through POST /v1/events, every
// one sealed for one phone), without a context and with a 64 KiB diff context posted first; the sides alternate,
// `--rounds` times each. Then the phone side (phone.mjs): the built phone app in Chromium, the time from a card's
// envelope arriving to the card painted, `--renders` times per side, with and without the 64 KiB diff, alternating
// (0: skipped). The table goes to stdout, progress to stderr, the raw runs to bench/results/.
// Usage: npm run build && npm run bench:context -- [--rounds=2] [--count=1000] [--renders=60]
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { ROOT } from "../phone/lib.mjs";

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const rounds = arg("rounds", 2);
const count = arg("count", 1000);
const renders = arg("renders", 60);
const runs = { without: [], with: [] };
const load = [
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join("/"),
];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ["without", "with"] : ["with", "without"];
  for (const side of order) {
    process.stderr.write(`[bench:context] round ${round + 1}/${rounds}: ${side} context\n`);
    const out = execFileSync(
      process.execPath,
      [
        "--expose-gc",
        join(ROOT, "bench/context/worker.mjs"),
        `--count=${count}`,
        ...(side === "with" ? ["--context"] : []),
      ],
      { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
    );
    runs[side].push(JSON.parse(out.trim().split("\n").at(-1)));
  }
}
let phone;
if (renders > 0) {
  process.stderr.write(`[bench:context] the phone app: ${renders} renders per side\n`);
  const out = execFileSync(process.execPath, [join(ROOT, "bench/context/phone.mjs"), `--renders=${renders}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  phone = JSON.parse(out.trim().split("\n").at(-1));
}
load.push(
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join("/"),
);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const row = (label, pick, unit) => {
  const a = median(runs.without.map(pick));
  const b = median(runs.with.map(pick));
  return `| ${label} (${unit}) | ${a} | ${b} | ${(b / a).toFixed(2)}x |`;
};
const phoneRow = (label, a, b, unit = "ms") => `| ${label} (${unit}) | ${a} | ${b} | ${(b / a).toFixed(2)}x |`;
const lines = [
  `${count} permission questions, median of ${rounds} runs per side; with = a 64 KiB diff context each` +
    (phone === undefined ? "" : `; the phone: ${renders} renders per side`),
  "",
  "| measure | without | with | with / without |",
  "| --- | --: | --: | --: |",
  row("create p50 (context + event)", (r) => r.create.p50, "ms"),
  row("create p99", (r) => r.create.p99, "ms"),
  row(`all ${count} created`, (r) => r.createdMs, "ms"),
  row("all sealed at the relay", (r) => r.deliveredMs, "ms"),
  row("process RSS at the end", (r) => r.rssMiB, "MiB"),
  row("JS heap used after GC", (r) => r.heapUsedMiB, "MiB"),
  row("broker database", (r) => r.dbMiB, "MiB"),
  ...(phone === undefined
    ? []
    : [
        phoneRow("phone: envelope to card painted p50", phone.without.p50, phone.with.p50),
        phoneRow("phone: envelope to card painted p99", phone.without.p99, phone.with.p99),
        phoneRow("phone: envelope to card in the DOM p50", phone.inDom.without.p50, phone.inDom.with.p50),
        phoneRow("phone: envelope to card in the DOM p99", phone.inDom.without.p99, phone.inDom.with.p99),
        phoneRow("phone: card height", phone.cardHeightPx.without, phone.cardHeightPx.with, "px"),
      ]),
  "",
  `load averages (1/5/15 min): start ${load[0]}; end ${load[1]}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
const file = join(ROOT, `bench/results/context-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify({ count, rounds, runs, phone, load }, null, 2));
process.stderr.write(`[bench:context] raw runs: ${file}\n`);
