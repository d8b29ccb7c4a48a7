// Smoke run (docs/desktop.md, "Check it works"): the broker's toasts on a real notification server under Xvfb.
// Asks a permission question, takes a screenshot of the screen with the toast and its buttons, and (with
// notification-daemon, which draws buttons; dunst lists actions in a menu instead) clicks "Deny" with xdotool and
// checks that the waiting agent got the answer with source "desktop".
// Run: node bench/desktop/smoke.mjs --daemon=dunst|notification-daemon [--out=docs/screenshots/x.png]
// Needs Debian's xvfb, dbus, dunst or notification-daemon, imagemagick (import) and xdotool.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT, sleep, startBroker } from "../broker/lib.mjs";
import { startProgram, startSessionBus, startXvfb } from "./session.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = "true"] = arg.replace(/^--/, "").split("=");
    return [key, value];
  }),
);
const daemon = args.daemon ?? "dunst";
const out = args.out ?? join(REPO_ROOT, "docs", "screenshots", `desktop-toast-${daemon}.png`);
const program = daemon === "dunst" ? "dunst" : "/usr/lib/notification-daemon/notification-daemon";

const xvfb = await startXvfb();
const bus = await startSessionBus();
const env = { DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address };
const server = startProgram(program, [], env);
Object.assign(process.env, env);
await sleep(1000);
const broker = await startBroker(`smoke-${daemon}`);
const api = async (method, path, body) => {
  const response = await fetch(`${broker.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${broker.token}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
};
let failed = false;
try {
  // notification-daemon shows one toast at a time (the rest wait in its own queue): there, the question alone.
  if (daemon === "dunst")
    await api("POST", "/v1/notifications", {
      title: "Tests failed in packages/core",
      message: "3 of 412 tests failed (vitest). Open the inbox for the log.",
      type: "error",
      priority: "high",
    });
  const asked = await api("POST", "/v1/interactions/request", {
    kind: "permission",
    agent: "claude-code",
    prompt: "Run `rm -rf build/` in ~/src/notify?",
  });
  const waiting = api("GET", `/v1/interactions/${asked.body.id}/wait?timeout=15`);
  await sleep(Number(args.settle ?? 1500));
  execFileSync("import", ["-window", "root", out], { env: { ...process.env, ...env } });
  console.log(`screenshot: ${out}`);
  if (daemon !== "dunst") {
    // The newest toast is at the top right; find the Deny button by its position in notification-daemon's layout.
    const [x, y] = (args.click ?? "936,112").split(",").map(Number);
    execFileSync("xdotool", ["mousemove", String(x), String(y), "click", "1"], { env: { ...process.env, ...env } });
    const answered = await waiting;
    console.log(`wait returned: status ${answered.body.status}, response ${JSON.stringify(answered.body.response)}`);
    if (answered.body.status !== "answered" || answered.body.response?.source !== "desktop") failed = true;
  }
} finally {
  if (args.verbose) console.log(broker.log.join("\n"));
  await broker.stop();
  await server.stop();
  await bus.stop();
  await xvfb.stop();
}
process.exit(failed ? 1 : 0);
