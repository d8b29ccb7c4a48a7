// Issue 37 on the web page, in Chromium against a real broker: the sessions line at the top of the inbox (item 1:
// "1 agent waits on you, 1 working", the list behind it) and the Outbound page's per-route Test (item 5: each hop
// with its time, and for a failure the fix).
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingServer } from "../outbox/webhook-server.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();

describe.runIf(run)("sessions and route tests on the web page (issue 37)", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  let good: Awaited<ReturnType<typeof recordingServer>>;
  let refusing: Awaited<ReturnType<typeof recordingServer>>;

  beforeAll(async () => {
    ui = await startUiBroker();
    good = await recordingServer();
    refusing = await recordingServer([401, 401, 401]);
  });
  afterAll(async () => {
    await ui?.close();
    await good?.close();
    await refusing?.close();
  });

  it("the inbox says which agents wait and which work; the list names them", { timeout: 60_000 }, async () => {
    const observe = (session: string, signal: string, extra: Json = {}) =>
      ui.v1("POST", "/sessions", { agent: "claude-code", session_id: session, signal, ...extra });
    expect((await observe("s-busy", "working", { project: "shop-api" })).status).toBe(204);
    expect((await observe("s-asks", "asking", { project: "shop-web" })).status).toBe(204);
    expect((await observe("s-done", "finished", { project: "docs", last_message: "All 412 tests pass." })).status).toBe(
      204,
    );
    const question = await ui.v1<Json>("POST", "/interactions/request", {
      agent: "claude-code",
      session_id: "s-asks",
      project: "shop-web",
      prompt: "Run the migration?",
    });
    expect(question.status).toBe(201);

    const { page, context, problems } = await signedInPage(browser(), ui);
    const line = page.locator(".sessions-line");
    await line.getByText("1 agent waits on you, 1 working, 1 finished").waitFor();
    await line.locator("summary").click();
    const list = page.getByRole("list", { name: "Agent sessions" });
    await list.getByText("All 412 tests pass.").waitFor();
    expect(await list.locator(".session").count()).toBe(3);
    expect(await list.locator(".session-waiting").textContent()).toContain("1 open question");
    // Answered: it works again, and the line follows the inbox without a reload.
    await ui.v1("POST", `/interactions/${question.body.id}/respond`, {
      response_id: "r1",
      request_digest: question.body.request_digest,
      nonce: question.body.nonce,
      choice_id: "allow",
    });
    await line.getByText("2 working, 1 finished").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("Test on a route shows each hop with its time, and a failure's fix", { timeout: 60_000 }, async () => {
    for (const [name, url] of [
      ["hook-ok", good.url],
      ["hook-401", refusing.url],
    ] as const) {
      expect(
        (await ui.ui("POST", "/outbound/providers", { kind: "webhook", name, settings: { url }, enabled: true }))
          .status,
      ).toBe(201);
      expect(
        (await ui.ui("POST", "/outbound/routes", { name: `to-${name}`, provider: name, enabled: true })).status,
      ).toBe(201);
    }
    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/outbound`);
    await page.getByRole("button", { name: "Test route to-hook-ok" }).click();
    const passed = page.locator(".route-test-ok");
    await passed.getByText("Test passed").waitFor();
    expect(await passed.locator(".hop-ok").count()).toBe(2);
    expect(await passed.textContent()).toContain("accepted (HTTP 200)");

    await page.getByRole("button", { name: "Test route to-hook-401" }).click();
    const failed = page.locator(".route-test-fail");
    await failed.getByText("Test failed").waitFor();
    expect(await failed.locator(".hop-fix").textContent()).toBe(
      "Fix: The webhook refused the credentials (401): set the provider's secrets again",
    );
    expect(await axeViolations(page)).toEqual([]);
    expect(problems.filter((problem) => !problem.includes("401"))).toEqual([]);
    await context.close();
  });
});
