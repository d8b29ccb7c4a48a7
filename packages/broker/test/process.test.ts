import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnBroker } from "@notify/test-kit/broker-process";
import { Agent, request } from "undici";
import { describe, expect, it } from "vitest";
import { SERVE_SEMI_SPACE_MIB } from "../src/cli/runtime-flags.js";
import { writeConfigFile } from "../src/config/config-file.js";
import type { Json } from "./helpers.js";
import { tempDir } from "./helpers.js";

const TOKEN = "process-test-token-abcdefghijklmnopqrstuvwxyz0123";

function headers() {
  return { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
}

describe("the broker as a process, over a real socket", () => {
  it("every acknowledged create survives SIGKILL during a burst (store rule: 201 only after commit)", async () => {
    const dataDir = tempDir();
    writeConfigFile(dataDir, { authToken: TOKEN, rateLimitPerSecond: 1_000_000 });
    const broker = await spawnBroker(dataDir);
    const agent = new Agent({ connections: 16, pipelining: 1 });
    const acknowledged: string[] = [];
    let stop = false;
    const worker = async (lane: number): Promise<void> => {
      for (let index = 0; !stop && index < 100_000; index++) {
        try {
          const response = await request(`${broker.url}/v1/notifications`, {
            method: "POST",
            dispatcher: agent,
            headers: headers(),
            body: JSON.stringify({ title: `burst ${lane}-${index}`, message: "m", key: `k-${lane}-${index}` }),
          });
          const body = (await response.body.json()) as Json;
          if (response.statusCode === 201) acknowledged.push(body.id);
        } catch {
          return; // the broker is gone
        }
      }
    };
    const lanes = Array.from({ length: 16 }, (_, lane) => worker(lane));
    // Kill once a good number of writes is acknowledged, in the middle of the burst.
    while (acknowledged.length < 1500) await new Promise((resolve) => setTimeout(resolve, 5));
    broker.child.kill("SIGKILL");
    const { signal } = await broker.exited;
    stop = true;
    await Promise.all(lanes);
    await agent.close();
    expect(signal).toBe("SIGKILL");
    expect(acknowledged.length).toBeGreaterThanOrEqual(1500);

    const restarted = await spawnBroker(dataDir);
    try {
      const found = new Set<string>();
      // Read everything back through the API after restart.
      for (const id of acknowledged) {
        const response = await request(`${restarted.url}/v1/notifications/${id}`, { headers: headers() });
        if (response.statusCode === 200) found.add(((await response.body.json()) as Json).id);
        else await response.body.dump();
      }
      expect(found.size).toBe(acknowledged.length);
    } finally {
      restarted.child.kill("SIGTERM");
      await restarted.exited;
    }
  }, 60_000);

  it("SIGTERM answers open long-polls with their current state, closes the database and exits 0", async () => {
    const dataDir = tempDir();
    writeConfigFile(dataDir, { authToken: TOKEN });
    const broker = await spawnBroker(dataDir);
    const created = (await (
      await request(`${broker.url}/v1/interactions/request`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({ prompt: "Ship it?" }),
      })
    ).body.json()) as Json;
    const waits = Array.from({ length: 5 }, () =>
      request(`${broker.url}/v1/interactions/${created.id}/wait?timeout=300`, { headers: headers() }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    broker.child.kill("SIGTERM");
    for (const wait of waits) {
      const response = await wait;
      expect(response.statusCode).toBe(200);
      expect(((await response.body.json()) as Json).status).toBe("pending");
    }
    const { code } = await broker.exited;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000); // not the 300 s wait
    expect(broker.stderr()).toMatch(/SIGTERM received/);
    expect(broker.stderr()).toMatch(/broker stopped/);
    // A clean close checkpoints the WAL; the store opens again with the interaction intact.
    const again = await spawnBroker(dataDir);
    try {
      const response = await request(`${again.url}/v1/interactions/${created.id}`, { headers: headers() });
      expect(((await response.body.json()) as Json).status).toBe("pending");
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  }, 30_000);

  it.runIf(process.platform === "linux")(
    "serve re-executes itself in place with a bounded young generation, unless the flag is given",
    async () => {
      const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const broker = await spawnBroker(tempDir());
      try {
        // Same pid as spawned (execve, not a child), the flag first, the original arguments kept.
        const argv = cmdline(broker.child.pid as number);
        expect(argv[1]).toBe(`--max-semi-space-size=${SERVE_SEMI_SPACE_MIB}`);
        expect(argv.slice(-5)).toEqual(["serve", "--port", "0", "--data-dir", argv.at(-1)]);
        expect(broker.stderr()).toContain(`pid ${broker.child.pid}`);
      } finally {
        broker.child.kill("SIGTERM");
        await broker.exited;
      }
      const chosen = await spawnBroker(tempDir(), { NODE_OPTIONS: "--max-semi-space-size=8" });
      try {
        expect(cmdline(chosen.child.pid as number).some((arg) => arg.startsWith("--max-semi-space-size"))).toBe(false);
      } finally {
        chosen.child.kill("SIGTERM");
        await chosen.exited;
      }
    },
  );

  it("a corrupt config.json stops the broker with a clear message and is not overwritten", async () => {
    const dataDir = tempDir();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dataDir, "config.json"), "{ broken");
    await expect(spawnBroker(dataDir)).rejects.toThrow(/config\.json is not valid JSON/);
    expect(readFileSync(join(dataDir, "config.json"), "utf8")).toBe("{ broken");
  });

  it("no secret reaches a log or the database: token, nonces, wrong tokens", async () => {
    const dataDir = tempDir();
    writeConfigFile(dataDir, { authToken: TOKEN });
    const broker = await spawnBroker(dataDir);
    const wrongToken = "wrong-token-should-not-be-logged-987654321";
    await (
      await request(`${broker.url}/v1/notifications`, {
        method: "POST",
        headers: { authorization: `Bearer ${wrongToken}` },
        body: "{}",
      })
    ).body.dump();
    const created = (await (
      await request(`${broker.url}/v1/interactions/request`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({ prompt: "Allow?" }),
      })
    ).body.json()) as Json;
    await (
      await request(`${broker.url}/v1/interactions/${created.id}/respond`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({
          response_id: "r1",
          request_digest: created.request_digest,
          nonce: `${created.nonce}x`,
          choice_id: "allow",
        }),
      })
    ).body.dump();
    await (
      await request(`${broker.url}/v1/notifications`, { method: "POST", headers: headers(), body: "{bad" })
    ).body.dump();
    broker.child.kill("SIGTERM");
    await broker.exited;

    const logs = readdirSync(join(dataDir, "logs"));
    expect(logs.length).toBeGreaterThan(0);
    const logText = logs.map((name) => readFileSync(join(dataDir, "logs", name), "utf8")).join("") + broker.stderr();
    for (const secret of [TOKEN, wrongToken, created.nonce]) expect(logText).not.toContain(secret);
    for (const name of readdirSync(dataDir)) {
      const path = join(dataDir, name);
      if (name === "config.json" || !statSync(path).isFile()) continue;
      expect(readFileSync(path).includes(TOKEN), name).toBe(false);
      expect(statSync(path).mode & 0o077, name).toBe(0);
    }
  }, 30_000);
});
