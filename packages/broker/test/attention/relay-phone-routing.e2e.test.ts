// Issue 24, "Must show" 3, end to end: the real relay (`notify-relay serve`, SQLite), a real broker (`notify serve`)
// enrolled with it, the phone app from the relay's /app in Chromium, and a private dbus-daemon whose
// org.freedesktop.ScreenSaver the test exports and locks. Each is its own process; the test drives the screen saver
// and the browser and reads both databases from the side (read-only connections to their SQLite files).
//
// 1. Present, a relay route `when: away` with a 30 s delay holds a question: no envelope at the relay, no card on
//    the phone, and the broker has loaded the seal's library meanwhile (its warm-up). Locking the session sends
//    it: the card is in the phone's page within a second of the lock (median of three rounds, measured in the
//    page, figures printed; LOCK_TO_CARD_P50_MS). Answered on the desktop, the card closes (recall, item 4).
// 2. A question answered on the desktop before its delay (3 s) never reaches the relay: once a question asked
//    after it has gone out at its own (later) due time, the relay's database holds no envelope for the first one,
//    neither the question nor a closed notice, and the phone shows nothing of it.
//
// A second, simulated device (an X25519 key in this process) is paired to the same installation, so every envelope
// the relay stores is sealed to it too: the test opens them all and tells which question each is about.
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { type Envelope, openEnvelope } from "@notify/contracts/relay-envelope";
import { ENROLLMENT_TOKEN, untilValue } from "@notify/test-kit";
import { type BrokerProcess, spawnBroker } from "@notify/test-kit/broker-process";
import { type RelayProcess, call as relayCall, spawnRelay } from "@notify/test-kit/relay-process";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeConfigFile } from "../../src/config/config-file.js";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import type { Json } from "../helpers.js";
import { dbusAvailable, SessionBus } from "../presentation/dbus-harness.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from "../ui/browser.js";
import { FakeScreenSaver } from "./screensaver-harness.js";

const TOKEN = "relay-phone-routing-token-0123456789abcdef";
/** A wait across the broker, the relay and Chromium on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;
/**
 * Scenario 1's "nothing happens" window: how long the test watches the relay and the phone while the question is
 * held. Bounded and short (the delay is 30 s); it shows that nothing goes at once, not that nothing ever goes.
 */
const NOTHING_WINDOW_MS = 3_000;
/**
 * Lock -> card in the phone's page: the "within a second", asserted on the median of the rounds. Measured on
 * this 2-core machine shared with other suites (docs/routing.md): medians 100-418 ms, and 144-712 ms with a busy
 * loop per core on top; the slowest round 880 ms under that load. So every round is held to a looser
 * LOCK_TO_CARD_MAX_MS, which a loaded machine meets, rather than to a second with 12 % to spare.
 */
const LOCK_TO_CARD_P50_MS = 1_000;
const LOCK_TO_CARD_MAX_MS = 2_000;
/** Lock -> card rounds in scenario 1. */
const ROUNDS = 3;

/** Loaded into the broker with --import: logs every module it loads (the warm-up a held question makes). */
const MODULE_LOG_HOOK = fileURLToPath(new URL("../startup/module-log-hook.mjs", import.meta.url));

const run = dbusAvailable() && chromiumAvailable();

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = E2E_WAIT_MS): Promise<T> =>
  untilValue(what, probe, { timeoutMs: ms, everyMs: 20 });

/** Reads a SQLite file through a read-only connection of its own (the owning process keeps writing). */
function readDb<T>(path: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

describe.runIf(run)("attention routing to the phone: real relay, broker, Chromium and session bus", () => {
  const dirs: string[] = [];
  let bus: SessionBus;
  let saver: FakeScreenSaver;
  let relay: RelayProcess;
  let broker: BrokerProcess;
  let browser: Browser;
  let page: Page;
  let brokerDir = "";
  let relayDir = "";
  let moduleLog = "";
  /** The simulated second device: every envelope is sealed to it as well. */
  let spy: { deviceId: string; key: KeyObject };
  const problems: string[] = [];

  const temp = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${broker.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "x-notify-ui": "1",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };

  const presence = async (): Promise<string> => (await api("GET", "/ui/api/presence")).body.state;

  /** Locks or unlocks the session and waits until the broker's presence says so. */
  const setLocked = async (locked: boolean) => {
    if (saver.locked !== locked) saver.setLocked(locked);
    const want = locked ? "away" : "present";
    await until(`presence ${want}`, async () => ((await presence()) === want ? true : undefined));
  };

  /** What the relay's database holds: every envelope, opened with the simulated device's key. */
  const relayEnvelopes = async (): Promise<{ interactionId: string | undefined; status: string; at: number }[]> => {
    const rows = readDb(join(relayDir, "relay.db"), (db) =>
      db.prepare("SELECT body, created_at FROM envelopes ORDER BY seq").all(),
    ) as { body: string; created_at: number }[];
    return Promise.all(
      rows.map(async (row) => {
        const payload = (await openEnvelope(JSON.parse(row.body) as Envelope, spy.deviceId, spy.key)) as Json;
        const interactionId = payload.interaction?.id ?? payload.notification?.interaction_id;
        const status = payload.interaction ? "question" : (payload.notification?.interaction_status ?? "notification");
        return { interactionId, status, at: row.created_at };
      }),
    );
  };

  /** The broker's routed_deliveries row of a question (its delivery decision), read from its SQLite file. */
  const routed = (interactionId: string) =>
    readDb(
      join(brokerDir, DATABASE_FILE_NAME),
      (db) =>
        db
          .prepare(
            `SELECT r.state, r.reason, r.presence, r.due_ms FROM routed_deliveries r
             JOIN interactions i ON r.subject = 'interaction' AND i.seq = r.subject_seq WHERE i.id = ?`,
          )
          .all(interactionId) as { state: string; reason: string; presence: string | null; due_ms: number | null }[],
    );

  /** The broker's outbox items (the question, then closed notices) for a question, oldest first. */
  const outboxItems = (interactionId: string) =>
    readDb(
      join(brokerDir, DATABASE_FILE_NAME),
      (db) =>
        db
          .prepare(
            `SELECT created_ms, delivered_ms FROM outbox WHERE subject = 'interaction'
             AND subject_seq = (SELECT seq FROM interactions WHERE id = ?) ORDER BY seq`,
          )
          .all(interactionId) as { created_ms: number; delivered_ms: number | null }[],
    );

  const ask = async (prompt: string) => {
    const asked = await api("POST", "/v1/interactions/request", { prompt, agent: "claude", project: "shop-api" });
    expect(asked.status).toBe(201);
    return asked.body as { id: string; request_digest: string; nonce: string; created_at: string };
  };

  const answerOnDesktop = async (question: { id: string; request_digest: string; nonce: string }) => {
    const answered = await api("POST", `/v1/interactions/${question.id}/respond`, {
      response_id: `desktop-${question.id}`,
      request_digest: question.request_digest,
      nonce: question.nonce,
      choice_id: "allow",
      source: "desktop",
    });
    expect(answered.status).toBe(200);
  };

  const card = (prompt: string) => page.getByRole("article").filter({ hasText: prompt });

  /** When the page first held a card with this prompt (the page's Date.now(): the same clock as this process). */
  const seenAt = (prompt: string): Promise<number | undefined> =>
    page.evaluate((text) => window.__cardsSeen?.[text] as number | undefined, prompt);

  beforeAll(async () => {
    bus = new SessionBus(temp("notify-e2e24-bus-"));
    const address = await bus.start();
    saver = new FakeScreenSaver();
    await saver.connect(address);

    relayDir = temp("notify-e2e24-relay-");
    relay = await spawnRelay({ dataDir: relayDir, env: { RELAY_ENROLLMENT_TOKEN: ENROLLMENT_TOKEN } });
    const installation = (await relayCall(relay.url, "POST", "/v1/installations", ENROLLMENT_TOKEN, { name: "desk" }))
      .json as { installation_id: string; token: string };

    brokerDir = temp("notify-e2e24-broker-");
    moduleLog = join(temp("notify-e2e24-modules-"), "modules.txt");
    writeConfigFile(brokerDir, { authToken: TOKEN, awayAfterSeconds: 300 });
    broker = await spawnBroker(brokerDir, {
      DBUS_SESSION_BUS_ADDRESS: address,
      NODE_OPTIONS: `--import ${MODULE_LOG_HOOK}`,
      NOTIFY_TEST_MODULE_LOG: moduleLog,
    });
    // The screen saver says unlocked and not idle: present.
    await until("presence from the screen saver", async () => ((await presence()) === "present" ? true : undefined));
    const provider = await api("POST", "/ui/api/outbound/providers", {
      kind: "relay",
      name: "phone",
      enabled: true,
      settings: { url: relay.url, installationId: installation.installation_id },
      secrets: { installationToken: installation.token },
    });
    expect(provider.status).toBe(201);

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    // Every card's first appearance in the DOM, stamped in the page as it happens.
    await context.addInitScript(() => {
      window.__cardsSeen = {};
      const stamp = () => {
        for (const prompt of document.querySelectorAll("article .prompt")) {
          const text = prompt.textContent ?? "";
          window.__cardsSeen[text] ??= Date.now();
        }
      };
      new window.MutationObserver(stamp).observe(document, { childList: true, subtree: true, characterData: true });
    });
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));

    // The phone pairs from the relay's link; the simulated device through the claim route.
    const pairing = (await relayCall(relay.url, "POST", "/v1/pairings", installation.token, {})).json as {
      link: string;
    };
    await page.goto(pairing.link);
    await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    const { publicKey, privateKey } = generateKeyPairSync("x25519");
    const jwk = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string };
    const code = ((await relayCall(relay.url, "POST", "/v1/pairings", installation.token, {})).json as { code: string })
      .code;
    const claimed = await relayCall(relay.url, "POST", "/v1/pairings/claim", undefined, {
      code,
      device_name: "spy",
      public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    });
    expect(claimed.status).toBe(201);
    spy = { deviceId: claimed.json.device_id, key: privateKey };
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (broker && broker.child.exitCode === null) {
      broker.child.kill("SIGTERM");
      await broker.exited;
    }
    await relay?.stop();
    saver?.disconnect();
    await bus?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("present: held, no envelope, no card; locked: the card within a second; answered on the desktop: it closes", async () => {
    const route = await api("POST", "/ui/api/outbound/routes", {
      name: "Phone",
      provider: "phone",
      enabled: true,
      when: "away",
      delay_seconds: 30,
    });
    expect(route.status).toBe(201);

    /** Per round, from the lock: the broker's presence changed, the outbox item written, the envelope stored at
     * the relay, the card in the page. */
    const rounds: { presence: number; enqueued: number; relay: number; card: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await setLocked(false);
      const prompt = `Deploy build 14${round}0 to production?`;
      const question = await ask(prompt);
      const createdAt = Date.parse(question.created_at);
      const [held] = await until("the held row", () => {
        const rows = routed(question.id);
        return rows.length > 0 ? rows : undefined;
      });
      expect(held).toMatchObject({ state: "held", reason: "delay", due_ms: createdAt + 30_000 });

      if (round === 1) {
        // Bounded window (NOTHING_WINDOW_MS), checked every 100 ms: nothing at the relay, nothing on the phone.
        const end = Date.now() + NOTHING_WINDOW_MS;
        while (Date.now() < end) {
          expect(await relayEnvelopes()).toEqual([]);
          expect(await card(prompt).count()).toBe(0);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(routed(question.id)).toMatchObject([{ state: "held" }]);
        // Held for the relay, the broker loads what sealing needs (jose, otherwise loaded with the first envelope)
        // while the question waits, so the release below does not pay the load (attention.ts, warmUp).
        // (15 s: a deadline across processes, and well before the 30 s delay would load it by sending.)
        await until(
          "jose loaded while the question is held",
          () =>
            existsSync(moduleLog) && readFileSync(moduleLog, "utf8").includes("/node_modules/jose/") ? true : undefined,
          15_000,
        );
      }
      // Still well inside the delay: what follows is the lock's doing, not the delay's.
      expect(Date.now() - createdAt).toBeLessThan(20_000);

      const lockedAt = Date.now();
      saver.setLocked(true);
      await card(prompt).waitFor({ state: "visible", timeout: E2E_WAIT_MS });
      const shownAt = await until("the page's stamp", () => seenAt(prompt));
      // The question and its notification half (a native question's inbox row, which names it).
      // (two outbox items, each its own envelope: the second may still be on its way).
      const stored = await until("both envelopes at the relay", async () => {
        const rows = (await relayEnvelopes()).filter((row) => row.interactionId === question.id);
        return rows.length >= 2 ? rows : undefined;
      });
      expect(stored.map((row) => row.status).sort()).toEqual(["notification", "question"]);
      expect(routed(question.id)).toMatchObject([{ state: "sent", reason: "presence", presence: "away" }]);
      const since = Date.parse((await api("GET", "/ui/api/presence")).body.since);
      const [item] = outboxItems(question.id);
      rounds.push({
        presence: since - lockedAt,
        enqueued: (item?.created_ms ?? 0) - lockedAt,
        relay: (stored.find((row) => row.status === "question")?.at ?? 0) - lockedAt,
        card: shownAt - lockedAt,
      });

      // Recall: answered on the desktop, the phone's card closes.
      await answerOnDesktop(question);
      await expect
        .poll(() => card(prompt).getByRole("status").textContent(), { timeout: E2E_WAIT_MS })
        .toBe("Answered elsewhere");
      expect(await card(prompt).getByRole("button", { name: "Allow" }).isDisabled()).toBe(true);
    }

    const lockToCard = rounds.map((row) => row.card);
    console.log(
      `lock -> card in the phone's page, ${ROUNDS} rounds: ${lockToCard.join(", ")} ms ` +
        `(p50 ${percentile(lockToCard, 50)} ms, max ${Math.max(...lockToCard)} ms); from the lock, per round: ` +
        rounds
          .map((row) => `presence ${row.presence}, outbox ${row.enqueued}, relay ${row.relay}, card ${row.card}`)
          .join("; "),
    );
    for (const value of lockToCard) expect(value).toBeGreaterThanOrEqual(0);
    expect(percentile(lockToCard, 50)).toBeLessThan(LOCK_TO_CARD_P50_MS);
    expect(Math.max(...lockToCard)).toBeLessThan(LOCK_TO_CARD_MAX_MS);
    expect(problems).toEqual([]);
  }, 120_000);

  it("answered on the desktop before its delay, a question never reaches the relay", async () => {
    await setLocked(false);
    const patched = await api("PATCH", "/ui/api/outbound/routes/Phone", { delay_seconds: 3 });
    expect(patched.status).toBe(200);

    // The answered question first, then a control asked after it: the control falls due later, so once it is at
    // the relay the first one's due time has passed too, and the broker's timer has run past it.
    const answered = await ask("Drop the staging database?");
    const control = await ask("Rotate the staging logs?");
    for (const question of [answered, control]) {
      await until("the held row", () => (routed(question.id)[0]?.state === "held" ? true : undefined));
    }
    await answerOnDesktop(answered);
    // Voided in the transaction that answered it.
    expect(routed(answered.id)).toMatchObject([{ state: "void", reason: "settled" }]);

    await card("Rotate the staging logs?").waitFor({ state: "visible", timeout: E2E_WAIT_MS });
    const [controlRow] = routed(control.id);
    expect(controlRow).toMatchObject({ state: "sent", reason: "delay_elapsed" });
    expect(Date.now()).toBeGreaterThan(Date.parse(answered.created_at) + 3_000);

    const envelopes = await relayEnvelopes();
    const controlStatuses = envelopes.filter((row) => row.interactionId === control.id).map((row) => row.status);
    expect(controlStatuses.sort()).toEqual(["notification", "question"]);
    expect(envelopes.filter((row) => row.interactionId === answered.id)).toEqual([]);
    expect(outboxItems(answered.id)).toEqual([]);
    expect(routed(answered.id)).toMatchObject([{ state: "void", reason: "settled" }]);
    expect(await page.getByText("Drop the staging database?").count()).toBe(0);

    await answerOnDesktop(control);
    await expect
      .poll(() => card("Rotate the staging logs?").getByRole("status").textContent(), { timeout: E2E_WAIT_MS })
      .toBe("Answered elsewhere");
    expect(problems).toEqual([]);
  }, 60_000);
});
