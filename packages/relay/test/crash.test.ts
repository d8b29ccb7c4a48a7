import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, x25519Jwk } from "./helpers.js";
import { sharedPostgres } from "./postgres.js";
import { call, type RelayProcess, spawnRelay } from "./processes.js";

/**
 * Issue 13: SIGKILL of a relay process during a burst of answers; every 201 is found afterwards. Issue 27: 64
 * concurrent posters, so on PostgreSQL the answers travel in batches (group commit) when the process dies.
 */
const postgres = sharedPostgres();

describe.each(postgres.backends)("SIGKILL during a burst (%s)", (backend) => {
  it("every answer that got 201 is served after a restart", async () => {
    const dir = tempDir();
    const databaseUrl = backend === "postgres" ? await postgres.createDatabase() : undefined;
    const options = { dataDir: dir.path, ...(databaseUrl ? { databaseUrl } : {}) };
    let relay: RelayProcess = await spawnRelay(options);
    try {
      const token = readFileSync(join(dir.path, "enrollment-token"), "utf8").trim();
      const installation = (await call(relay.url, "POST", "/v1/installations", token, {})).json;
      const { code } = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
      const phone = (
        await call(relay.url, "POST", "/v1/pairings/claim", undefined, {
          code,
          device_name: "p",
          public_key: x25519Jwk(),
        })
      ).json;

      const accepted: string[] = [];
      let attempted = 0;
      let killed: Promise<void> | undefined;
      let metrics = "";
      let dying = false;
      const url = relay.url;
      const workers = Array.from({ length: 64 }, async (_, worker) => {
        for (let index = 0; ; index += 1) {
          if (dying) return;
          attempted += 1;
          const responseId = `k${worker}-${index}`;
          try {
            const reply = await call(url, "POST", "/v1/interaction-responses", phone.token, {
              contract_version: "1",
              response_id: responseId,
              interaction_id: "i",
              request_digest: "d",
              nonce: "n",
              choice_id: "allow",
              installation_id: installation.installation_id,
              device_id: phone.device_id,
            });
            if (reply.status === 201) accepted.push(responseId);
          } catch {
            return; // the connection died with the process: that answer was never acknowledged
          }
          // Kill in the middle of the burst, with requests in flight (having read how the writes were batched).
          if (accepted.length >= 400 && !killed) {
            killed = (async () => {
              metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
              dying = true;
              await relay.kill();
            })();
          }
        }
      });
      await Promise.all(workers);
      await killed;
      expect(relay.child.signalCode).toBe("SIGKILL");
      expect(accepted.length).toBeGreaterThanOrEqual(400);
      expect(attempted).toBeGreaterThan(accepted.length);
      if (backend === "postgres") {
        // Group commit was at work: more answers than batches (statements, each one commit).
        const count = (name: string) =>
          Number(
            new RegExp(`count="${name}",kind="answers"} (\\d+)|kind="answers",count="${name}"} (\\d+)`)
              .exec(metrics)
              ?.slice(1)
              .find(Boolean),
          );
        expect(count("writes")).toBeGreaterThan(count("batches"));
      }

      relay = await spawnRelay(options);
      const served = new Set<string>();
      let cursor = "";
      for (;;) {
        const page = await call(
          relay.url,
          "GET",
          `/v1/interaction-responses?since=${encodeURIComponent(cursor)}`,
          installation.token,
        );
        expect(page.status).toBe(200);
        if (page.json.responses.length === 0) break;
        for (const row of page.json.responses) served.add(row.response_id);
        cursor = page.json.next_cursor;
      }
      const missing = accepted.filter((id) => !served.has(id));
      expect(missing).toEqual([]);
    } finally {
      await relay.stop();
      dir.remove();
    }
  }, 60_000);
});
