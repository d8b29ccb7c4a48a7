import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { toneSamples, wavFile } from "../../src/presentation/sounds/tones.js";
import { dbusAvailable, RecordingServer, SessionBus } from "./dbus-harness.js";

const TOKEN = "sound-test-token-0123456789abcdefghijklmn";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "notify-sound-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Played {
  at: number;
  args: string[];
}

/** A broker whose soundCommand is a script that records each call (time and arguments) in a log file. */
async function setup() {
  const dir = temp();
  const log = join(dir, "played.log");
  const script = join(dir, "record-sound");
  writeFileSync(script, `#!/bin/sh\necho "$(date +%s%3N) $*" >> "${log}"\n`);
  chmodSync(script, 0o755);
  const bus = new SessionBus(temp());
  const address = await bus.start();
  cleanups.push(() => bus.stop());
  const server = new RecordingServer();
  await server.connect(address);
  cleanups.push(() => server.disconnect());
  const broker: RunningBroker = await startBroker({
    dataDir: temp(),
    port: 0,
    token: TOKEN,
    env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
    echo: () => {},
    desktop: { retryMinMs: 50, retryMaxMs: 200 },
  });
  cleanups.push(() => broker.close());
  broker.presentation.update({ soundCommand: script });
  const headers = { authorization: `Bearer ${TOKEN}`, "x-notify-ui": "1" };
  /** Creates a notification and waits until its toast and sound (if any) have been carried out. */
  const create = async (body: Record<string, unknown>) => {
    const response = await fetch(`${broker.url}/v1/notifications`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ message: "m", ...body }),
    });
    expect(response.status).toBe(201);
    await broker.desktop?.idle();
  };
  const played = (): Played[] =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map((line) => {
            const [at, ...args] = line.split(" ");
            return { at: Number(at), args };
          })
      : [];
  const ui = (method: string, path: string, body?: NonNullable<RequestInit["body"]>, type = "application/json") =>
    fetch(`${broker.url}/ui/api${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { "content-type": type } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
  return { broker, create, played, ui, server };
}

const runs = dbusAvailable();

describe.runIf(runs)("sounds through soundCommand (a recording script)", () => {
  it("plays the type's tone file, scaled to the volume, when the notification is created", async () => {
    const { broker, create, played } = await setup();
    const before = Date.now();
    await create({ title: "failed", type: "error" });
    const [call] = played();
    expect(call?.args).toHaveLength(1);
    const file = call?.args[0] as string;
    expect(file).toBe(join(broker.settings.dataDir, "sounds", "cache", "alert-70.wav"));
    expect(readFileSync(file).equals(wavFile(toneSamples("alert", 70)))).toBe(true);
    expect(call?.at).toBeGreaterThanOrEqual(before - 5);
    await create({ title: "done", type: "completed" });
    await create({ title: "custom", type: "my_custom_type" }); // no definition: info's tone
    expect(played().map((entry) => entry.args[0]?.split("/").pop())).toEqual([
      "alert-70.wav",
      "chime-70.wav",
      "chime-70.wav",
    ]);
  });

  it("never while paused (rule 1), and volume 0 is silent (rule 6)", async () => {
    const { broker, create, played } = await setup();
    broker.presentation.update({ pauseNotifications: true });
    await create({ title: "paused", priority: "critical" });
    broker.presentation.update({ pauseNotifications: false, volume: 0 });
    await create({ title: "silent", priority: "critical" });
    expect(played()).toEqual([]);
    broker.presentation.update({ volume: 25 });
    await create({ title: "audible", type: "blocked" });
    expect(played().map((entry) => entry.args[0]?.split("/").pop())).toEqual(["knock-25.wav"]);
  });

  it("the DND rule (rule 5): only critical, and only with playCriticalSoundsDuringDoNotDisturb; toasts still show", async () => {
    const { broker, create, played, server } = await setup();
    broker.presentation.update({ doNotDisturb: true });
    await create({ title: "normal", priority: "normal" });
    await create({ title: "high", priority: "high" });
    expect(played()).toHaveLength(0);
    await create({ title: "critical", priority: "critical" });
    expect(played()).toHaveLength(1);
    broker.presentation.update({ playCriticalSoundsDuringDoNotDisturb: false });
    await create({ title: "critical-2", priority: "critical" });
    broker.presentation.update({ soundsEnabled: false, doNotDisturb: false });
    await create({ title: "sounds-off", priority: "critical" });
    expect(played()).toHaveLength(1);
    // Rule 4: doNotDisturb never suppressed a toast.
    expect(server.notifies.map((call) => call.summary)).toEqual([
      "normal",
      "high",
      "critical",
      "critical-2",
      "sounds-off",
    ]);
  });

  it("an imported sound chosen for a type is played; a file that lies about its type is refused", async () => {
    const { broker, create, played, ui } = await setup();
    const bell = wavFile(toneSamples("ping", 100));
    const imported = await ui("PUT", "/sounds/files/bell.wav", new Uint8Array(bell), "audio/wav");
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({ name: "bell", format: "wav", bytes: bell.length });
    const lying = await ui("PUT", "/sounds/files/horn.mp3", new Uint8Array(bell), "audio/mpeg");
    expect(lying.status).toBe(400);
    expect(await lying.json()).toEqual({ error: "horn.mp3 is not a MP3 file: its bytes are WAV data" });
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1);
    bell.copy(huge);
    const tooBig = await ui("PUT", "/sounds/files/huge.wav", huge, "application/octet-stream");
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toEqual({ error: "a sound file is at most 10 MB" });
    const chosen = await ui("PUT", "/sounds/types", JSON.stringify({ error: "bell", completed: "none" }));
    expect(chosen.status).toBe(200);
    const listing = (await chosen.json()) as Record<string, unknown>;
    expect(listing.typeSounds).toEqual({ error: "bell", completed: "none" });
    expect(listing.imported).toMatchObject([{ name: "bell", format: "wav", bytes: bell.length }]);
    expect(listing.builtIn).toEqual(["chime", "ping", "alert", "knock"]);
    await create({ title: "e", type: "error" });
    await create({ title: "c", type: "completed" });
    expect(played().map((entry) => entry.args[0]?.split("/").pop())).toEqual(["bell-70.wav"]);
    const unknown = await ui("PUT", "/sounds/types", JSON.stringify({ error: "trumpet" }));
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/unknown sound "trumpet"/);
    expect((await ui("DELETE", "/sounds/files/bell")).status).toBe(204);
    expect((await ui("DELETE", "/sounds/files/bell")).status).toBe(404);
    expect(broker.sounds.list()).toEqual([]);
  });
});
