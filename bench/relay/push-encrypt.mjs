// Web Push encryption cost: web-push's encrypt (http_ece) against the relay's own (packages/relay/dist/push/aes128gcm.js),
// side by side in one process, alternating slices so the machine's load falls on both alike.
// Usage: npx tsc -b && npm run bench:relay-push-encrypt --  [--ops=20000] [--slice=500]
import { createECDH, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import webpush from "web-push";
import { encryptPush } from "../../packages/relay/dist/push/aes128gcm.js";
import { percentile, round } from "./lib.mjs";

const { values: args } = parseArgs({
  options: { ops: { type: "string", default: "20000" }, slice: { type: "string", default: "500" } },
});
const ops = Number(args.ops);
const slice = Number(args.slice);
const receiver = createECDH("prime256v1");
const keys = { p256dh: receiver.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") };
const payload = JSON.stringify({ envelope_id: "env_0123456789abcdef", version: "1" });

const variants = {
  "web-push (http_ece)": () => webpush.encrypt(keys.p256dh, keys.auth, payload, "aes128gcm"),
  "relay (aes128gcm.ts)": () => encryptPush(keys, payload),
};
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, { times: [], cpuUs: 0 }]));
for (const run of Object.values(variants)) for (let i = 0; i < 300; i += 1) run(); // warm-up
for (let done = 0; done < ops; done += slice) {
  const order = (done / slice) % 2 === 0 ? Object.keys(variants) : Object.keys(variants).reverse();
  for (const name of order) {
    const run = variants[name];
    const entry = samples[name];
    const cpu = process.cpuUsage();
    for (let i = 0; i < slice; i += 1) {
      const start = performance.now();
      run();
      entry.times.push((performance.now() - start) * 1000);
    }
    const used = process.cpuUsage(cpu);
    entry.cpuUs += used.user + used.system;
  }
}
const lines = [
  `Node ${process.version}, ${ops} encryptions each of a ${payload.length}-byte payload, slices of ${slice}`,
  "",
  "| encryption | p50 us | p90 us | p99 us | CPU us per message | messages/s per core |",
  "|---|---:|---:|---:|---:|---:|",
];
const cpuPer = {};
for (const [name, entry] of Object.entries(samples)) {
  const sorted = entry.times.sort((a, b) => a - b);
  cpuPer[name] = entry.cpuUs / sorted.length;
  lines.push(
    `| ${name} | ${round(percentile(sorted, 50), 0)} | ${round(percentile(sorted, 90), 0)} | ${round(percentile(sorted, 99), 0)} | ${round(cpuPer[name], 0)} | ${round(1e6 / cpuPer[name], 0)} |`,
  );
}
const [before, after] = Object.values(cpuPer);
lines.push("", `CPU per message, relay / web-push: ${round(after / before, 2)}`);
process.stdout.write(`${lines.join("\n")}\n`);
