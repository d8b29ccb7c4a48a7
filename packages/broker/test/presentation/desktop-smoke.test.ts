import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { RecordingServer, SessionBus } from "./dbus-harness.js";

/** Debian packages this smoke test needs (.ci/run installs them). */
const NEEDED = {
  "/usr/bin/Xvfb": "xvfb",
  "/usr/bin/dbus-daemon": "dbus",
  "/usr/lib/notification-daemon/notification-daemon": "notification-daemon",
  "/usr/bin/xdotool": "xdotool",
  "/usr/bin/import": "imagemagick",
};
const missing = Object.entries(NEEDED)
  .filter(([path]) => !existsSync(path))
  .map(([, name]) => name);
if (missing.length > 0) {
  if (process.env.CI === "true") throw new Error(`desktop smoke test needs: apt-get install ${missing.join(" ")}`);
  console.warn(`\n*** SKIPPING desktop smoke test: apt-get install ${missing.join(" ")} ***\n`);
}

const TOKEN = "smoke-test-token-0123456789abcdefghijklmn";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "notify-smoke-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
function track(child: ChildProcess): void {
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  );
}

async function xvfb(): Promise<string> {
  const child = spawn("Xvfb", ["-displayfd", "1", "-screen", "0", "1024x600x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  track(child);
  return new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(`:${text.trim()}`);
    });
    child.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
}

/** Resolves once a notification server owns its name on the bus (a client's GetCapabilities succeeds). */
async function serverReady(address: string): Promise<void> {
  const probe = new RecordingServer();
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await probe.ping(address);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error("notification-daemon did not take its name");
}

describe.runIf(missing.length === 0)("smoke: a real notification server under Xvfb", () => {
  it("notification-daemon shows the question's buttons; a real click on Deny answers the waiting agent", async () => {
    const display = await xvfb();
    const bus = new SessionBus(temp());
    const address = await bus.start();
    cleanups.push(() => bus.stop());
    const env = { ...process.env, DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: address };
    const daemon = spawn("/usr/lib/notification-daemon/notification-daemon", [], { stdio: "ignore", env });
    track(daemon);
    await serverReady(address);
    const broker = await startBroker({
      dataDir: temp(),
      port: 0,
      token: TOKEN,
      env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
      echo: () => {},
    });
    cleanups.push(() => broker.close());
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${broker.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }));
    const asked = await call("POST", "/v1/interactions/request", {
      kind: "permission",
      agent: "claude-code",
      prompt: "Run `rm -rf build/`?",
    });
    expect(asked.status).toBe(201);
    const waiting = call("GET", `/v1/interactions/${asked.body.id}/wait?timeout=20`);
    // The toast is on screen once notification-daemon's window is mapped.
    let window = "";
    for (let attempt = 0; attempt < 100 && window === ""; attempt++) {
      try {
        window = execFileSync("xdotool", ["search", "--onlyvisible", "--class", "notification-daemon"], { env })
          .toString()
          .trim()
          .split("\n")[0] as string;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(window).not.toBe("");
    await new Promise((resolve) => setTimeout(resolve, 300)); // drawn
    const screenshot = join(temp(), "toast.png");
    execFileSync("import", ["-window", "root", screenshot], { env });
    expect(existsSync(screenshot)).toBe(true);
    // Deny sits 80 px left of the window's right edge and 37 px above its bottom in notification-daemon 3.20's layout
    // (docs/screenshots/desktop-toast-notification-daemon.png).
    const geometry = execFileSync("xdotool", ["getwindowgeometry", "--shell", window], { env }).toString();
    const value = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(geometry)?.[1]);
    const x = value("X") + value("WIDTH") - 80;
    const y = value("Y") + value("HEIGHT") - 37;
    execFileSync("xdotool", ["mousemove", String(x), String(y), "click", "1"], { env });
    const answered = await waiting;
    expect(answered.body.status).toBe("answered");
    expect(answered.body.response).toMatchObject({ choice_id: "deny", source: "desktop" });
  });
});
