// Issue 37, item 1: the phone's Sessions view with two machines. A real relay in process, two installations of one
// owner (the second joined with a join code), each machine's sessions sealed by the broker's own publisher
// (relay-publisher.ts over a real SQLite store), the phone app in Chromium at phone size: one calm line naming each
// machine, the list behind a tap, the newest summary of a machine replacing its last.
// NOTIFY_SHOTS_DIR=<dir> writes sessions-machines.png there (390x844).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStore } from "@notify/relay";
import { tempDir } from "@notify/test-kit";
import { RelayHarness } from "@notify/test-kit/relay-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/domain/clock.js";
import type { OutboundRoute, ProviderProfile } from "../../src/outbox/types.js";
import { SessionsRelayPublisher } from "../../src/sessions/relay-publisher.js";
import { SessionRegistry } from "../../src/sessions/sessions.js";
import { openDatabase, unitOfWork } from "../../src/store/database.js";
import { axeViolations, chromiumAvailable, useBrowser } from "../ui/browser.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const APP_DIR = join(ROOT, "packages/phone/dist");
const WAIT_MS = 60_000;

interface Installation {
  installation_id: string;
  token: string;
}

/** One machine: its own store and publisher, sealing to the owner's phones through its installation. */
function machine(name: string, installation: Installation, relayUrl: string) {
  const db = openDatabase(":memory:");
  const clock = new ManualClock(Date.now());
  const registry = new SessionRegistry(db, clock, unitOfWork(db));
  const profile = {
    id: `prv_${name}`,
    kind: "relay",
    name: "phone",
    enabled: true,
    settings: { url: relayUrl, installationId: installation.installation_id },
  } as unknown as ProviderProfile;
  const publisher = new SessionsRelayPublisher(
    registry,
    {
      listProfiles: () => [profile],
      listRoutes: () => [{ providerId: profile.id, enabled: true, includeMessage: true } as OutboundRoute],
      openSecrets: () => ({ installationToken: installation.token }),
    },
    clock,
    {},
    () => name,
  );
  return {
    registry,
    publisher,
    close() {
      publisher.stop();
      db.close();
    },
  };
}

describe.runIf(chromiumAvailable())("the phone's Sessions view, two machines (issue 37, item 1)", () => {
  const browser = useBrowser();
  let relay: RelayHarness;
  let relayUrl = "";

  beforeAll(async () => {
    if (!existsSync(join(APP_DIR, "index.html")))
      execFileSync("npm", ["run", "build", "-w", "@notify/phone"], { cwd: ROOT });
    relay = new RelayHarness(new SqliteStore(join(tempDir("phone-sessions-relay-"), "relay.db")), {
      publicUrl: () => relayUrl,
      appDir: APP_DIR,
    });
    await relay.listen();
    relayUrl = `http://127.0.0.1:${(relay.app.server.address() as { port: number }).port}`;
  }, 120_000);
  afterAll(async () => {
    relay?.app.server.closeAllConnections();
    await relay?.close();
  });

  it("one line per machine, the list behind a tap; a machine's newest summary replaces its last", {
    timeout: 90_000,
  }, async () => {
    const laptopInstallation = await relay.enroll("laptop");
    const joinCode = await relay.request({
      url: "/v1/joins",
      headers: { authorization: `Bearer ${laptopInstallation.token}` },
      body: {},
    });
    expect(joinCode.status).toBe(201);
    const joined = await relay.request({
      url: "/v1/installations/join",
      body: { code: (joinCode.json() as { code: string }).code, name: "desktop" },
    });
    expect(joined.status, joined.text).toBe(201);
    const desktopInstallation = joined.json() as Installation;

    const context = await browser().newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const phone = await context.newPage();
    const problems: string[] = [];
    phone.on("pageerror", (error) => problems.push(error.message));
    await phone.goto((await relay.pairCode(laptopInstallation)).link);
    await phone.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });

    const laptop = machine("laptop", laptopInstallation, relayUrl);
    const desktop = machine("desktop", desktopInstallation, relayUrl);
    try {
      laptop.registry.observe({ agent: "claude-code", sessionId: "l-1", signal: "working", project: "shop-api" });
      laptop.registry.observe({
        agent: "codex",
        sessionId: "l-2",
        signal: "finished",
        project: "docs",
        lastMessage: "Rewrote the install guide.",
      });
      desktop.registry.observe({ agent: "claude-code", sessionId: "d-1", signal: "working", project: "ml" });
      await laptop.publisher.publish();
      await desktop.publisher.publish();

      const line = phone.locator(".sessions-summary");
      // Machines in the order their first summary arrived.
      await expect
        .poll(() => line.textContent(), { timeout: WAIT_MS })
        .toBe("laptop: 1 working, 1 finished · desktop: 1 working");

      // The desktop's session finishes: its newest summary replaces the last.
      desktop.registry.observe({
        agent: "claude-code",
        sessionId: "d-1",
        signal: "finished",
        lastMessage: "Training done: loss 0.031.",
      });
      await desktop.publisher.publish();
      await expect
        .poll(() => line.textContent(), { timeout: WAIT_MS })
        .toBe("laptop: 1 working, 1 finished · desktop: 1 finished");

      await phone.getByRole("button", { name: /Sessions$/ }).click();
      const list = phone.getByRole("region", { name: "Agent sessions" }).getByRole("listitem");
      await expect.poll(() => list.count(), { timeout: WAIT_MS }).toBe(3);
      // Working first, then finished; each names its project, its machine and its last message.
      expect(await list.nth(0).textContent()).toContain("shop-api · laptop");
      expect(await list.nth(1).textContent()).toContain("ml · desktop");
      expect(await list.nth(1).textContent()).toContain("Training done: loss 0.031.");
      expect(await list.nth(2).textContent()).toContain("Rewrote the install guide.");
      const shots = process.env.NOTIFY_SHOTS_DIR;
      if (shots !== undefined) await phone.screenshot({ path: join(shots, "sessions-machines.png") });
      expect(await axeViolations(phone)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      laptop.close();
      desktop.close();
      await context.close();
    }
  });
});
