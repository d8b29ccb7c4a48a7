import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import type { Json } from "../helpers.js";
import { recordingServer } from "../outbox/webhook-server.js";
import { dbusAvailable, SessionBus } from "../presentation/dbus-harness.js";
import { FakeScreenSaver } from "./screensaver-harness.js";

// Issue 24: a presence change re-evaluates what is waiting. With a real dbus-daemon and a test-exported
// ScreenSaver: present -> a `when: away` route with a delay holds the item; lock the session -> it goes within 1 s.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "notify-routing-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe.runIf(dbusAvailable())("presence re-evaluates held deliveries (real dbus-daemon)", () => {
  it("holds while present, sends within a second of the lock, and not a held item settled meanwhile", async () => {
    const bus = new SessionBus(temp());
    const address = await bus.start();
    cleanups.push(() => bus.stop());
    const hook = await recordingServer();
    cleanups.push(() => hook.close());
    const dataDir = temp();
    writeFileSync(join(dataDir, "config.json"), JSON.stringify({ awayAfterSeconds: 60 }));
    const broker = await startBroker({
      dataDir,
      port: 0,
      env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
      desktop: { retryMinMs: 50, retryMaxMs: 200, callTimeoutMs: 2000 },
    });
    cleanups.push(() => broker.close());
    const saver = new FakeScreenSaver();
    await saver.connect(address);
    cleanups.push(() => saver.disconnect());
    await untilValue("present", () => (broker.presence.snapshot().state === "present" ? true : undefined), {
      everyMs: 10,
    });

    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${broker.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${broker.settings.authToken}`,
          "x-notify-ui": "1",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    expect(
      (
        await api("POST", "/ui/api/outbound/providers", {
          kind: "webhook",
          name: "hook",
          settings: { url: hook.url },
          enabled: true,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api("POST", "/ui/api/outbound/routes", {
          name: "Phone",
          provider: "hook",
          enabled: true,
          when: "away",
          delay_seconds: 600,
        })
      ).status,
    ).toBe(201);

    const kept = await api("POST", "/v1/notifications", { title: "Approve deploy?", message: "m" });
    const dismissed = await api("POST", "/v1/notifications", { title: "Build done", message: "m" });
    expect((await api("POST", `/v1/notifications/${dismissed.body.id}/dismiss`)).status).toBe(200);
    // Present: held for the delay. The broker's own outbox view shows nothing to send.
    const outbox = await api("GET", "/ui/api/outbound/outbox?limit=10");
    expect(outbox.body.items).toEqual([]);
    expect(hook.received).toHaveLength(0);

    saver.setLocked(true);
    await untilValue("the delivery", () => (hook.received.length > 0 ? true : undefined), { everyMs: 10 });
    expect(hook.received.map((received) => JSON.parse(received.body).notification.id)).toEqual([kept.body.id]);
    // Within a second of the lock, timed by the broker itself: from the moment it took the session bus's signal
    // (the presence's `since`) to the held row's release into the outbox. The wall clock of this test process is
    // not the measure: on a loaded 2-core machine the bus or this process may wait for a core longer than that.
    const presence = await api("GET", "/ui/api/presence");
    expect(presence.body.state).toBe("away");
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
    const released = db
      .prepare("SELECT state, updated_ms FROM routed_deliveries WHERE subject = 'notification' AND state = 'sent'")
      .all() as { updated_ms: number }[];
    db.close();
    expect(released).toHaveLength(1);
    const reaction = (released[0]?.updated_ms ?? Number.NaN) - Date.parse(String(presence.body.since));
    expect(reaction).toBeGreaterThanOrEqual(0);
    expect(reaction).toBeLessThan(1000);
  });
});
