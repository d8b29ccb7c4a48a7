import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordingServer } from "../outbox/webhook-server.js";
import { type CliBroker, runCli, startCliBroker } from "./cli-harness.js";
import { type Json, uiGet, uiSend, waitFor } from "./outbound-helpers.js";

// `notify outbound list|test|retry|dead-letters` over /ui/api/outbound (docs/outbound.md, "Delivery rules").

const SECRET = "whsec-outbound-31c9d2";

let cli: CliBroker;
let hook: Awaited<ReturnType<typeof recordingServer>>;

beforeEach(async () => {
  cli = await startCliBroker();
  hook = await recordingServer();
});
afterEach(async () => {
  await cli?.close();
  await hook?.close();
});

const notify = (...args: string[]) => runCli([...args, ...cli.target]);

async function setUp(): Promise<{ provider: Json; route: Json }> {
  const provider = await uiSend(cli, "POST", "/outbound/providers", {
    kind: "webhook",
    name: "hook",
    settings: { url: hook.url },
    secrets: { signingSecret: SECRET },
    enabled: true,
  });
  const route = await uiSend(cli, "POST", "/outbound/routes", {
    name: "urgent-web",
    provider: "hook",
    enabled: true,
    minimumPriority: "high",
    project: "web",
    includeMessage: false,
  });
  return { provider, route };
}

async function outboxItem(id: string): Promise<Json | undefined> {
  const page = await uiGet(cli, "/outbound/outbox?limit=500");
  return page.items.find((item: Json) => item.id === id);
}

describe("notify outbound list", () => {
  it("shows providers, routes with their gates, and outbox counts; never a secret value", async () => {
    const empty = await notify("outbound", "list");
    expect(empty.code).toBe(0);
    expect(empty.stderr).toBe("notify: no outbound providers\nnotify: no outbound routes\n");
    expect(empty.stdout).toBe("OUTBOX  Pending 0  Retry 0  Delivered 0  DeadLetter 0\n");

    const { provider, route } = await setUp();
    const table = await notify("outbound", "list");
    expect(table.code).toBe(0);
    expect(table.stderr).toBe("");
    expect(table.stdout.split("\n")).toEqual([
      expect.stringMatching(/^PROVIDER\s+KIND\s+ENABLED\s+SECRETS\s+ID$/),
      expect.stringMatching(new RegExp(`^hook\\s+webhook\\s+yes\\s+signingSecret\\s+${provider.id}$`)),
      "",
      expect.stringMatching(/^ROUTE\s+PROVIDER\s+ENABLED\s+MIN_PRIORITY\s+TYPE\s+PROJECT\s+AGENT\s+MESSAGE\s+ID$/),
      expect.stringMatching(
        new RegExp(`^urgent-web\\s+hook\\s+yes\\s+high\\s+-\\s+web\\s+-\\s+redacted\\s+${route.id}$`),
      ),
      "",
      "DELIVERY",
      "  urgent-web: at once",
      "",
      "OUTBOX  Pending 0  Retry 0  Delivered 0  DeadLetter 0",
      "",
    ]);

    const json = await notify("outbound", "list", "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      providers: [
        expect.objectContaining({ name: "hook", kind: "webhook", enabled: true, secretNames: ["signingSecret"] }),
      ],
      routes: [expect.objectContaining({ name: "urgent-web", minimumPriority: "high", project: "web" })],
      outbox: { Pending: 0, Retry: 0, Delivered: 0, DeadLetter: 0 },
    });
    for (const result of [table, json]) expect(result.stdout).not.toContain(SECRET);
  });
});

describe("notify outbound list: routing options (issue 24)", () => {
  it("prints one plain-language line per route", async () => {
    await setUp();
    await uiSend(cli, "POST", "/outbound/routes", {
      name: "Phone",
      provider: "hook",
      delay_seconds: 120,
      when: "away",
      quiet_hours: { start: "22:00", end: "07:00", allow_critical: true },
    });
    await uiSend(cli, "POST", "/outbound/routes", {
      name: "weekend",
      provider: "hook",
      delay_seconds: 90,
      quiet_hours: { start: "00:00", end: "00:00", days: ["sat", "sun"] },
    });
    const table = await notify("outbound", "list");
    expect(table.code).toBe(0);
    const lines = table.stdout.split("\n");
    const at = lines.indexOf("DELIVERY");
    expect(lines.slice(at, at + 4)).toEqual([
      "DELIVERY",
      "  Phone: when away, or after 2 min; quiet 22:00-07:00 except critical",
      "  urgent-web: at once",
      "  weekend: after 1 min 30 s; quiet all day Sat, Sun",
    ]);
  });
});

describe("notify outbound test", () => {
  it("exits 0 on a delivered test payload and 1 with the code otherwise", async () => {
    const { provider } = await setUp();
    const ok = await notify("outbound", "test", "hook");
    expect(ok).toMatchObject({ code: 0, stdout: "ok (HTTP 200)\n", stderr: "" });
    expect(JSON.parse(hook.received[0]?.body ?? "{}")).toMatchObject({ notification: { id: "ntf_test", test: true } });

    hook.setScript([503]);
    const failed = await notify("outbound", "test", provider.id);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toBe(`notify: test of provider ${provider.id} failed: http_503 (HTTP 503), retryable\n`);

    hook.setScript([400]);
    const json = await notify("outbound", "test", "hook", "--json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ ok: false, retryable: false, code: "http_400", status: 400 });

    const unknown = await notify("outbound", "test", "nobody");
    expect(unknown).toMatchObject({ code: 1, stdout: "", stderr: "notify: 400 provider not found\n" });
  });
});

describe("notify outbound dead-letters and retry", () => {
  it("lists a dead letter, and a retry after the provider recovers delivers it", async () => {
    await setUp();
    const none = await notify("outbound", "dead-letters");
    expect(none).toMatchObject({ code: 0, stdout: "", stderr: "notify: no dead letters\n" });

    // A 400 is final: the item dead-letters on its first attempt.
    hook.setScript([400]);
    const created = await cli.api<Json>("POST", "/v1/notifications", {
      title: "Deploy failed",
      message: "details stay local",
      priority: "critical",
      project: "Web",
    });
    expect(created.status).toBe(201);
    const dead = await waitFor(async () => {
      const page = await uiGet(cli, "/outbound/outbox?status=DeadLetter");
      return page.items[0];
    });
    expect(dead).toMatchObject({ notificationId: created.body.id, attempts: 1, lastStatus: 400, lastCode: "http_400" });

    const table = await notify("outbound", "dead-letters");
    expect(table.code).toBe(0);
    const [header, row, end] = table.stdout.split("\n");
    expect(header).toMatch(/^ID\s+PROVIDER\s+ROUTE\s+ATTEMPTS\s+LAST\s+UPDATED\s+NOTIFICATION\s+TITLE$/);
    expect(row).toMatch(
      new RegExp(`^${dead.id}\\s+hook\\s+urgent-web\\s+1\\s+http_400\\s+\\S+Z\\s+${created.body.id}\\s+Deploy failed$`),
    );
    expect(end).toBe("");

    const json = await notify("outbound", "dead-letters", "--json", "--limit", "5");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ id: dead.id, status: "DeadLetter" })]);

    const listed = await notify("outbound", "list", "--json");
    expect(JSON.parse(listed.stdout).outbox).toMatchObject({ DeadLetter: 1, Delivered: 0 });

    // The provider recovers (the scripted server answers 200 from now on); the retry delivers the same item.
    hook.setScript([200]);
    const retried = await notify("outbound", "retry", dead.id);
    expect(retried.code).toBe(0);
    expect(retried.stderr).toMatch(new RegExp(`^notify: outbox item ${dead.id} is (Pending|Delivered)`));
    const delivered = await waitFor(async () => {
      const item = await outboxItem(dead.id);
      return item?.status === "Delivered" ? item : undefined;
    });
    expect(delivered.deliveredAt).toEqual(expect.any(String));
    expect(hook.received).toHaveLength(2);
    // The same item: the idempotency key is stable across the retry, so the provider can drop a repeat.
    expect(hook.received[1]?.headers["idempotency-key"]).toBe(hook.received[0]?.headers["idempotency-key"]);
    expect(JSON.parse(hook.received[1]?.body ?? "{}").notification).not.toHaveProperty("message");

    expect(await notify("outbound", "dead-letters")).toMatchObject({ code: 0, stderr: "notify: no dead letters\n" });
    const again = await notify("outbound", "retry", dead.id, "--json");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: dead.id, status: "Delivered" });
    expect(again.stderr).toContain("was already delivered; nothing to retry");
  });

  it("exits 1 on an unknown outbox item and on a bad --limit", async () => {
    expect(await notify("outbound", "retry", "obx_nope")).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "notify: 400 outbox item not found\n",
    });
    expect(await notify("outbound", "dead-letters", "--limit", "ten")).toMatchObject({
      code: 1,
      stderr: "notify: --limit must be an integer, got ten\n",
    });
    expect(await notify("outbound", "dead-letters", "--limit", "0")).toMatchObject({
      code: 1,
      stderr: "notify: --limit must be an integer 1-500\n",
    });
  });

  it("exits 1 when the broker cannot be reached", async () => {
    const target = [...cli.target];
    await cli.close();
    const result = await runCli(["outbound", "list", ...target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^notify: cannot reach the broker at http:\/\/127\.0\.0\.1:\d+/);
    cli = await startCliBroker();
  });
});
