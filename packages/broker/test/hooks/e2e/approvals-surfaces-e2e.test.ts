// Issue 36, "Must show" (a real agent's diff on every surface): the real Claude Code 2.1.330 (`-p`, the "type":
// "http" hooks `notify hooks install` writes) and Codex 0.169.0 (its interactive UI in tmux, approvals on request, as
// approvals-e2e runs it) against loopback models, their hooks installed against one in-process broker whose relay
// route reaches the phone app (Chromium, paired through a real relay in process). While each question waits, the /ui
// page (Chromium, signed in) and the phone show its card with the diff the agent's change makes: each file's path,
// "new file" for a file the change creates, "+N -M", and the hunks row by row with old and new line numbers. Then the
// question is answered from the web page or the phone, and the agent goes on: the file changes on disk. A 2 MiB
// file's edit shows its cut marker on both surfaces without holding either. approvals-e2e checks the contexts and the
// decisions through the API; packages/broker/test/ui/tool-context.e2e and packages/phone/test/tool-context.e2e render
// crafted contexts; this file joins the two with the agents' own calls. MultiEdit: approvals-e2e says why it is left
// out.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { type Json, type ModelMock, type Reply, startModelMock, type Turn, tempDir } from "@notify/test-kit";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, NO_FOLLOW_UPS, runCli } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  CODEX,
  eventually,
  FINAL_TEXT,
  killTmuxServers,
  mockModelEnv,
  startAgent,
  startInTmux,
  writeCodexConfig,
} from "../../real-agents.js";
import { addRelayProvider, type LiveBroker, liveBroker } from "../../relay/broker-client.js";
import { chromiumAvailable, useBrowser } from "../../ui/browser.js";
import { startPatchModel } from "./patch-model.js";

const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");

/** A wait across an agent, the broker, the relay, the hook and Chromium on a loaded 2-core machine. */
const WAIT_MS = 90_000;
const TEST_MS = 180_000;

const run = chromiumAvailable()
  ? agentTest("approvals surfaces e2e", { claude: true, codex: true, tmux: true })
  : it.skip;
const skipped = run !== it;

/** A file of a diff as a surface shows it: its header, then each row as `old | new | sign | text` (a hunk itself). */
interface ShownFile {
  path: string | null;
  badge: string | null;
  stat: string | null;
  rows: string[];
}

/** A diff as a surface shows it: the "N files: +A -R" line (several files only) and each file. */
interface ShownDiff {
  summary: string | null;
  files: ShownFile[];
}

const textOf = async (locator: Locator): Promise<string | null> =>
  (await locator.count()) === 0 ? null : locator.first().textContent();

function rowsOf(file: Locator): Promise<string[]> {
  return file
    .locator("tr.diff-line, tr.diff-hunk, tr.diff-note")
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(
          (row as unknown as { children: ArrayLike<{ textContent: string | null }> }).children,
          (cell) => cell.textContent ?? "",
        ).join(" | "),
      ),
    );
}

/** The diff a card shows, once its first file is on screen (the context renders whole). */
async function shownDiff(card: Locator): Promise<ShownDiff> {
  const sections = card.locator("section.diff-file");
  await sections.first().waitFor({ state: "visible", timeout: WAIT_MS });
  const files: ShownFile[] = [];
  for (let index = 0; index < (await sections.count()); index++) {
    const file = sections.nth(index);
    files.push({
      path: await textOf(file.locator(".diff-path")),
      badge: await textOf(file.locator(".diff-badge")),
      stat: await textOf(file.locator(".diff-stat")),
      rows: await rowsOf(file),
    });
  }
  return { summary: await textOf(card.locator(".diff-summary")), files };
}

/** A file's region as a screen reader names it (its header): the way to find a card by the change it shows. */
const regionName = (path: string, added: number, removed: number, added_file = false) =>
  `${path}${added_file ? " (new file)" : ""}: ${added} line${added === 1 ? "" : "s"} added, ${removed} removed`;

describe.runIf(!skipped)("a real agent's diff on the web page and the phone (issue 36)", () => {
  const browser = useBrowser();

  let live: LiveBroker;
  let relay: RelayHarness;
  let relayUrl = "";
  let mock: ModelMock;
  let home: string;
  let work: string;
  let deadProxy: string;
  let web: Page;
  let phone: Page;
  const contexts: BrowserContext[] = [];
  const webProblems: string[] = [];
  const phoneProblems: string[] = [];
  /** What Claude's model asks for: turn k (k tool results so far) calls `script[k]`, then ends with FINAL_TEXT. */
  let script: Reply[] = [];
  const kills: (() => void)[] = [];

  const scripted = (turn: Turn): Reply => {
    if (turn.wire !== "messages" || !turn.stream) return { text: "OK" };
    return script[turn.toolResults.length] ?? { text: FINAL_TEXT };
  };

  const collect = (page: Page, problems: string[]) => {
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  };

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    ({ home, work, deadProxy } = await agentSandbox("notify-approvals-surfaces-", "project"));
    mock = await startModelMock({ reply: scripted, models: [] });

    relay = new RelayHarness(new SqliteStore(join(tempDir("approvals-surfaces-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    const installation = await relay.enroll("laptop");

    // Follow-ups off: a finished turn asks nothing, so every pending question here is a permission question.
    const dataDir = tempDir("approvals-surfaces-broker-");
    writeFileSync(join(dataDir, "config.json"), JSON.stringify(NO_FOLLOW_UPS));
    live = await liveBroker(dataDir);
    await addRelayProvider(live, relayUrl, installation);
    const target = ["--port", String(live.broker.port), "--data-dir", dataDir];
    for (const agent of ["claude-code", "codex"]) {
      const installed = await runCli(["hooks", "install", agent, ...target], cliEnv({ HOME: home }));
      expect(installed.code, installed.stderr).toBe(0);
    }

    // The phone pairs from the relay's link; the web page signs in through a one-time login link. Both stay open.
    const phoneContext = await browser().newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const webContext = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(phoneContext, webContext);
    for (const context of contexts) context.setDefaultTimeout(WAIT_MS);
    phone = await phoneContext.newPage();
    collect(phone, phoneProblems);
    web = await webContext.newPage();
    collect(web, webProblems);
    await phone.goto((await relay.pairCode(installation)).link);
    await phone.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });
    await web.goto(`${live.broker.url}/ui/login?t=${live.broker.uiSessions.createLinkToken().token}`);
    await web.waitForURL(/\/ui\/$/, { timeout: WAIT_MS });
  }, 180_000);

  afterEach(async () => {
    // A test that failed half way leaves nothing behind: its agents killed, its open questions cancelled.
    killTmuxServers();
    for (const kill of kills.splice(0)) kill();
    if (live === undefined) return;
    const { body } = await live.call("GET", "/v1/interactions?pending=true");
    for (const question of body as Json[]) await live.call("POST", `/v1/interactions/${question.id}/cancel`);
  });

  afterAll(async () => {
    killTmuxServers();
    for (const context of contexts) await context.close();
    await live?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
    await mock?.close();
  });

  const env = () => agentEnv(home, deadProxy, mockModelEnv(mock));

  /** Claude Code in `-p`, its model calling `steps` one after another. */
  function claude(steps: Reply[]) {
    script = steps;
    const started = startAgent(CLAUDE, ["-p", "do the thing"], work, env());
    kills.push(() => {
      if (started.child.exitCode === null) started.child.kill("SIGKILL");
    });
    return started;
  }

  /** The next pending question of `agent` not in `seen` (which it joins). */
  async function nextQuestion(agent: string, seen: Set<string>): Promise<Json> {
    const question = await eventually(
      `a new pending ${agent} question`,
      async () => {
        const { body } = await live.call("GET", `/v1/interactions?pending=true&agent=${agent}`);
        return (body as Json[]).find((candidate) => !seen.has(candidate.id));
      },
      WAIT_MS,
    );
    seen.add(question.id);
    return question;
  }

  /** The question's card on the web page (the inbox names it by id). */
  const webCard = (id: string): Locator => web.locator(`article[data-item-id="${id}"]`);

  /** The phone's card whose diff has a file region named `region` (the envelope carries no id the page shows). */
  const phoneCard = (region: string): Locator =>
    phone.getByRole("article").filter({ has: phone.getByRole("region", { name: region, exact: true }) });

  /** The question as the broker has it once it is settled. */
  const settled = (id: string) =>
    eventually(
      `${id} answered`,
      async () => {
        const { body } = await live.call("GET", `/v1/interactions/${id}`);
        return body.status === "pending" ? undefined : (body as Json);
      },
      WAIT_MS,
    );

  run(
    "Claude Code: an Edit and a new file's Write show their diffs on both surfaces; the web page and phone allow them",
    async () => {
      const edited = join(work, "edit.txt");
      const created = join(work, "new.txt");
      const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
      writeFileSync(edited, `${lines.join("\n")}\n`);
      const started = claude([
        { tool: "Edit", input: { file_path: edited, old_string: "line 10", new_string: "line ten" } },
        { tool: "Write", input: { file_path: created, content: "brand new\nfile\n" } },
      ]);
      const seen = new Set<string>();

      // The Edit: the hunk around line 10, the same on both surfaces; allowed from the web page.
      const edit = await nextQuestion("claude-code", seen);
      const editDiff: ShownDiff = {
        summary: null,
        files: [
          {
            path: edited,
            badge: null,
            stat: "+1 -1",
            rows: [
              "@@ -7,7 +7,7 @@",
              "7 | 7 |   | line 7",
              "8 | 8 |   | line 8",
              "9 | 9 |   | line 9",
              "10 |  | - | line 10",
              " | 10 | + | line ten",
              "11 | 11 |   | line 11",
              "12 | 12 |   | line 12",
              "13 | 13 |   | line 13",
            ],
          },
        ],
      };
      const editOnPhone = phoneCard(regionName(edited, 1, 1));
      expect(await shownDiff(webCard(edit.id))).toEqual(editDiff);
      expect(await shownDiff(editOnPhone)).toEqual(editDiff);
      await webCard(edit.id).getByRole("button", { name: "Allow", exact: true }).click();
      expect(await settled(edit.id)).toMatchObject({ status: "answered", response: { choice_id: "allow" } });
      await eventually(
        "the Edit made on disk",
        async () => (readFileSync(edited, "utf8").includes("line ten\n") ? true : undefined),
        WAIT_MS,
      );
      // The phone's copy closes: answered on the web page.
      await expect.poll(() => textOf(editOnPhone.getByRole("status")), { timeout: WAIT_MS }).toBe("Answered elsewhere");

      // The Write of a new file: "new file", every line added; allowed from the phone, through the relay.
      const write = await nextQuestion("claude-code", seen);
      const writeDiff: ShownDiff = {
        summary: null,
        files: [
          {
            path: created,
            badge: "new file",
            stat: "+2 -0",
            rows: ["@@ -0,0 +1,2 @@", " | 1 | + | brand new", " | 2 | + | file"],
          },
        ],
      };
      const writeOnPhone = phoneCard(regionName(created, 2, 0, true));
      expect(await shownDiff(webCard(write.id))).toEqual(writeDiff);
      expect(await shownDiff(writeOnPhone)).toEqual(writeDiff);
      await writeOnPhone.getByRole("button", { name: "Allow", exact: true }).click();
      expect(await settled(write.id)).toMatchObject({
        status: "answered",
        response: { choice_id: "allow", source: "relay", device_id: expect.any(String) },
      });
      // The web page's copy leaves its open questions once answered.
      await webCard(write.id).getByRole("button", { name: "Allow", exact: true }).waitFor({ state: "detached" });

      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(readFileSync(edited, "utf8")).toBe(`${lines.join("\n").replace("line 10", "line ten")}\n`);
      expect(readFileSync(created, "utf8")).toBe("brand new\nfile\n");
      expect(webProblems).toEqual([]);
      expect(phoneProblems).toEqual([]);
    },
    TEST_MS,
  );

  run(
    "Claude Code: a 2 MiB file's edit shows its cut marker on both surfaces, in time; the web page allows it",
    async () => {
      const big = join(work, "big.txt");
      const rows = 34_500;
      const old = "x".repeat(50);
      const next = "y".repeat(50);
      writeFileSync(
        big,
        Array.from({ length: rows }, (_, index) => `${String(index).padStart(9, "0")} ${old}\n`).join(""),
      );
      expect(readFileSync(big).length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      const started = claude([
        { tool: "Edit", input: { file_path: big, old_string: old, new_string: next, replace_all: true } },
      ]);
      const question = await nextQuestion("claude-code", new Set());
      const askedAt = performance.now();
      const { body: context } = await live.call("GET", `/ui/api/items/${question.id}/context`);
      const [stored] = context.files as Json[];
      expect(stored).toMatchObject({ path: big, added: rows, removed: rows, cut_lines: expect.any(Number) });
      // Every row of the diff is shown or counted in the marker: the hunk's header and each line removed and added.
      const allRows = 1 + 2 * rows;

      // The web page: the stored context (256 KiB at most), its cut said as "not shown".
      const onWeb = webCard(question.id).locator("section.diff-file");
      await onWeb.locator(".diff-cut").waitFor({ state: "visible", timeout: WAIT_MS });
      const webMs = performance.now() - askedAt;
      expect(await textOf(onWeb.locator(".diff-cut"))).toBe(`… ${stored.cut_lines} more lines not shown`);
      expect(await textOf(onWeb.locator(".diff-stat"))).toBe(`+${rows} -${rows}`);
      const webRows = await rowsOf(onWeb);
      expect(webRows.slice(0, 2)).toEqual([`@@ -1,${rows} +1,${rows} @@`, `1 |  | - | 000000000 ${old}`]);
      expect(webRows.length + stored.cut_lines).toBe(allRows);

      // The phone: its envelope's copy (64 KiB at most), the rest "on the desktop".
      const onPhone = phoneCard(regionName(big, rows, rows)).locator("section.diff-file");
      await onPhone.locator(".diff-cut").waitFor({ state: "visible", timeout: WAIT_MS });
      const phoneMs = performance.now() - askedAt;
      const cut = /^… (\d+) more lines on the desktop$/.exec((await textOf(onPhone.locator(".diff-cut"))) ?? "");
      expect(cut).not.toBeNull();
      const phoneRows = await rowsOf(onPhone);
      expect(phoneRows.slice(0, 2)).toEqual(webRows.slice(0, 2));
      expect(phoneRows.length + Number(cut?.[1])).toBe(allRows);
      console.info(
        `2 MiB edit: ${stored.cut_lines} lines cut when stored; the web page showed ${webRows.length} rows after ` +
          `${Math.round(webMs)} ms, the phone ${phoneRows.length} after ${Math.round(phoneMs)} ms`,
      );
      // No stall: a small diff's card shows within a second or two; this bound is loose for a loaded 2-core machine.
      expect(Math.max(webMs, phoneMs)).toBeLessThan(30_000);

      // Neither page is held: each still answers at once, and the answer from the web page reaches the agent.
      for (const page of [web, phone]) {
        const at = performance.now();
        await page.evaluate(() => 1);
        expect(performance.now() - at).toBeLessThan(5_000);
      }
      await webCard(question.id).getByRole("button", { name: "Allow", exact: true }).click();
      expect(await settled(question.id)).toMatchObject({ status: "answered", response: { choice_id: "allow" } });
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(readFileSync(big, "utf8").startsWith(`000000000 ${next}\n`)).toBe(true);
      expect(webProblems).toEqual([]);
      expect(phoneProblems).toEqual([]);
    },
    TEST_MS,
  );

  run(
    "Codex: apply_patch shows each file's diff on both surfaces; the phone allows it and Codex applies it",
    async () => {
      writeFileSync(join(work, "codex.txt"), "one\ntwo\nthree\n");
      const model = await startPatchModel([
        {
          patch:
            "*** Begin Patch\n*** Update File: codex.txt\n@@\n one\n-two\n+2\n three\n" +
            "*** Add File: codex-new.txt\n+hi\n+there\n*** End Patch",
        },
      ]);
      kills.push(() => void model.close());
      // A model of Codex's catalogue, so that Codex offers its freeform apply_patch (see patch-model.ts).
      writeCodexConfig(home, work, model.url, "on-request");
      const config = join(home, ".codex", "config.toml");
      writeFileSync(config, readFileSync(config, "utf8").replace('model = "mock-model"', 'model = "gpt-5.5"'));
      const codex = startInTmux("codex-surfaces", work, env(), [
        process.execPath,
        CODEX,
        "--dangerously-bypass-hook-trust",
        "change the files",
      ]);
      // A catalogue model first shows Codex's model announcement: keep the configured model.
      await eventually(`Codex past its model announcement; screen:\n${codex.screen()}`, async () => {
        if (codex.screen().includes("Use existing model")) {
          codex.keys("2");
          codex.keys("Enter");
        }
        return model.requests.length > 0 ? true : undefined;
      });
      const patch = await nextQuestion("codex", new Set());
      const patchDiff: ShownDiff = {
        summary: "2 files: +3 -1",
        files: [
          {
            path: "codex.txt",
            badge: null,
            stat: "+1 -1",
            rows: ["@@ -1,3 +1,3 @@", "1 | 1 |   | one", "2 |  | - | two", " | 2 | + | 2", "3 | 3 |   | three"],
          },
          {
            path: "codex-new.txt",
            badge: "new file",
            stat: "+2 -0",
            rows: ["@@ -0,0 +1,2 @@", " | 1 | + | hi", " | 2 | + | there"],
          },
        ],
      };
      const onPhone = phoneCard(regionName("codex-new.txt", 2, 0, true));
      expect(await shownDiff(webCard(patch.id))).toEqual(patchDiff);
      expect(await shownDiff(onPhone)).toEqual(patchDiff);
      await onPhone.getByRole("button", { name: "Allow", exact: true }).click();
      expect(await settled(patch.id)).toMatchObject({
        status: "answered",
        response: { choice_id: "allow", source: "relay" },
      });
      await eventually(
        "the patch applied on disk",
        async () => (existsSync(join(work, "codex-new.txt")) ? true : undefined),
        WAIT_MS,
      );
      await eventually(
        "Codex's next model request, with the patch's output",
        async () => model.requests.find((request) => model.outputs(request).length >= 1),
        WAIT_MS,
      );
      expect(readFileSync(join(work, "codex.txt"), "utf8")).toBe("one\n2\nthree\n");
      expect(readFileSync(join(work, "codex-new.txt"), "utf8")).toBe("hi\nthere\n");
      await webCard(patch.id).getByRole("button", { name: "Allow", exact: true }).waitFor({ state: "detached" });
      expect(webProblems).toEqual([]);
      expect(phoneProblems).toEqual([]);
    },
    TEST_MS,
  );
});
