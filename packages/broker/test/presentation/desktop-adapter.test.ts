import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TimelineEntry } from "@notify/contracts/ui";
import { timelineLine } from "@notify/contracts/ui-timeline-words";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { dbusAvailable, RecordingServer, SessionBus } from "./dbus-harness.js";

const TOKEN = "desktop-test-token-0123456789abcdefghijkl";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "notify-desktop-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Setup {
  bus: SessionBus;
  server: RecordingServer;
  broker: RunningBroker;
  lines: string[];
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

async function setup(capabilities?: string[]): Promise<Setup> {
  const bus = new SessionBus(temp());
  const address = await bus.start();
  cleanups.push(() => bus.stop());
  const server = new RecordingServer(capabilities);
  await server.connect(address);
  cleanups.push(() => server.disconnect());
  const lines: string[] = [];
  const broker = await startBroker({
    dataDir: temp(),
    port: 0,
    token: TOKEN,
    env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
    echo: (line) => lines.push(line),
    desktop: { retryMinMs: 50, retryMaxMs: 200, callTimeoutMs: 2000 },
  });
  cleanups.push(() => broker.close());
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${broker.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  return { bus, server, broker, lines, api };
}

const runs = dbusAvailable();

describe.runIf(runs)("freedesktop adapter against a real dbus-daemon and a recording notification server", () => {
  it("a notification becomes one Notify call: summary, body, urgency, category, desktop-entry, timeout, Open", async () => {
    const { server, api } = await setup();
    const created = await api("POST", "/v1/notifications", {
      title: "Build failed",
      message: "3 tests failed in <core>",
      type: "error",
      priority: "critical",
    });
    expect(created.status).toBe(201);
    const [call] = await server.notified(1);
    expect(call).toMatchObject({
      appName: "Notify",
      replacesId: 0,
      icon: "dialog-error",
      summary: "Build failed",
      body: "3 tests failed in <core>",
      actions: ["default", "Open"],
      expireTimeout: 7000,
    });
    expect(call?.hints).toEqual({
      urgency: 2,
      category: "x-notify.error",
      "desktop-entry": "notify",
      "suppress-sound": true,
    });
  });

  it("urgency follows priority (low 0, normal 1, high 1, critical 2); body markup is escaped when the server has it", async () => {
    const { server, api } = await setup(["actions", "body", "body-markup"]);
    for (const priority of ["low", "normal", "high", "critical"]) {
      await api("POST", "/v1/notifications", { title: priority, message: "a & b <i>", priority });
    }
    const calls = await server.notified(4);
    expect(calls.map((call) => [call.summary, call.hints.urgency])).toEqual([
      ["low", 0],
      ["normal", 1],
      ["high", 1],
      ["critical", 2],
    ]);
    expect(calls[0]?.body).toBe("a &amp; b &lt;i&gt;");
  });

  it("a dedup refresh replaces the visible toast in place (replaces_id), not a second toast", async () => {
    const { server, api, broker } = await setup();
    await api("POST", "/v1/notifications", { key: "build", title: "Building", message: "step 1 of 3" });
    const [first] = await server.notified(1);
    await api("POST", "/v1/notifications", { key: "build", title: "Building", message: "step 2 of 3" });
    const calls = await server.notified(2);
    expect(calls[1]).toMatchObject({ replacesId: first?.id, id: first?.id, body: "step 2 of 3" });
    expect(broker.desktop?.visibleKeys()).toHaveLength(1);
  });

  it("a minimal server without GetCapabilities still gets toasts, with their buttons", async () => {
    const { server, api } = await setup([]);
    await api("POST", "/v1/interactions/request", { kind: "permission", prompt: "Deploy?", agent: "codex" });
    const [call] = await server.notified(1);
    expect(call?.actions).toEqual(["choice:allow", "Allow", "choice:deny", "Deny", "default", "Open"]);
  });

  it("a permission question's buttons answer it: a waiting wait returns answered with source desktop", async () => {
    const { server, api, broker } = await setup();
    const asked = await api("POST", "/v1/interactions/request", {
      kind: "permission",
      prompt: "Run rm -rf build/?",
      agent: "claude",
    });
    expect(asked.status).toBe(201);
    const id = asked.body.id as string;
    const waiting = api("GET", `/v1/interactions/${id}/wait?timeout=20`);
    const [call] = await server.notified(1);
    expect(call?.actions).toEqual(["choice:allow", "Allow", "choice:deny", "Deny", "default", "Open"]);
    expect(call?.expireTimeout).toBe(0);
    expect(call?.summary).toBe("Permission needed from claude");
    expect(call?.body).toBe("Run rm -rf build/?");
    server.invoke(call?.id as number, "choice:deny");
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe("answered");
    expect(answered.body.response).toMatchObject({ choice_id: "deny", source: "desktop" });
    // The web page tells a toast's answer from its own (`answered_via`, display only: never in /v1); so does the
    // item's timeline (issue 24 item 5).
    expect(answered.body.answered_via).toBeUndefined();
    expect((await api("GET", `/ui/api/interactions/${id}`)).body.answered_via).toBe("toast");
    // The settled question's toast is closed on the desktop.
    expect(await server.closed(1)).toEqual([call?.id]);
    expect(broker.desktop?.visibleKeys()).toEqual([]);
    // The timeline: asked, shown as a toast, answered from it, the toast closed by the broker.
    const timeline = async () =>
      (await api("GET", `/ui/api/interactions/${id}/timeline`)).body.entries as Record<string, unknown>[];
    await expect
      .poll(async () => (await timeline()).map((entry) => [entry.event, entry.state ?? entry.status]))
      .toEqual([
        ["created", undefined],
        ["toast", "shown"],
        ["settled", "answered"],
        ["toast", "closed"],
      ]);
    const entries = await timeline();
    expect(entries[2]).toMatchObject({ event: "settled", status: "answered", answered_via: "toast" });
    expect(entries[3]).toMatchObject({ event: "toast", state: "closed", reason: "closed" });
  });

  it("the item's timeline shows the toast shown, and dismissed when the person closes it", async () => {
    const { server, api } = await setup();
    const created = await api("POST", "/v1/notifications", { title: "Build finished", message: "all green" });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const [call] = await server.notified(1);
    const timeline = async () =>
      (await api("GET", `/ui/api/notifications/${id}/timeline`)).body.entries as Record<string, unknown>[];
    await expect.poll(async () => (await timeline()).map((entry) => entry.event)).toEqual(["created", "toast"]);
    const [, shown] = await timeline();
    expect(shown).toMatchObject({ event: "toast", state: "shown" });
    expect(timelineLine(shown as TimelineEntry, (iso) => iso)).toBe("Shown as a desktop notification");
    server.closeByUser(call?.id as number, 2);
    await expect.poll(async () => (await timeline()).length).toBe(3);
    const closed = (await timeline())[2];
    expect(closed).toMatchObject({ event: "toast", state: "closed", reason: "dismissed" });
    expect(timelineLine(closed as TimelineEntry, (iso) => iso)).toBe("Desktop notification dismissed");
    expect(Date.parse(closed?.at as string)).toBeGreaterThanOrEqual(Date.parse(shown?.at as string));
  });

  it("a single-choice question opened by an ARC event is one toast with its choices; answering resolves it", async () => {
    const { server, api } = await setup();
    const event = await api("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "evt-desktop-1",
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "codex" },
      request: {
        kind: "question",
        message: "Which branch?",
        response: {
          kind: "single_choice",
          choices: [
            { id: "main", label: "main" },
            { id: "dev", label: "dev" },
          ],
          expires_at: new Date(Date.now() + 600_000).toISOString(),
        },
      },
    });
    expect([200, 201]).toContain(event.status);
    const [call] = await server.notified(1);
    expect(call?.actions).toEqual(["choice:main", "main", "choice:dev", "dev", "default", "Open"]);
    // One toast, not a toast and then an update.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.notifies).toHaveLength(1);
    server.invoke(call?.id as number, "choice:dev");
    await server.closed(1);
    const notification = (event.body.notification as { id: string }).id;
    const after = await api("GET", `/v1/notifications/${notification}`);
    expect(after.body.status).toBe("resolved");
  });

  it("an MCP form is one toast, its decision's, without Accept (issue 36: the fields are not on the toast)", async () => {
    const { server, api } = await setup();
    const form = {
      kind: "form",
      form: "f-toast",
      server: "signup",
      mode: "form",
      message: "Sign up",
      fields: [{ name: "age", title: "Age", type: "integer", required: true }],
    };
    const ask = async (key: string, field: string | undefined, response: Record<string, unknown>) => {
      const context = await api("POST", "/v1/contexts", field === undefined ? form : { ...form, field });
      expect(context.status).toBe(201);
      const event = await api("POST", "/v1/events", {
        arc_version: "0.2",
        event_id: `evt-${key}`,
        event_type: "request.created",
        occurred_at: new Date().toISOString(),
        sender: { id: "claude-code" },
        request: {
          key,
          kind: "question",
          message: key,
          response: { ...response, expires_at: new Date(Date.now() + 600_000).toISOString() },
        },
        extensions: { "x-notify-context": { id: context.body.id } },
      });
      expect(event.status).toBe(201);
    };
    await ask("form-field", "age", { kind: "text", text_max_length: 2000 });
    await ask("form-decision", undefined, {
      kind: "single_choice",
      choices: [
        { id: "accept", label: "Accept" },
        { id: "decline", label: "Decline" },
        { id: "cancel", label: "Cancel" },
      ],
    });
    const [call] = await server.notified(1);
    expect(call?.body).toContain("1 field for signup");
    expect(call?.actions).toEqual(["choice:decline", "Decline", "choice:cancel", "Cancel", "default", "Open"]);
    // The field's own toast never came.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.notifies).toHaveLength(1);
  });

  it("a text question (a follow-up) gets an inline reply where the server offers one; the reply answers it", async () => {
    const { server, api } = await setup(["actions", "body", "persistence", "inline-reply"]);
    const asked = await api("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "follow-up-toast",
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "claude-code", name: "Claude Code" },
      request: {
        key: "claude-code:session:0123456789abcdef0123456789abcdef",
        kind: "completion",
        title: "Claude Code finished in notify",
        message: "Refactored the store.",
        response: { kind: "text", expires_at: new Date(Date.now() + 600_000).toISOString() },
      },
    });
    expect(asked.status).toBe(201);
    const [call] = await server.notified(1);
    expect(call?.actions).toEqual(["default", "Open", "inline-reply", "Reply"]);
    expect(call?.hints["x-kde-reply-placeholder-text"]).toBe("Reply to claude-code");
    server.reply(call?.id as number, "Now run the tests.");
    const id = (asked.body.interaction as { id: string }).id;
    const answered = await untilValue("the toast's reply to answer the question", async () => {
      const { body } = await api("GET", `/v1/interactions/${id}`);
      return body.status === "answered" ? body : undefined;
    });
    expect(answered.response).toMatchObject({ text: "Now run the tests.", source: "toast" });
  });

  it("without the server's inline-reply capability a text question's toast has no reply action", async () => {
    const { server, api } = await setup();
    await api("POST", "/v1/interactions/request", {
      kind: "text",
      prompt: "Which name?",
      agent: "codex",
      ttl_seconds: 60,
    });
    const [call] = await server.notified(1);
    expect(call?.actions).not.toContain("inline-reply");
    expect(call?.hints["x-kde-reply-placeholder-text"]).toBeUndefined();
  });

  it("the queue: maxVisibleToasts 2, NotificationClosed frees a slot, dismissing sends CloseNotification", async () => {
    const { server, api, broker } = await setup();
    broker.presentation.update({ maxVisibleToasts: 2 });
    const ids: string[] = [];
    for (const title of ["one", "two", "three", "four"]) {
      ids.push((await api("POST", "/v1/notifications", { title, message: title })).body.id as string);
    }
    await server.notified(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.notifies.map((call) => call.summary)).toEqual(["one", "two"]);
    server.closeByUser(server.notifies[0]?.id as number, 2);
    await server.notified(3);
    expect(server.notifies[2]?.summary).toBe("three");
    await api("POST", `/v1/notifications/${ids[1]}/dismiss`);
    expect(await server.closed(1)).toEqual([server.notifies[1]?.id]);
    await server.notified(4);
    expect(server.notifies.map((call) => call.summary)).toEqual(["one", "two", "three", "four"]);
    expect(broker.desktop?.queuedKeys()).toEqual([]);
  });

  it("settings apply at once: pausing stops toasts, raising maxVisibleToasts shows waiting ones", async () => {
    const { server, api, broker } = await setup();
    broker.presentation.update({ maxVisibleToasts: 1 });
    for (const title of ["a", "b", "c"]) await api("POST", "/v1/notifications", { title, message: title });
    await server.notified(1);
    broker.presentation.update({ maxVisibleToasts: 3 });
    await server.notified(3);
    broker.presentation.update({ pauseNotifications: true });
    const paused = await api("POST", "/v1/notifications", { title: "d", message: "d" });
    expect(paused.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(server.notifies.map((call) => call.summary)).toEqual(["a", "b", "c"]);
  });

  it("the bus going away and coming back: one WARN, no crash, toasts shown again in order", async () => {
    const { bus, server, api, broker, lines } = await setup();
    await api("POST", "/v1/notifications", { title: "before", message: "x" });
    await server.notified(1);
    server.disconnect();
    await bus.stop();
    // The broker goes on: creates are stored while there is no bus.
    for (const title of ["during-1", "during-2"]) {
      expect((await api("POST", "/v1/notifications", { title, message: "x" })).status).toBe(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 500)); // several failed reconnects at 50-200 ms
    const warnings = lines.filter((line) => line.includes("[WARN]") && line.includes("desktop:"));
    expect(warnings).toHaveLength(1);
    const address = await bus.start();
    const again = new RecordingServer();
    await again.connect(address);
    cleanups.push(() => again.disconnect());
    await again.notified(3);
    expect(again.notifies.map((call) => call.summary)).toEqual(["before", "during-1", "during-2"]);
    expect((await api("GET", "/v1/health")).status).toBe(200);
    expect(broker.desktop?.visibleKeys()).toHaveLength(3);
    expect(lines.some((line) => line.includes("notification service is back"))).toBe(true);
  });

  it("the notification server leaving and another taking its name: toasts shown again there, one WARN", async () => {
    const { bus, server, api, lines } = await setup();
    for (const title of ["first", "second"]) await api("POST", "/v1/notifications", { title, message: "x" });
    await server.notified(2);
    server.disconnect();
    await api("POST", "/v1/notifications", { title: "third", message: "x" });
    const next = new RecordingServer();
    await next.connect(bus.address);
    cleanups.push(() => next.disconnect());
    await next.notified(3);
    expect(next.notifies.map((call) => call.summary)).toEqual(["first", "second", "third"]);
    expect(lines.filter((line) => line.includes("[WARN]") && line.includes("desktop:"))).toHaveLength(1);
  });

  it("a notification server that appears after the broker started gets the waiting toasts", async () => {
    const bus = new SessionBus(temp());
    const address = await bus.start();
    cleanups.push(() => bus.stop());
    const lines: string[] = [];
    const broker = await startBroker({
      dataDir: temp(),
      port: 0,
      token: TOKEN,
      env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
      echo: (line) => lines.push(line),
      desktop: { retryMinMs: 50, retryMaxMs: 100 },
    });
    cleanups.push(() => broker.close());
    const response = await fetch(`${broker.url}/v1/notifications`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "early", message: "x" }),
    });
    expect(response.status).toBe(201);
    const server = new RecordingServer();
    await server.connect(address);
    cleanups.push(() => server.disconnect());
    const [call] = await server.notified(1);
    expect(call?.summary).toBe("early");
    // One WARN for the outage at most: none when the server came before the adapter looked for it.
    expect(lines.filter((line) => line.includes("[WARN]") && line.includes("desktop:")).length).toBeLessThanOrEqual(1);
  });
});

describe("a session bus address that leads nowhere", () => {
  it.each([
    ["a missing socket", "unix:path=/nonexistent/notify-test-bus"],
    ["an address dbus-next cannot use", "nonsense:foo=bar"],
  ])("%s: one WARN however many retries, and the broker goes on", async (_what, address) => {
    const lines: string[] = [];
    const broker = await startBroker({
      dataDir: temp(),
      port: 0,
      token: TOKEN,
      env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
      echo: (line) => lines.push(line),
      desktop: { retryMinMs: 20, retryMaxMs: 40 },
    });
    cleanups.push(() => broker.close());
    for (let index = 0; index < 3; index++) {
      const response = await fetch(`${broker.url}/v1/notifications`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ title: `t${index}`, message: "m" }),
      });
      expect(response.status).toBe(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // several retries at 20-40 ms
    expect(lines.filter((line) => line.includes("[WARN]") && line.includes("desktop:"))).toHaveLength(1);
    expect(broker.desktop?.queuedKeys()).toHaveLength(3);
  });
});

describe("no session bus", () => {
  it("logs one WARN and goes on", async () => {
    const lines: string[] = [];
    const broker = await startBroker({
      dataDir: temp(),
      port: 0,
      token: TOKEN,
      env: { PATH: process.env.PATH ?? "" },
      echo: (line) => lines.push(line),
    });
    cleanups.push(() => broker.close());
    const response = await fetch(`${broker.url}/v1/notifications`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "t", message: "m" }),
    });
    expect(response.status).toBe(201);
    expect(broker.desktop).toBeUndefined();
    expect(lines.filter((line) => line.includes("[WARN]") && line.includes("DBUS_SESSION_BUS_ADDRESS"))).toHaveLength(
      1,
    );
  });
});
