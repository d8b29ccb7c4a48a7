// A private desktop session for the desktop bench and smoke run: a session bus (dbus-daemon, address read from
// --print-address) and, for the smoke run, Xvfb plus a real notification server (dunst or notification-daemon).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopChild } from "../broker/lib.mjs";

export async function startSessionBus() {
  const dir = mkdtempSync(join(tmpdir(), "notify-desktop-bus-"));
  const config = join(dir, "session.conf");
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${join(dir, "bus")}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
`,
  );
  const child = spawn("dbus-daemon", [`--config-file=${config}`, "--nofork", "--print-address=1"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const address = await new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) resolve(text.split("\n")[0].trim());
    });
    child.once("exit", (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
  });
  return {
    address,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Xvfb on the first free display from :90 (-displayfd reports the one it took). */
export async function startXvfb(geometry = "1024x600x24") {
  const child = spawn("Xvfb", ["-displayfd", "1", "-screen", "0", geometry, "-nolisten", "tcp"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const display = await new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) resolve(`:${text.trim()}`);
    });
    child.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
  return { display, stop: () => stopChild(child) };
}

export function startProgram(program, args, env) {
  const child = spawn(program, args, { stdio: "ignore", env: { ...process.env, ...env } });
  return { child, stop: () => stopChild(child) };
}
