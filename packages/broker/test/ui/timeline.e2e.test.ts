import { ItemTimeline } from "@notify/contracts/ui";
import { until } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import { recordingServer } from "../outbox/webhook-server.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

// Issue 24 item 5 (docs/routing.md, "The delivery timeline"): the item detail's delivery timeline, from a real
// broker delivering to a loopback webhook sink through a route at once, a delayed route, and one that never fires.

const URL_TOKEN = "url-token-5e1f0c2d9a";
const SIGNING_SECRET = "signing-secret-7b3a91";

type Sink = Awaited<ReturnType<typeof recordingServer>>;

let ui: UiBroker;
let sink: Sink;

beforeEach(async () => {
  ui = await startUiBroker();
  sink = await recordingServer();
});
afterEach(async () => {
  await ui.close();
  await sink.close();
});

/** A webhook provider whose URL carries a token and which signs with a secret, and three routes to it. */
async function routes(delayed: Record<string, unknown> = { delay_seconds: 1 }): Promise<void> {
  const provider = await ui.ui("POST", "/outbound/providers", {
    kind: "webhook",
    name: "hook",
    settings: { url: `${sink.url}?token=${URL_TOKEN}` },
    secrets: { signingSecret: SIGNING_SECRET },
    enabled: true,
  });
  expect(provider.status).toBe(201);
  for (const route of [{ name: "Log" }, { name: "Phone", ...delayed }, { name: "Pager", delay_seconds: 600 }]) {
    const created = await ui.ui("POST", "/outbound/routes", { provider: "hook", enabled: true, ...route });
    expect(created.status).toBe(201);
  }
}

const timeline = async (kind: "interactions" | "notifications", id: string): Promise<Json> => {
  const reply = await ui.ui<Json>("GET", `/${kind}/${id}/timeline`);
  expect(reply.status).toBe(200);
  return reply.body;
};

/** `event route` per entry, e.g. `delivery Phone`, in the order served. */
const shape = (body: Json): string[] =>
  (body.entries as Json[]).map((entry) => `${entry.event}${entry.route ? ` ${entry.route.name}` : ""}`);

describe("GET /ui/api/{interactions,notifications}/{id}/timeline", () => {
  it("lists created, held, sent, not sent and answered in order, with reasons and no secret", async () => {
    await routes();
    const question = (
      await ui.v1<Json>("POST", "/interactions/request", {
        kind: "permission",
        prompt: "Push to main?",
        agent: "codex",
      })
    ).body;
    // The delayed route releases its hold after a second: wait for the sink to get both deliveries.
    await until(() => sink.received.length >= 2, 30_000);
    // The outbox records the delivery after the sink answered: wait for the timeline to say it was sent.
    let body: Json = {};
    const sentPhone = async () => {
      body = await timeline("interactions", question.id);
      return (body.entries as Json[]).some(
        (entry) => entry.event === "delivery" && entry.route.name === "Phone" && entry.outcome === "sent",
      );
    };
    for (const deadline = Date.now() + 30_000; !(await sentPhone()); ) {
      if (Date.now() > deadline) throw new Error(`Phone never sent: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answered = await ui.v1<Json>("POST", `/interactions/${question.id}/respond`, {
      response_id: "phone-1",
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "allow",
      source: "relay",
    });
    expect(answered.status).toBe(200);

    body = await timeline("interactions", question.id);
    expect(ItemTimeline.safeParse(body).error).toBeUndefined();
    const entries = body.entries as Json[];
    // Both holds are written at the question's creation, in the order the routes are decided.
    const lines = shape(body);
    expect([lines[0], ...lines.slice(1, 3).sort(), ...lines.slice(3)]).toEqual([
      "created",
      "held Pager",
      "held Phone",
      "delivery Log",
      "delivery Phone",
      "settled",
      "not_sent Pager",
    ]);
    const times = entries.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const [created, , , log, phone, settled, voided] = entries as Json[];
    const heldOf = (name: string) => entries.find((entry) => entry.event === "held" && entry.route.name === name);
    const heldPhone = heldOf("Phone") as Json;
    const heldPager = heldOf("Pager") as Json;
    expect(created).toMatchObject({ event: "created", subject: "interaction", at: question.created_at });
    // Held at creation until the delay runs out; no presence named on a route without `when`.
    expect(heldPhone).toMatchObject({ reason: "delay", route: { name: "Phone", provider_kind: "webhook" } });
    expect(heldPhone.presence).toBeUndefined();
    expect(Date.parse(heldPhone.until) - Date.parse(question.created_at)).toBeGreaterThanOrEqual(1000);
    expect(heldPager).toMatchObject({ reason: "delay" });
    expect(Date.parse(heldPager.until) - Date.parse(question.created_at)).toBeGreaterThanOrEqual(600_000);
    expect(log).toMatchObject({ outcome: "sent", because: "immediate", attempts: 1 });
    expect(phone).toMatchObject({ outcome: "sent", because: "delay_elapsed", attempts: 1 });
    expect(Date.parse(phone.at)).toBeGreaterThanOrEqual(Date.parse(heldPhone.until));
    expect(settled).toMatchObject({ status: "answered", source: "relay", choice_label: "Allow" });
    expect(voided).toMatchObject({ event: "not_sent", reason: "settled", route: { name: "Pager" } });

    // The notification half gives the same item.
    expect(body.notification_id).toEqual(expect.any(String));
    expect(await timeline("notifications", body.notification_id)).toEqual(body);

    // No provider setting, secret, token or the question's nonce and digest anywhere in the answer.
    const text = JSON.stringify(body);
    for (const secret of [URL_TOKEN, SIGNING_SECRET, sink.url, question.nonce, question.request_digest]) {
      expect(text).not.toContain(secret);
    }
  });

  it("says why a route held for a presence, and names the page's answer", async () => {
    // `when: away` without a delay: the page reports the person present, so the route waits for them to leave.
    await routes({ when: "away" });
    const activity = await ui.ui("POST", "/presence/activity", { page: "timeline-test-page", visible: true });
    expect(activity.status).toBe(200);
    const question = (
      await ui.v1<Json>("POST", "/interactions/request", { kind: "permission", prompt: "Deploy?", agent: "codex" })
    ).body;
    const reply = await ui.ui<Json>("POST", `/interactions/${question.id}/respond`, {
      response_id: "ui-1",
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "deny",
    });
    expect(reply.status).toBe(200);
    const body = await timeline("interactions", question.id);
    const entries = body.entries as Json[];
    expect(entries.find((entry) => entry.event === "held" && entry.route.name === "Phone")).toMatchObject({
      reason: "presence",
      until: null,
      presence: "present",
    });
    expect(entries.find((entry) => entry.event === "settled")).toMatchObject({
      status: "answered",
      source: "desktop",
      answered_via: "ui",
      choice_label: "Deny",
    });
    const voided = shape(body).filter((line) => line.startsWith("not_sent"));
    expect(voided.sort()).toEqual(["not_sent Pager", "not_sent Phone"]);
    expect(shape(body).slice(-3, -2)).toEqual(["settled"]);
  });

  it("gives a plain notification's timeline, 404 for an unknown id, 401 without a session", async () => {
    const created = (await ui.v1<Json>("POST", "/notifications", { title: "Build done", message: "ok" })).body;
    await ui.v1("PATCH", `/notifications/${created.id}`, { status: "dismissed" });
    const body = await timeline("notifications", created.id);
    expect(body.interaction_id).toBeUndefined();
    expect(shape(body)).toEqual(["created", "settled"]);
    expect(body.entries[1]).toMatchObject({ status: "dismissed" });
    const missing = await ui.ui<Json>("GET", "/interactions/int_missing/timeline");
    expect(missing).toMatchObject({ status: 404, body: { error: "interaction not found" } });
    const missingNotification = await ui.ui<Json>("GET", "/notifications/ntf_missing/timeline");
    expect(missingNotification).toMatchObject({ status: 404, body: { error: "notification not found" } });
    const anonymous = await fetch(`${ui.broker.url}/ui/api/notifications/${created.id}/timeline`);
    expect(anonymous.status).toBe(401);
  });
});

const run = chromiumAvailable();

describe.skipIf(!run)("the item detail's timeline in Chromium", () => {
  const browser = useBrowser();

  it("shows the hold, the release and the answer as they happen, as an accessible list", async () => {
    await routes();
    const { page, context, problems } = await signedInPage(browser(), ui);
    const question = (
      await ui.v1<Json>("POST", "/interactions/request", { kind: "permission", prompt: "Run the migration?" })
    ).body;
    await page.goto(`${ui.broker.url}/ui/questions/${question.id}`);
    const list = page.getByRole("list", { name: "Timeline" });
    const lines = list.getByRole("listitem");
    await list.getByText("Question asked").waitFor();
    await list.getByText(/^Held for Phone \(webhook\) until \d\d:\d\d:\d\d \(its delay\)$/).waitFor();
    // No stream event marks the release: the page looks again after the due time.
    await list.getByText("Sent to Phone (webhook) because it was still open after the delay").waitFor();
    await list.getByText("Sent to Log (webhook)", { exact: true }).waitFor();
    // Each line starts with the local time, hh:mm:ss.
    for (const line of await lines.allTextContents()) expect(line).toMatch(/^\d\d:\d\d:\d\d /);

    // Answered on the phone (over /v1, as the relay's poller does): the stream's change reads the timeline again.
    const answered = await ui.v1("POST", `/interactions/${question.id}/respond`, {
      response_id: "phone-chromium",
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "allow",
      source: "relay",
    });
    expect(answered.status).toBe(200);
    await list.getByText("Answered “Allow” on the phone").waitFor();
    await list.getByText("Not sent to Pager (webhook): settled before its time").waitFor();
    const texts = (await lines.allTextContents()).map((line) => line.replace(/^\d\d:\d\d:\d\d /, ""));
    expect(texts.indexOf("Question asked")).toBe(0);
    expect(texts.at(-1)).toBe("Not sent to Pager (webhook): settled before its time");
    expect(await page.content()).not.toContain(SIGNING_SECRET);
    expect(await page.content()).not.toContain(URL_TOKEN);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
