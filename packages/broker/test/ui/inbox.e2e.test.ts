import { describe, expect, it } from "vitest";
import { cliCommand } from "../../src/http/ui/status-page.js";
import type { Json } from "../helpers.js";
import { chromiumAvailable, pageAxeViolations, uiBrokerPerTest, useBrowser, useSharedPage } from "./browser.js";

const run = chromiumAvailable();

describe.skipIf(!run)("web UI inbox in Chromium", () => {
  const browser = useBrowser();
  const ui = uiBrokerPerTest();
  // One page for the tests that do not start from a fresh browser (the first does): each signs in to its own broker.
  const shared = useSharedPage(browser);

  const ask = async (body: Json) => (await ui.v1<Json>("POST", "/interactions/request", body)).body;
  const waitFor = (id: string) => ui.v1<Json>("GET", `/interactions/${id}/wait?timeout=30`);

  it("asks for the login link without a session, and shows the inbox after it", async () => {
    const context = await browser().newContext();
    const page = await context.newPage();
    await page.goto(`${ui.broker.url}/ui/`);
    await page.getByRole("heading", { name: "Sign in to Notify" }).waitFor();
    expect(await page.getByRole("navigation").count()).toBe(0);
    // The command is named as this user runs it, by the broker's rule (the refused-link page's too).
    const command = `${cliCommand().command} open`;
    await page.locator("code", { hasText: new RegExp(`^${command}$`) }).waitFor();
    await page.locator("code", { hasText: new RegExp(`^${command} --print$`) }).waitFor();
    await page.goto(ui.loginLink());
    await page.getByRole("heading", { name: "Inbox" }).waitFor();
    const cookies = await context.cookies();
    expect(cookies).toEqual([
      expect.objectContaining({ name: "notify_session", httpOnly: true, sameSite: "Strict", path: "/ui" }),
    ]);
    // Sign out removes the cookie from this browser; the page asks for a link again.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Notify" }).waitFor();
    expect(await context.cookies()).toEqual([]);
    await page.reload();
    await page.getByRole("heading", { name: "Sign in to Notify" }).waitFor();
    await context.close();
  });

  it("shows a notification created over /v1 without a reload; Dismiss, Reopen and Resolve change it", async () => {
    const { page, problems } = await shared.open(ui);
    await page.getByRole("heading", { name: "Inbox" }).waitFor();
    await page.getByText("Live").waitFor();
    const created = (
      await ui.v1<Json>("POST", "/notifications", {
        title: "Tests failed in api",
        message: "3 failing tests in packages/api",
        type: "error",
        priority: "high",
        agent: "claude-code",
        project: "shop",
      })
    ).body;
    const card = page.getByRole("article", { name: "Tests failed in api" });
    await card.waitFor();
    expect(await card.textContent()).toContain("3 failing tests in packages/api");
    expect(await card.textContent()).toContain("claude-code");
    expect(await card.textContent()).toContain("shop");
    const status = async () => (await ui.v1<Json>("GET", `/notifications/${created.id}`)).body.status;

    await card.getByRole("button", { name: "Dismiss" }).click();
    await card.getByRole("button", { name: "Reopen" }).waitFor();
    expect(await status()).toBe("dismissed");
    await card.getByRole("button", { name: "Reopen" }).click();
    await card.getByRole("button", { name: "Resolve" }).click();
    await card.getByRole("button", { name: "Reopen" }).waitFor();
    expect(await status()).toBe("resolved");

    // A change made elsewhere reaches the page too.
    await ui.v1("PATCH", `/notifications/${created.id}`, { status: "active" });
    await card.getByRole("button", { name: "Dismiss" }).waitFor();

    // The detail view shows the fields.
    await card.getByRole("link", { name: /Details/ }).click();
    await page.getByRole("heading", { name: "Notification" }).waitFor();
    expect(await page.locator("dl").textContent()).toContain(created.id);
    expect(problems).toEqual([]);
  });

  it("answers each question kind from the page, waking a waiting GET /v1/interactions/{id}/wait", async () => {
    const { page, problems } = await shared.open(ui);
    await page.getByRole("heading", { name: "Inbox" }).waitFor();

    const permission = await ask({
      kind: "permission",
      prompt: "Run `rm -rf build`?",
      agent: "codex",
      project: "shop",
    });
    const waitPermission = waitFor(permission.id);
    const permissionCard = page.getByRole("article", { name: "Run `rm -rf build`?" });
    await permissionCard.getByRole("button", { name: "Allow", exact: true }).click();
    const allowed = await waitPermission;
    expect(allowed.body).toMatchObject({ status: "answered", response: { choice_id: "allow", source: "desktop" } });
    await permissionCard.getByText(/^Allowed from this computer's web page at /).waitFor();

    const choice = await ask({
      kind: "single_choice",
      prompt: "Deploy where?",
      choices: [
        { id: "stg", label: "Staging", detail: "eu-west, safe to break" },
        { id: "prd", label: "Production" },
      ],
    });
    const waitChoice = waitFor(choice.id);
    const choiceCard = page.getByRole("article", { name: "Deploy where?" });
    // The button's name is the label alone; the detail is shown under it.
    await choiceCard.getByText("eu-west, safe to break").waitFor();
    await choiceCard.getByRole("button", { name: "Staging", exact: true }).click();
    expect((await waitChoice).body.response).toMatchObject({ choice_id: "stg", source: "desktop" });

    const text = await ask({ kind: "text", prompt: "Commit message?", text_max_length: 40 });
    const waitText = waitFor(text.id);
    const textCard = page.getByRole("article", { name: "Commit message?" });
    await textCard.getByRole("textbox", { name: "Your answer" }).fill("Fix flaky test");
    await textCard.getByText("14 / 40").waitFor();
    await textCard.getByRole("button", { name: "Send" }).click();
    expect((await waitText).body).toMatchObject({
      status: "answered",
      response: { text: "Fix flaky test", source: "desktop" },
    });
    await textCard.getByText(/Answered “Fix flaky test” from this computer's web page/).waitFor();

    // Cards that end without an answer say how they ended.
    const cancelled = await ask({ kind: "permission", prompt: "Drop the cache?" });
    await page.getByRole("article", { name: "Drop the cache?" }).getByRole("button", { name: "Allow" }).waitFor();
    await ui.v1("POST", `/interactions/${cancelled.id}/cancel`);
    await page.getByRole("article", { name: "Drop the cache?" }).getByText("Cancelled by the agent").waitFor();
    await ask({ kind: "permission", prompt: "Open port 22?", key: "firewall" });
    await ask({ kind: "permission", prompt: "Open port 2222?", key: "firewall" });
    await page.getByRole("article", { name: "Open port 22?" }).getByText("Replaced by a newer question").waitFor();
    await page.getByRole("article", { name: "Open port 2222?" }).getByRole("button", { name: "Allow" }).waitFor();
    expect(problems).toEqual([]);
  });

  // Issue 21, item 22: a question and its notification half ("Permission needed from X") were two items, the
  // half with Dismiss/Resolve and, once answered, a meaningless Reopen; and a page answer read "from desktop".
  it("shows a question once, its outcome on the card, and names where the answer came from", async () => {
    const { page, problems } = await shared.open(ui);
    await page.getByRole("heading", { name: "Inbox" }).waitFor();
    await ui.v1<Json>("POST", "/notifications", { title: "Build finished", message: "312 tests passed" });
    const here = await ask({ kind: "permission", prompt: "Push to main?", agent: "claude" });
    const there = await ask({ kind: "permission", prompt: "Delete the branch?", agent: "claude" });
    const hereCard = page.getByRole("article", { name: "Push to main?" });
    await hereCard.getByRole("button", { name: "Allow", exact: true }).waitFor();
    await page.getByRole("article", { name: "Delete the branch?" }).waitFor();
    await page.getByText("Build finished").waitFor();
    // The notification halves exist (toasts and routes use them) but are not shown beside their cards.
    const listed = (await ui.v1<Json>("GET", "/notifications")).body;
    expect(JSON.stringify(listed)).toContain("Permission needed from claude");
    expect(await page.getByText("Permission needed from claude").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Reopen" }).count()).toBe(0);

    await hereCard.getByRole("button", { name: "Allow", exact: true }).click();
    await hereCard.getByText(/^Allowed from this computer's web page at /).waitFor();
    const answered = (await ui.v1<Json>("GET", `/interactions/${there.id}`)).body;
    await ui.v1("POST", `/interactions/${there.id}/respond`, {
      response_id: "r-cli-1",
      request_digest: answered.request_digest,
      nonce: answered.nonce,
      choice_id: "deny",
      source: "cli",
    });
    await page
      .getByRole("article", { name: "Delete the branch?" })
      .getByText(/^Denied from the command line at /)
      .waitFor();
    // After a reload the page still knows which answer it sent, and the halves stay folded into their cards.
    await page.reload();
    await page
      .getByRole("article", { name: "Push to main?" })
      .getByText(/from this computer's web page/)
      .waitFor();
    expect(await page.getByText("Permission needed from claude").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Reopen" }).count()).toBe(0);
    expect(here.id).not.toBe(there.id);
    expect(problems).toEqual([]);
  });

  it("shows a question and its notification half as one card that names who answered it", async () => {
    const { page, problems } = await shared.open(ui);
    await page.getByText("Live").waitFor();
    const items = page.getByRole("list", { name: "Notifications and questions" }).getByRole("article");
    const count = page.getByText(/^(\d+ of )?\d+ items$/);

    // A native question: its notification half ("Permission needed from codex") is no row of its own.
    const native = await ask({ kind: "permission", prompt: "Delete the tmp dir?", agent: "codex", project: "shop" });
    const nativeCard = page.getByRole("article", { name: "Delete the tmp dir?" });
    await nativeCard.getByRole("button", { name: "Allow", exact: true }).waitFor();
    // An ARC permission request: the notification is the condition, the question is asked for it.
    const arc = (
      await ui.v1<Json>("POST", "/events", {
        arc_version: "0.2",
        event_id: "evt-one-item-1",
        event_type: "request.created",
        occurred_at: new Date().toISOString(),
        sender: { id: "claude-code", name: "Claude Code" },
        request: {
          kind: "permission",
          key: "one-item",
          message: "Run `npm publish`?",
          response: {
            kind: "permission",
            choices: [
              { id: "allow", label: "Allow" },
              { id: "deny", label: "Deny" },
            ],
            expires_at: new Date(Date.now() + 600_000).toISOString(),
          },
        },
      })
    ).body;
    expect(arc.notification.title).toBe("Permission needed from Claude Code");
    const arcCard = page.getByRole("article", { name: "Run `npm publish`?" });
    await arcCard.getByRole("button", { name: "Deny", exact: true }).waitFor();
    // A plain notification keeps its row, its title and its buttons.
    await ui.v1("POST", "/notifications", { title: "Build done", message: "All green", type: "completed" });
    const plain = page.getByRole("article", { name: "Build done" });
    await plain.getByRole("button", { name: "Dismiss" }).waitFor();
    await plain.getByRole("button", { name: "Resolve" }).waitFor();

    await count.filter({ hasText: "3 items" }).waitFor();
    expect(await items.count()).toBe(3);
    expect(await page.getByText(/Permission needed/).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Dismiss" }).count()).toBe(1);
    // The Type filter finds the card under its notification half's type, and counts it once.
    await page.getByRole("combobox", { name: "Type" }).selectOption("permission_required");
    await count.filter({ hasText: "2 of 3 items" }).waitFor();
    await page.getByRole("combobox", { name: "Type" }).selectOption("");

    // Answered from the page: the card names the page, not "desktop"; still one item, and no Reopen.
    await nativeCard.getByRole("button", { name: "Allow", exact: true }).click();
    await nativeCard.getByText(/^Allowed from this computer's web page at \d/).waitFor();
    const stored = (await ui.v1<Json>("GET", `/interactions/${native.id}`)).body;
    expect(stored.response).toMatchObject({ choice_id: "allow", source: "desktop" });
    // Answered over /v1 by the CLI and by a phone: the card says so.
    await ui.v1("POST", `/interactions/${arc.interaction.id}/respond`, {
      response_id: "cli-one-item",
      request_digest: arc.interaction.request_digest,
      nonce: arc.interaction.nonce,
      choice_id: "deny",
      source: "cli",
    });
    await arcCard.getByText(/^Denied from the command line at \d/).waitFor();
    const text = await ask({ kind: "text", prompt: "Name the branch?", agent: "codex" });
    const textCard = page.getByRole("article", { name: "Name the branch?" });
    await textCard.getByRole("button", { name: "Send" }).waitFor();
    await ui.v1("POST", `/interactions/${text.id}/respond`, {
      response_id: "phone-one-item",
      request_digest: text.request_digest,
      nonce: text.nonce,
      text: "fix/flaky",
      source: "phone",
    });
    await textCard.getByText(/^Answered “fix\/flaky” on the phone at \d/).waitFor();
    await count.filter({ hasText: "4 items" }).waitFor();
    expect(await page.getByText(/Permission needed|Question from/).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Reopen" }).count()).toBe(0);

    // After a reload (the snapshot, not the stream) it is the same picture.
    await page.reload();
    await nativeCard.getByText(/^Allowed from this computer's web page at \d/).waitFor();
    await count.filter({ hasText: "4 items" }).waitFor();
    expect(await items.count()).toBe(4);
    expect(await page.getByText(/Permission needed|Question from/).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("can be answered with the keyboard alone", async () => {
    const { page, problems } = await shared.open(ui);
    const question = await ask({
      kind: "single_choice",
      prompt: "Which port?",
      choices: [
        { id: "p1", label: "8080" },
        { id: "p2", label: "9090" },
      ],
    });
    const waiting = waitFor(question.id);
    const card = page.getByRole("article", { name: "Which port?" });
    await card.waitFor();
    // Tab from the top of the page until the second choice has the focus, then press Enter.
    let focused = "";
    for (let step = 0; step < 40 && focused !== "9090"; step++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.textContent ?? "");
    }
    expect(focused).toBe("9090");
    await page.keyboard.press("Enter");
    expect((await waiting).body.response).toMatchObject({ choice_id: "p2", source: "desktop" });
    expect(problems).toEqual([]);
  });

  it("shows “answered elsewhere” when the broker answers 409", async () => {
    const { page } = await shared.open(ui);
    // Hold the live stream back, so the page still shows the question as open when it is answered elsewhere.
    await page.route("**/ui/api/stream**", (route) => route.abort());
    await page.reload();
    const question = await ask({ kind: "permission", prompt: "Push to main?" });
    await page.reload();
    const card = page.getByRole("article", { name: "Push to main?" });
    await card.getByRole("button", { name: "Allow", exact: true }).waitFor();
    await ui.v1("POST", `/interactions/${question.id}/respond`, {
      response_id: "cli-1",
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "deny",
      source: "cli",
    });
    await card.getByRole("button", { name: "Allow", exact: true }).click();
    await card.getByText(/answered elsewhere/i).waitFor();
    // Then the card shows who answered.
    await card.getByText(/Denied from the command line/).waitFor();
  });

  it("has no serious or critical accessibility violations with questions and notifications shown", async () => {
    const { page, problems } = await shared.open(ui);
    await ask({ kind: "permission", prompt: "Allow network access?" });
    await ask({ kind: "text", prompt: "Why did it fail?" });
    await ui.v1("POST", "/notifications", { title: "Build done", message: "All green", type: "completed" });
    await page.getByRole("article", { name: "Build done" }).waitFor();
    await page.getByRole("article", { name: "Why did it fail?" }).waitFor();
    expect(await pageAxeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await pageAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
