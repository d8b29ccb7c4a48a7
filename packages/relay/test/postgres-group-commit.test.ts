import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import type { NewAnswer } from "../src/store/types.js";
import { createPlainDevices } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";

/**
 * Issue 27: PostgreSQL group commit. Answers arriving together share one statement and one commit, each still
 * gets its own outcome, and two processes storing the same keys in opposite orders neither deadlock nor store a key
 * twice.
 */
const hasPostgres = postgresAvailable();
const T0 = Date.parse("2026-03-01T00:00:00Z");

describe.runIf(hasPostgres)("PostgreSQL group commit", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => server?.stop());

  const open = async (url: string) => {
    const store = await PostgresStore.connect(url);
    await store.transaction(async (tx) => {
      if (await tx.installationById("ins_a")) return;
      await tx.createOwner("own_a", T0);
      await tx.createInstallation({ id: "ins_a", ownerId: "own_a", name: null, tokenHash: "h", createdAt: T0 });
    });
    return store;
  };
  const answer = (responseId: string, body = `{"r":"${responseId}"}`): NewAnswer => ({
    installationId: "ins_a",
    responseId,
    deviceId: "dev_1",
    body,
    receivedAt: T0,
  });

  it("answers posted in one event-loop turn share one batch (one statement, one commit)", async () => {
    const store = await open(await server.createDatabase());
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, index) => store.storeAnswer(answer(`r${index}`))),
      );
      expect(outcomes.every((outcome) => outcome.created)).toBe(true);
      expect(store.answerBatches?.stats).toEqual({ batches: 1, items: 200 });
      const rows = await store.read((tx) => tx.answersAfter("ins_a", null, 0, 1000));
      expect(rows).toHaveLength(200);
      // One transaction: every row has the same txid, so the positions differ only by sequence.
      expect(new Set(rows.map((row) => row.position.split(".")[0])).size).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("two processes storing overlapping keys in opposite orders: no deadlock, every key stored once", async () => {
    const url = await server.createDatabase();
    const [a, b] = [await open(url), await open(url)];
    try {
      const keys = Array.from({ length: 300 }, (_, index) => `k${index}`);
      for (let round = 0; round < 5; round += 1) {
        const prefix = `round${round}-`;
        const [fromA, fromB] = await Promise.all([
          Promise.all(keys.map((key) => a.storeAnswer(answer(prefix + key)))),
          Promise.all([...keys].reverse().map((key) => b.storeAnswer(answer(prefix + key)))),
        ]);
        const createdA = fromA.filter((outcome) => outcome.created).length;
        const createdB = fromB.filter((outcome) => outcome.created).length;
        expect(createdA + createdB).toBe(keys.length);
        // The loser of each key got the winner's (identical) body: a duplicate, not a conflict.
        for (const outcome of [...fromA, ...fromB]) {
          if (!outcome.created) expect(outcome.existingBody).toMatch(/^\{"r":"round\d-k\d+"\}$/);
        }
      }
      const rows = await a.read((tx) => tx.answersAfter("ins_a", null, 0, 10_000));
      expect(rows).toHaveLength(5 * keys.length);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a batch the database refuses fails only the request that caused it", async () => {
    const store = await open(await server.createDatabase());
    try {
      const outcomes = await Promise.allSettled([
        store.storeAnswer(answer("good-1")),
        // PostgreSQL text cannot hold NUL: the edge refuses it earlier, here it stands for any row the server refuses.
        store.storeAnswer(answer("bad", '{"r":"\u0000"}')),
        store.storeAnswer(answer("good-2")),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const rows = await store.read((tx) => tx.answersAfter("ins_a", null, 0, 10));
      expect(rows.map((row) => JSON.parse(row.body).r).sort()).toEqual(["good-1", "good-2"]);
    } finally {
      await store.close();
    }
  });

  it("token lookups of one event-loop turn share one statement; each gets its own device, or none", async () => {
    const store = await open(await server.createDatabase());
    try {
      await store.transaction(async (tx) => {
        await createPlainDevices(tx, "own_a", ["dev_1", "dev_2", "dev_3"], T0);
        await tx.revokeDevice("dev_3", T0);
      });
      const devices = store.tokenLookups.devices.stats;
      const before = { ...devices };
      const hashes = ["hash_dev_1", "hash_dev_2", "hash_dev_1", "hash_dev_3", "unknown"];
      const found = await Promise.all(hashes.map((hash) => store.read((tx) => tx.deviceByTokenHash(hash))));
      expect(found.map((device) => device?.id)).toEqual(["dev_1", "dev_2", "dev_1", undefined, undefined]);
      expect(found[1]).toMatchObject({ ownerId: "own_a", name: "dev_2", publicKey: "{}", createdAt: T0 });
      expect({ batches: devices.batches - before.batches, items: devices.items - before.items }).toEqual({
        batches: 1,
        items: 5,
      });
      const installations = await Promise.all(
        ["h", "unknown", "h"].map((hash) => store.read((tx) => tx.installationByTokenHash(hash))),
      );
      expect(installations.map((installation) => installation?.id)).toEqual(["ins_a", undefined, "ins_a"]);
      expect(store.tokenLookups.installations.stats).toEqual({ batches: 1, items: 3 });
      // A token revoked before its lookup is asked for is refused, grouped or not.
      await store.transaction((tx) => tx.revokeDevice("dev_2", T0 + 1));
      const [revoked, still] = await Promise.all(
        ["hash_dev_2", "hash_dev_1"].map((hash) => store.read((tx) => tx.deviceByTokenHash(hash))),
      );
      expect([revoked?.id, still?.id]).toEqual([undefined, "dev_1"]);
      // Inside a transaction the lookup is the transaction's own, not grouped.
      const inTx = await store.transaction((tx) => tx.deviceByTokenHash("hash_dev_1"));
      expect(inTx?.id).toBe("dev_1");
      expect(devices.batches - before.batches).toBe(2);
    } finally {
      await store.close();
    }
  });
});
