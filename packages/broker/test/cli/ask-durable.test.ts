import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { spawnBroker } from "@notify/test-kit/broker-process";
import { describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { closedPort, runCli, sharedCliBroker, spawnCli } from "./cli-harness.js";

const { cli, notify } = sharedCliBroker();
const WAITING = /^notify: waiting for an answer to interaction (\S+) \(/m;

/** An ARC `request.created` event: a permission question under `key` expiring at `expiresAt`. */
function expiringQuestion(eventId: string, key: string, message: string, expiresAt: number): Json {
  return {
    arc_version: "0.2",
    event_id: eventId,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "test" },
    request: {
      key,
      kind: "permission",
      message,
      response: {
        kind: "permission",
        choices: [
          { id: "allow", label: "Allow" },
          { id: "deny", label: "Deny" },
        ],
        expires_at: new Date(expiresAt).toISOString(),
      },
    },
  };
}

async function startAsk(...args: string[]) {
  const ask = spawnCli(["ask", ...args, ...cli.target]);
  const match = await ask.stderrMatching(WAITING);
  return { ask, id: match[1] ?? "" };
}

describe("notify ask is as durable as the question (issue 12, item 4)", () => {
  it("keeps waiting through a broker restart and returns the answer given after it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "notify-ask-restart-"));
    const port = await closedPort();
    let broker: RunningBroker = await startBroker({ dataDir, port, env: {} });
    try {
      const target = ["--port", String(port), "--data-dir", dataDir];
      const ask = spawnCli(["ask", "Restart-proof?", ...target]);
      const id = (await ask.stderrMatching(WAITING))[1] ?? "";
      await broker.close();
      await ask.stderrMatching(/lost the broker; reconnecting until the question expires/);
      broker = await startBroker({ dataDir, port, env: {} });
      // Answer through the CLI against the new process: the question survived in SQLite.
      const answer = await runCli(["answer", id, "--choice", "allow", ...target]);
      expect(answer.code).toBe(0);
      const result = await ask.done;
      expect(result).toMatchObject({ code: 0, stdout: "allow\n" });
    } finally {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a broker stopped mid-wait (SIGSTOP) holds ask no longer than the expiry and a few seconds (issue 21, item 10)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "notify-ask-stopped-"));
    const broker = await spawnBroker(dataDir);
    try {
      // The question's expiry is what bounds the wait, so it is a short one: an ARC question expiring in ten
      // seconds (native ttl_seconds is at least 30), which `notify ask` joins through its key. Ten seconds leave a
      // loaded machine room to start the CLI before it passes (as "expired: exit 4" below).
      const { authToken } = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8"));
      const expiresAt = Date.now() + 10_000;
      const created = await fetch(`${broker.url}/v1/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${authToken}`, "content-type": "application/json" },
        body: JSON.stringify(expiringQuestion("stopped", "stopped-question", "Stopped broker?", expiresAt)),
      });
      expect(created.status).toBe(201);
      const { interaction } = (await created.json()) as Json;
      const ask = spawnCli([
        "ask",
        "Stopped broker?",
        "--key",
        "stopped-question",
        "--port",
        String(broker.port),
        "--data-dir",
        dataDir,
      ]);
      expect((await ask.stderrMatching(WAITING, 30_000))[1]).toBe(interaction.id);
      broker.child.kill("SIGSTOP");
      const result = await ask.done;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/lost the broker; interaction \S+ expired before it could be reached again/);
      // The expiry, 5 s of grace, and room for a loaded machine (it was 60 s: a poll's full wait plus slack).
      expect(Date.now()).toBeLessThan(expiresAt + 5_000 + 12_000);
    } finally {
      broker.child.kill("SIGCONT");
      broker.child.kill("SIGTERM");
      await broker.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it("SIGTERM is handled like SIGINT: its own unkeyed question is cancelled, exit 143", async () => {
    const { ask, id } = await startAsk("Terminate me?");
    ask.child.kill("SIGTERM");
    const result = await ask.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toContain(`notify: interrupted; cancelled interaction ${id}\n`);
    expect((await cli.api<Json>("GET", `/v1/interactions/${id}`)).body.status).toBe("cancelled");
  });

  it("a keyed question two waiters share survives one waiter's interrupt; the other gets the answer", async () => {
    const first = await startAsk("Shared?", "--key", "shared-question");
    const second = await startAsk("Shared?", "--key", "shared-question");
    expect(second.id).toBe(first.id);
    first.ask.child.kill("SIGINT");
    const interrupted = await first.ask.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain(`left keyed interaction ${first.id} open for its other waiters`);
    expect((await cli.api<Json>("GET", `/v1/interactions/${first.id}`)).body.status).toBe("pending");
    expect((await notify("answer", first.id, "--choice", "allow")).code).toBe(0);
    expect(await second.ask.done).toMatchObject({ code: 0, stdout: "allow\n" });
  });
});

describe("notify ask exit codes (docs/cli.md)", () => {
  it("denied by choice: exit 3, and the answer is printed all the same", async () => {
    const { ask, id } = await startAsk("Force push?");
    expect((await notify("answer", id, "--choice", "deny")).code).toBe(0);
    expect(await ask.done).toMatchObject({ code: 3, stdout: "deny\n" });
  });

  it("expired: exit 4", async () => {
    // An ARC question shared through its key (native ttl_seconds is at least 30): `notify ask` joins it while its
    // deadline is a minute away, then the producer moves the deadline to now (docs/arc.md: an update that changes
    // only expires_at keeps the question), so it expires while ask waits, however slowly the CLI started.
    const created = await cli.api<Json>(
      "POST",
      "/v1/events",
      expiringQuestion("expiring", "expiring-question", "Expire?", Date.now() + 60_000),
    );
    expect(created.status).toBe(201);
    const { ask, id } = await startAsk("Expire?", "--key", "expiring-question");
    expect(id).toBe(created.body.interaction.id);
    const moved = await cli.api<Json>(
      "POST",
      "/v1/events",
      expiringQuestion("expiring-now", "expiring-question", "Expire?", Date.now() + 200),
    );
    expect(moved.body.interaction.id).toBe(id);
    const movedAt = Date.now();
    // No one reads the question: the broker's expiry timer, re-armed for the earlier deadline, wakes the waiting ask
    // (its long poll asked for up to 60 s, from the deadline it first saw).
    const result = await ask.done;
    expect(Date.now() - movedAt).toBeLessThan(20_000);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`notify: interaction ${id} expired without an answer`);
  });

  it("a refused token: exit 2; a broker that is not there: exit 1", async () => {
    const refused = await runCli(["ask", "Hi?", "--port", String(cli.broker.port), "--token", "nope"]);
    expect(refused.code).toBe(2);
    const port = await closedPort();
    const down = await runCli(["ask", "Hi?", "--port", String(port), "--token", "t"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach the broker");
  });
});

describe("answer twice, pending, show, cancel, reopen", () => {
  it("the same answer again reports the existing answer (exit 0); a different one is the conflict", async () => {
    const { body: question } = await cli.api<Json>("POST", "/v1/interactions/request", { prompt: "Twice?" });
    expect((await notify("answer", question.id, "--choice", "allow")).code).toBe(0);
    const again = await notify("answer", question.id, "--choice", "allow");
    expect(again).toMatchObject({ code: 0, stdout: "" });
    expect(again.stderr).toBe(`notify: interaction ${question.id} was already answered with choice allow (from cli)\n`);
    const other = await notify("answer", question.id, "--choice", "deny");
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^notify: 409 /);
  });

  it("pending lists open questions; show prints one whole; cancel withdraws it; reopen reopens its notification", async () => {
    const { body: question } = await cli.api<Json>("POST", "/v1/interactions/request", {
      prompt: "Line one of the prompt\nline two",
      agent: "pending-agent",
      project: "p1",
    });
    const pending = await notify("pending", "--agent", "pending-agent");
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(
      new RegExp(`^${question.id}  permission +pending-agent/p1 +\\d+s  allow\\|deny  Line one of the prompt\\n$`),
    );
    const json = JSON.parse((await notify("pending", "--agent", "pending-agent", "--json")).stdout);
    expect(json).toHaveLength(1);
    expect(json[0]).not.toHaveProperty("nonce");

    const shown = await notify("show", question.id);
    expect(shown.stdout).toContain(`id       ${question.id}\nstatus   pending\nkind     permission\n`);
    expect(shown.stdout).toContain("choices\n  allow: Allow\n  deny: Deny\n");
    expect(shown.stdout).toContain("Line one of the prompt\nline two\n");
    expect(shown.stdout + shown.stderr).not.toContain(question.nonce);

    const cancelled = await notify("cancel", question.id);
    expect(cancelled).toMatchObject({ code: 0, stderr: `notify: cancelled interaction ${question.id}\n` });
    expect((await notify("cancel", question.id)).stderr).toContain("is already cancelled; nothing changed");
    expect((await notify("pending", "--agent", "pending-agent")).stdout).toBe("");

    const notifications = (await cli.api<Json[]>("GET", "/v1/notifications?agent=pending-agent")).body;
    const notification = notifications.find((n) => n.metadata?.interaction_id === question.id);
    expect(notification.status).toBe("resolved");
    const reopened = await notify("reopen", notification.id);
    expect(reopened).toMatchObject({ code: 0, stderr: `notify: reopened notification ${notification.id}\n` });
    const shownNotification = await notify("show", notification.id);
    expect(shownNotification.stdout).toContain("status   active\ntype     permission_required\n");
    expect((await notify("show", "int_missing")).code).toBe(1);
  });
});
