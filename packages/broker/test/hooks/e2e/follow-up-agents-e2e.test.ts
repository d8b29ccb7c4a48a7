// Issue 35, "Must show", with the real agents on every surface: the real Claude Code 2.1.330 (`-p`, http hooks; and
// its terminal UI in tmux) and Codex 0.169.0 (`exec`, command hooks) against a loopback model, their hooks installed
// against one in-process broker that has two routes: the relay (the phone app in Chromium, through a real relay in
// process) and Telegram (the loopback Bot API). The turn ends and nobody is known present, so the Stop hook opens a
// follow-up; the person replies from the phone, Telegram or the /ui page; the agent's next model request carries the
// reply as the user's instruction (Claude Code: `Stop hook feedback:\nREPLY`; Codex: `<hook_prompt ...>REPLY
// </hook_prompt>`). The continued turn's own Stop asks again and is cancelled, so the agent ends with 0 (after a
// reply from the /ui page, the page vouches for the person: present, that Stop asks nothing). In tmux, a prompt typed
// in Claude Code's terminal withdraws the follow-up: the phone's card closes and the Telegram message is edited to
// say so. The stored `response.source` and the item's timeline name the surface that replied.
import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { timelineLine } from "@notify/contracts/ui-timeline-words";
import { SqliteStore } from "@notify/relay";
import { type Json, type ModelMock, startModelMock, type Turn, tempDir } from "@notify/test-kit";
import { type Enrolled, RelayHarness } from "@notify/test-kit/relay-harness";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TelegramServer } from "../../chat/telegram-server.js";
import { cliEnv, runCli } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  CODEX,
  eventually,
  killTmuxServers,
  mockModelEnv,
  startAgent,
  startInTmux,
  writeClaudeState,
  writeCodexConfig,
} from "../../real-agents.js";
import { type LiveBroker, liveBroker } from "../../relay/broker-client.js";
import { chromiumAvailable, useBrowser } from "../../ui/browser.js";

const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");

/** A wait across an agent, the broker, the relay, the hook and Chromium on a loaded 2-core machine. */
const WAIT_MS = 90_000;
const TEST_MS = 300_000;

const BOT_TOKEN = "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_agents";
const CHAT = 4242;
const ANN = { id: 7, first_name: "Ann" };

const run = chromiumAvailable()
  ? agentTest("follow-up agents e2e", { claude: true, codex: true, tmux: true })
  : it.skip;
const skipped = run !== it;

/** The text of every user message of a model request (Messages or Responses wire). */
function userTexts(turn: Turn): string[] {
  const body = turn.body as Json;
  const items: Json[] = turn.wire === "messages" ? (body.messages ?? []) : Array.isArray(body.input) ? body.input : [];
  return items
    .filter((item) => item.role === "user")
    .map((item) =>
      typeof item.content === "string"
        ? item.content
        : (item.content as Json[]).map((part) => (typeof part.text === "string" ? part.text : "")).join(""),
    );
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

type Agent = "claude-code" | "codex";

/** How each agent hands the model a Stop hook's reply: the user message it sends (docs/hooks.md, "Follow-ups"). */
const CARRIES: Record<Agent, (text: string, reply: string) => boolean> = {
  "claude-code": (text, reply) => text === `Stop hook feedback:\n${reply}`,
  codex: (text, reply) => new RegExp(`^<hook_prompt [^>]*>${escaped(reply)}</hook_prompt>$`).test(text.trim()),
};

describe.runIf(!skipped)("a reply from every surface steers the real agents (issue 35)", () => {
  const browser = useBrowser();

  let live: LiveBroker;
  let target: string[];
  let relay: RelayHarness;
  let relayUrl = "";
  let installation: Enrolled;
  let tg: TelegramServer;
  let phone: Page;
  const phoneProblems: string[] = [];
  let mock: ModelMock;
  let home: string;
  let work: string;
  let deadProxy: string;
  let turnCount = 0;
  const children: ChildProcess[] = [];

  const interaction = async (id: string): Promise<Json> => (await live.call("GET", `/v1/interactions/${id}`)).body;

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    ({ home, work, deadProxy } = await agentSandbox("notify-follow-up-agents-", "project"));
    // Every model answer is text with a number of its own: each turn ends (and runs its Stop hook), and its last
    // message, the follow-up's prompt, names one card on the phone and one Telegram message.
    mock = await startModelMock({ reply: () => ({ text: `Turn ${++turnCount} done.` }), models: [] });
    writeCodexConfig(home, work, mock.url, "never");

    relay = new RelayHarness(new SqliteStore(join(tempDir("follow-up-agents-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
    installation = await relay.enroll("laptop");
    tg = await new TelegramServer(BOT_TOKEN).start();

    const dataDir = tempDir("follow-up-agents-broker-");
    writeFileSync(join(dataDir, "config.json"), JSON.stringify({ followUp: { waitSeconds: 300 } }));
    live = await liveBroker(dataDir);
    target = ["--port", String(live.broker.port), "--data-dir", dataDir];
    const providers = [
      {
        kind: "relay",
        name: "phone",
        enabled: true,
        settings: { url: relayUrl, installationId: installation.installation_id },
        secrets: { installationToken: installation.token },
      },
      {
        kind: "telegram",
        name: "phone-bot",
        enabled: true,
        settings: { chatId: CHAT, answers: true, allowedUserIds: [ANN.id], apiBaseUrl: tg.url },
        secrets: { botToken: BOT_TOKEN },
      },
    ];
    for (const provider of providers) {
      expect((await live.call("POST", "/ui/api/outbound/providers", provider)).status).toBe(201);
      const route = { name: provider.name, provider: provider.name, includeMessage: true, enabled: true };
      expect((await live.call("POST", "/ui/api/outbound/routes", route)).status).toBe(201);
    }
    for (const agent of ["claude-code", "codex"]) {
      const installed = await runCli(["hooks", "install", agent, ...target], cliEnv({ HOME: home }));
      expect(installed.code, installed.stderr).toBe(0);
    }

    // The phone pairs from the relay's link, in Chromium, and stays open for the whole file.
    const context = await browser().newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    phone = await context.newPage();
    phone.on("pageerror", (error) => phoneProblems.push(`pageerror: ${error.message}`));
    await phone.goto((await relay.pairCode(installation)).link);
    await phone.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });
  }, 180_000);

  afterEach(async () => {
    // A test that failed half way leaves nothing behind: its agents killed, its open questions cancelled.
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
    killTmuxServers();
    if (live === undefined) return;
    const { body } = await live.call("GET", "/v1/interactions?pending=true");
    for (const question of body as Json[]) await live.call("POST", `/v1/interactions/${question.id}/cancel`);
  });

  afterAll(async () => {
    killTmuxServers();
    await live?.close();
    relay?.app.server.closeAllConnections();
    await relay?.close();
    await tg?.close();
    await mock?.close();
  });

  const env = () => agentEnv(home, deadProxy, mockModelEnv(mock));

  /** Starts the agent headless (`claude -p`, `codex exec`) in the project; its exit is awaited by the test. */
  function start(agent: Agent) {
    const started =
      agent === "claude-code"
        ? startAgent(CLAUDE, ["-p", "say hello"], work, env(), 240_000)
        : startAgent(
            process.execPath,
            [CODEX, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "say hello"],
            work,
            env(),
            240_000,
          );
    children.push(started.child);
    return started;
  }

  /** The agent sessions whose follow-ups a test has taken: a late Stop of an earlier test's session is not ours. */
  const sessions = new Set<string>();

  /**
   * The agent's pending follow-up (a text question): the first of a session no test has seen yet, or, `after` one,
   * the next of its session.
   */
  const followUpOf = (agent: Agent, after?: Json) =>
    eventually(
      `a follow-up of ${agent}${after ? ` after ${after.id}` : ""}`,
      async () => {
        const { body } = await live.call("GET", `/v1/interactions?pending=true&agent=${agent}`);
        const found = (body as Json[]).find(
          (question) =>
            question.kind === "text" &&
            (after === undefined
              ? !sessions.has(question.session_id)
              : question.session_id === after.session_id && question.id !== after.id),
        );
        if (found === undefined) return undefined;
        expect(found.session_id, "a follow-up names its session").toEqual(expect.any(String));
        sessions.add(found.session_id);
        return found;
      },
      WAIT_MS,
    );

  /** The model request, after the first `before`, whose user message carries `reply` as the agent hands it on. */
  const requestCarrying = (agent: Agent, before: number, reply: string) =>
    eventually(
      `${agent}'s model request carrying the reply`,
      async () =>
        mock
          .turns()
          .slice(before)
          .find((turn) => userTexts(turn).some((text) => CARRIES[agent](text, reply))),
      WAIT_MS,
    );

  /** The continued turn's own Stop asks again: cancelled, so the agent ends the turn and exits 0. */
  async function endContinuedTurn(agent: Agent, first: Json, done: Promise<{ code: number | null; output: string }>) {
    const second = await followUpOf(agent, first);
    expect((await live.call("POST", `/v1/interactions/${second.id}/cancel`)).status).toBe(200);
    const result = await done;
    expect(result.code, result.output).toBe(0);
  }

  /** How the question was settled, as the item's timeline says it (who replied), and its stored response. */
  async function settled(id: string): Promise<{ line: string; response: Json }> {
    const { entries } = (await live.call("GET", `/ui/api/interactions/${id}/timeline`)).body as { entries: Json[] };
    const entry = entries.find((candidate) => candidate.event === "settled");
    return { line: timelineLine(entry as never, (iso) => iso), response: (await interaction(id)).response };
  }

  /** Nothing vouches for the person (no /ui page shown): a Stop asks. */
  const notPresent = () =>
    eventually("presence not `present`", async () => {
      const { body } = await live.call("GET", "/ui/api/presence");
      return body.state === "present" ? undefined : body.state;
    });

  /** The follow-up's card on the phone, once it shows a reply box. */
  async function phoneCard(prompt: string) {
    const card = phone.getByRole("article").filter({ hasText: prompt });
    await card.getByRole("textbox").waitFor({ state: "visible", timeout: WAIT_MS });
    return card;
  }

  /** The message the bot sent to the chat for the follow-up whose prompt is `prompt`. */
  const telegramMessage = (prompt: string) =>
    eventually(
      "the follow-up's Telegram message",
      async () => tg.sent().find((message) => String(message.text).includes(prompt)),
      WAIT_MS,
    );

  for (const agent of ["claude-code", "codex"] as const) {
    run(
      `${agent}: the turn ends, a reply from the phone app in Chromium through the relay is its next instruction`,
      async () => {
        await notPresent();
        const before = mock.turns().length;
        const started = start(agent);
        const first = await followUpOf(agent);
        expect(first.prompt).toMatch(/^Turn \d+ done\.$/);
        const card = await phoneCard(first.prompt);
        const reply = `Now add a test for the rounding of refunds (${agent}, phone).`;
        await card.getByRole("textbox").fill(reply);
        await card.getByRole("button", { name: "Send" }).click();
        await requestCarrying(agent, before, reply);
        await expect.poll(() => card.getByRole("status").textContent(), { timeout: WAIT_MS }).toBe(`Sent: ${reply}`);
        await endContinuedTurn(agent, first, started.done);
        // The phone's answer comes through the relay's poll: source `relay` (docs/hooks.md, "Who may reply").
        const { line, response } = await settled(first.id);
        expect(response).toMatchObject({ source: "phone", text: reply, device_id: expect.any(String) });
        expect(line).toBe("Reply from phone: sent to the agent");
        expect(phoneProblems).toEqual([]);
      },
      TEST_MS,
    );
  }

  run(
    "codex: the turn ends, a Telegram reply from an allowed user is its next instruction",
    async () => {
      await notPresent();
      const before = mock.turns().length;
      const started = start("codex");
      const first = await followUpOf("codex");
      const message = await telegramMessage(first.prompt);
      const sent = tg.callsOf("sendMessage").find((body) => body.result?.message_id === message.message_id);
      expect(sent?.reply_markup).toMatchObject({ force_reply: true });
      const reply = "Pin the runner image to a digest (codex, telegram).";
      tg.reply(message.message_id, reply, ANN, CHAT);
      await requestCarrying("codex", before, reply);
      await endContinuedTurn("codex", first, started.done);
      const { line, response } = await settled(first.id);
      expect(response).toMatchObject({ source: "telegram", text: reply, device_id: "telegram:7" });
      expect(line).toBe("Reply from telegram: sent to the agent");
    },
    TEST_MS,
  );

  run(
    "Claude Code in tmux: a prompt typed in the terminal withdraws the follow-up from the phone and Telegram",
    async () => {
      await notPresent();
      // First-run screens answered as a person who used Claude Code before would have them (agents-e2e does so).
      writeClaudeState(home, work);
      const settingsFile = join(home, ".claude", "settings.json");
      const settings: Json = JSON.parse(readFileSync(settingsFile, "utf8"));
      writeFileSync(settingsFile, JSON.stringify({ ...settings, permissions: { defaultMode: "default" } }, null, 2));
      const before = mock.turns().length;
      const claude = startInTmux("claude-follow-up-agents", work, env(), [CLAUDE, "say hello"]);
      const question = await followUpOf("claude-code");
      // The follow-up is open everywhere: a card with a reply box on the phone, a message in the chat.
      const card = await phoneCard(question.prompt);
      const message = await telegramMessage(question.prompt);
      await eventually(`the status line; screen:\n${claude.screen()}`, async () =>
        claude.screen().includes("waiting for a follow-up") ? true : undefined,
      );

      claude.keys("-l", "typed at the desk");
      claude.keys("Enter");
      await eventually(
        "the follow-up withdrawn",
        async () => ((await interaction(question.id)).status === "cancelled" ? true : undefined),
        WAIT_MS,
      );
      // The phone: the card leaves the inbox (a finished turn that went on is nothing to act on).
      await card.waitFor({ state: "detached", timeout: WAIT_MS });
      // Telegram: the question's message is edited to its outcome.
      const edit = await eventually(
        "the Telegram message edited",
        async () => tg.callsOf("editMessageText").find((body) => body.message_id === message.message_id),
        WAIT_MS,
      );
      expect(edit.text).toBe(`${message.text}\n\nWithdrawn: no reply needed`);
      // The typed prompt runs next, as the user's own message.
      await eventually(
        "the typed prompt at the model",
        async () =>
          mock
            .turns()
            .slice(before)
            .find((turn) => userTexts(turn).some((text) => text.includes("typed at the desk"))),
        WAIT_MS,
      );
      // That turn's own Stop asks again; cancelled, Claude Code is idle at its prompt before afterEach kills it (a
      // Stop after this test would open a follow-up the next test takes for its own).
      const next = await followUpOf("claude-code", question);
      expect((await live.call("POST", `/v1/interactions/${next.id}/cancel`)).status).toBe(200);
      await eventually(
        "Claude Code's Stop hook ended",
        async () => (claude.screen().includes("waiting for a follow-up") ? undefined : true),
        WAIT_MS,
      );
      expect(phoneProblems).toEqual([]);
    },
    TEST_MS,
  );

  // Last: the signed-in page vouches for the person (present) while it is shown, and for a while after it closes.
  run(
    "claude-code: the turn ends, a reply from the /ui page's reply box in Chromium is its next instruction",
    async () => {
      await notPresent();
      const before = mock.turns().length;
      const started = start("claude-code");
      // The follow-up opens first: a page shown before the Stop would make the person present, and it asks nothing.
      const first = await followUpOf("claude-code");
      // The page signs in through a one-time login link (as signedInPage does for a broker of its own).
      const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`);
      });
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      await page.goto(`${live.broker.url}/ui/login?t=${live.broker.uiSessions.createLinkToken().token}`);
      await page.waitForURL(/\/ui\/$/, { timeout: WAIT_MS });
      try {
        // The page vouches for the person from its first report on (before the reply can reach the agent).
        await eventually("presence `present`", async () => {
          const { body } = await live.call("GET", "/ui/api/presence");
          return body.state === "present" ? true : undefined;
        });
        const item = page.getByRole("article").filter({ hasText: first.prompt });
        const reply = "Keep the old URLs working with redirects (claude-code, web).";
        await item
          .getByRole("textbox", { name: "Reply to Claude Code (sent as its next instruction)" })
          .fill(reply, { timeout: WAIT_MS });
        await item.getByRole("button", { name: "Send" }).click();
        await requestCarrying("claude-code", before, reply);
        expect(problems).toEqual([]);
        const { line, response } = await settled(first.id);
        // The page answers as `desktop` (docs/api.md, POST /ui/api/interactions/{id}/respond); the timeline says web.
        expect(response).toMatchObject({ source: "web", text: reply });
        expect(line).toBe("Reply from web: sent to the agent");
        // The continued turn's Stop: the page is shown and was just used, so the person is present and the Stop
        // asks nothing; the turn ends at once (a second follow-up would hold the agent: it fails here, named).
        let ended = false;
        void started.done.then(() => {
          ended = true;
        });
        const next = await eventually(
          "the agent's end (or a second follow-up)",
          async () => {
            if (ended) return "ended";
            const { body } = await live.call("GET", "/v1/interactions?pending=true&agent=claude-code");
            const second = (body as Json[]).find(
              (question) =>
                question.kind === "text" && question.session_id === first.session_id && question.id !== first.id,
            );
            return second === undefined ? undefined : `a second follow-up: ${second.prompt}`;
          },
          WAIT_MS,
        );
        expect(next).toBe("ended");
      } finally {
        await context.close();
      }
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
    },
    TEST_MS,
  );
});
