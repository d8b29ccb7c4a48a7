// Issue 37, item 1, "Must show": sessions from the real Claude Code 2.1.330 and Codex CLI 0.169.0 (pinned
// devDependencies, a fresh HOME, the loopback model mock) moving through working, waiting, finished and ended (Codex
// has no session-end event, so its sessions end by age), on the web page (Chromium) and on the phone (Chromium at 390x844, through a real relay in process: the broker seals its
// sessions summary to the phone), and `notify sessions --json`. The model's first tool call is a shell command that
// waits for a file the test writes, so "working" lasts until the test has seen it; no sleep anywhere.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { brokerApi, type Json, type ModelMock, type Reply, startModelMock, type Turn, tempDir } from "@notify/test-kit";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  CODEX,
  eventually,
  exited,
  FINAL_TEXT,
  killTmuxServers,
  mockModelEnv,
  startInTmux,
  writeCodexConfig,
} from "../../real-agents.js";
import { chromiumAvailable, signedInPage, type UiBroker, useBrowser } from "../../ui/browser.js";

const run = agentTest("sessions e2e", { claude: true, codex: true, tmux: true });
const skipped = run !== it || !chromiumAvailable();

/** Every wait across processes: a loaded machine meets it. */
const WAIT_MS = 90_000;
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
/** The command that holds the turn until the test writes `go-<agent>` (allowed without a question). */
const gate = (agent: string) => `sh gate-${agent}.sh`;

let cli: CliBroker;
let mock: ModelMock;
let home: string;
let work: string;
let deadProxy: string;
let relay: RelayHarness;
let relayUrl = "";

/** The model: the gate first; then a command that asks (the session waits); then the last words. */
const scripted = (turn: Turn): Reply => {
  if (!turn.stream && turn.wire === "messages") return { text: "OK" };
  const done = turn.toolResults.length;
  if (turn.wire === "messages") {
    if (done === 0) return { tool: "Bash", input: { command: gate("claude"), description: "Wait for the go" } };
    if (done === 1) return { tool: "Bash", input: { command: `touch ${join(work, "claude.marker")}` } };
    return { text: FINAL_TEXT };
  }
  if (done === 0) return { tool: "exec_command", input: { cmd: gate("codex") } };
  // Asking to leave the sandbox is what makes Codex ask for approval (approval_policy on-request).
  if (done === 1) {
    const cmd = `touch ${join(work, "codex.marker")}`;
    return { tool: "exec_command", input: { cmd, sandbox_permissions: "require_escalated", justification: "Mark" } };
  }
  return { text: FINAL_TEXT };
};

beforeAll(async () => {
  if (skipped) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-sessions-e2e-", "project"));
  mock = await startModelMock({ reply: scripted, models: [] });
  for (const agent of ["claude-code", "codex"]) {
    const installed = await runCli(["hooks", "install", agent, ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code, installed.stderr).toBe(0);
  }
  for (const agent of ["claude", "codex"]) {
    writeFileSync(join(work, `gate-${agent}.sh`), `while [ ! -f go-${agent} ]; do sleep 0.05; done\n`);
  }
  writeCodexConfig(home, work, mock.url, "on-request");

  if (!existsSync(join(APP_DIR, "index.html")))
    execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
  relay = new RelayHarness(new SqliteStore(join(tempDir("sessions-e2e-relay-"), "relay.db")), {
    publicUrl: () => relayUrl,
    appDir: APP_DIR,
  });
  await relay.listen();
  relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
}, 180_000);

afterAll(async () => {
  if (skipped) return;
  killTmuxServers();
  relay?.app.server.closeAllConnections();
  await relay?.close();
  await mock?.close();
  await cli?.close();
});

const env = () => agentEnv(home, deadProxy, mockModelEnv(mock));

/** `notify sessions --json`: the agent's one session in this project. */
async function listed(agent: string): Promise<Json | undefined> {
  const result = await runCli(["sessions", "--json", ...cli.target]);
  expect(result.code, result.stderr).toBe(0);
  const { sessions } = JSON.parse(result.stdout) as { sessions: Json[] };
  return sessions.find((session) => session.agent === agent && session.cwd === work);
}

const inState = (agent: string, state: string) =>
  eventually(`the ${agent} session ${state}`, async () => {
    const session = await listed(agent);
    return session?.state === state ? session : undefined;
  });

describe.runIf(!skipped)("sessions of the real agents on the web page and the phone (issue 37)", () => {
  const browser = useBrowser();
  let web: Page;
  let phone: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const installation = await relay.enroll("laptop");
    const ui = brokerApi(cli.broker.url, cli.token).ui;
    const provider = await ui("POST", "/outbound/providers", {
      kind: "relay",
      name: "phone",
      enabled: true,
      settings: { url: relayUrl, installationId: installation.installation_id },
      secrets: { installationToken: installation.token },
    });
    expect(provider.status).toBe(201);
    expect((await ui("POST", "/outbound/routes", { name: "phone", provider: "phone", enabled: true })).status).toBe(
      201,
    );
    const phoneContext = await browser().newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    phone = await phoneContext.newPage();
    phone.on("pageerror", (error) => problems.push(`phone: ${error.message}`));
    await phone.goto((await relay.pairCode(installation)).link);
    await phone.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });
    const signedIn = await signedInPage(browser(), {
      loginLink: () => `${cli.broker.url}/ui/login?t=${cli.broker.uiSessions.createLinkToken().token}`,
    } as UiBroker);
    web = signedIn.page;
    web.on("pageerror", (error) => problems.push(`web: ${error.message}`));
  }, 180_000);

  /** The web page's sessions line, read again (it refreshes on inbox changes and every 15 s; a reload is sooner). */
  const webSays = (text: string) =>
    eventually(`the web page saying "${text}"`, async () => {
      await web.reload();
      const line = web.locator(".sessions-line .sessions-summary");
      await line.waitFor({ timeout: 20_000 }).catch(() => undefined);
      const said = await line.textContent().catch(() => null);
      return said === text ? said : undefined;
    });

  /** The phone's sessions line, as the sealed summaries arrive (no reload: the app long-polls the relay). */
  const phoneSays = (text: string) =>
    expect
      .poll(
        () =>
          phone
            .locator(".sessions-summary")
            .textContent()
            .catch(() => null),
        { timeout: WAIT_MS },
      )
      .toBe(text);

  /** Screenshots of the phone's Sessions view, when NOTIFY_SHOTS_DIR names where (a person looks at them). */
  const shot = async (name: string) => {
    const dir = process.env.NOTIFY_SHOTS_DIR;
    if (dir === undefined) return;
    await phone.evaluate(() => window.scrollTo(0, 0));
    await phone.screenshot({ path: join(dir, `sessions-${name}.png`) });
  };

  run(
    "Claude Code: working, waiting (answered on the phone), finished, ended",
    async () => {
      // stream-json input keeps the session open after its turn: closing stdin ends it (SessionEnd).
      const child = spawn(
        CLAUDE,
        [
          "-p",
          "--input-format",
          "stream-json",
          "--output-format",
          "stream-json",
          "--verbose",
          "--allowedTools",
          `Bash(${gate("claude")})`,
        ],
        { cwd: work, env: env(), stdio: ["pipe", "pipe", "pipe"] },
      );
      const started = { child, done: exited(child) };
      started.child.stdin?.write(
        `${JSON.stringify({ type: "user", message: { role: "user", content: "create the marker file" } })}\n`,
      );

      const working = await inState("claude-code", "working");
      expect(working).toMatchObject({ project: "project", open_questions: 0, machine: expect.any(String) });
      await webSays("1 working");
      await phoneSays("1 working");
      writeFileSync(join(work, "go-claude"), "");

      await inState("claude-code", "waiting");
      await webSays("1 agent waits on you");
      await phoneSays("1 agent waits on you");
      await phone.getByRole("button", { name: "Sessions" }).click();
      await phone.locator(".session-waiting").getByText("1 open question", { exact: false }).waitFor();
      await shot("claude-waiting");
      // Answered on the phone: the command runs and the turn ends.
      await phone.getByRole("button", { name: "Allow", exact: true }).click();

      const finished = await inState("claude-code", "finished");
      expect(finished).toMatchObject({ last_message: FINAL_TEXT, open_questions: 0 });
      expect(existsSync(join(work, "claude.marker"))).toBe(true);
      await webSays("1 finished");
      await phoneSays("1 finished");
      await shot("claude-finished");

      started.child.stdin?.end();
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      await inState("claude-code", "ended");
      // Ended sessions are not counted: the phone's line goes, the list keeps it.
      await expect.poll(() => phone.locator(".session-ended").count(), { timeout: WAIT_MS }).toBe(1);
      await shot("claude-ended");
    },
    240_000,
  );

  run(
    "Codex (interactive, in tmux): working, waiting (answered on the phone), finished; its hooks have no session end",
    async () => {
      // Codex's `exec` never asks (approval "never"): its interactive UI does.
      const codex = startInTmux("codex-sessions", work, env(), [
        process.execPath,
        CODEX,
        "--dangerously-bypass-hook-trust",
        "wait for the go",
      ]);
      try {
        const working = await inState("codex", "working");
        expect(working).toMatchObject({ project: "project", open_questions: 0 });
        await webSays("1 working");
        await phoneSays("1 working");
        writeFileSync(join(work, "go-codex"), "");

        await inState("codex", "waiting");
        await webSays("1 agent waits on you");
        await phoneSays("1 agent waits on you");
        const card = phone.getByRole("article", { name: "Question from codex" });
        await card.getByRole("button", { name: "Allow", exact: true }).click();

        const finished = await inState("codex", "finished");
        expect(finished).toMatchObject({ last_message: FINAL_TEXT, open_questions: 0 });
        expect(existsSync(join(work, "codex.marker")), codex.screen()).toBe(true);
        await webSays("1 finished");
        await phoneSays("1 finished");
        await shot("codex-finished");
      } finally {
        codex.kill();
      }
      expect(problems).toEqual([]);
    },
    240_000,
  );
});
