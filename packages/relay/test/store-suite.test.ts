import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DAY, HOUR } from "../src/domain/clock.js";
import { ACK_REST, MAX_AGE } from "../src/domain/retention.js";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { Change, RelayStore, StoreTx } from "../src/store/types.js";
import { createPlainDevices, tempDir } from "./helpers.js";
import { sharedPostgres } from "./postgres.js";

/**
 * ONE storage suite, run against every backend (STYLE.md, from ntfy): what the domain relies on from a store.
 */
const postgres = sharedPostgres();

interface Backend {
  name: "sqlite" | "postgres";
  open(): Promise<{ store: RelayStore; cleanup(): void }>;
}

const backends: Backend[] = [
  {
    name: "sqlite",
    async open() {
      const dir = tempDir();
      return { store: new SqliteStore(join(dir.path, "relay.db")), cleanup: dir.remove };
    },
  },
  {
    name: "postgres",
    async open() {
      return { store: await PostgresStore.connect(await postgres.createDatabase()), cleanup: () => undefined };
    },
  },
];

const T0 = Date.parse("2026-03-01T00:00:00Z");

describe.each(backends.filter((backend) => postgres.backends.includes(backend.name)))("store: $name", (backend) => {
  let store: RelayStore;
  let cleanup: () => void;

  beforeEach(async () => {
    ({ store, cleanup } = await backend.open());
    await store.transaction(async (tx) => {
      await tx.createOwner("own_a", T0);
      await tx.createInstallation({ id: "ins_a", ownerId: "own_a", name: "a", tokenHash: "hash_ins_a", createdAt: T0 });
      await tx.createOwner("own_b", T0);
      await tx.createInstallation({
        id: "ins_b",
        ownerId: "own_b",
        name: null,
        tokenHash: "hash_ins_b",
        createdAt: T0,
      });
      await createPlainDevices(tx, "own_a", ["dev_1", "dev_2"], T0);
    });
  });
  afterEach(async () => {
    await store.close();
    cleanup();
  });

  const answer = (responseId: string, installationId = "ins_a", at = T0, body = `{"r":"${responseId}"}`) => ({
    installationId,
    responseId,
    deviceId: "dev_1",
    body,
    receivedAt: at,
  });
  const insert = (tx: StoreTx, responseId: string, at = T0) => tx.insertAnswer(answer(responseId, "ins_a", at));
  const ids = (rows: { body: string }[]) => rows.map((row) => (JSON.parse(row.body) as { r: string }).r);
  const all = (after: string | null = null, floor = 0) =>
    store.read((tx) => tx.answersAfter("ins_a", after, floor, 1000));

  it("looks installations and devices up by token digest; a revoked device is gone", async () => {
    expect(await store.read((tx) => tx.installationByTokenHash("hash_ins_a"))).toMatchObject({
      id: "ins_a",
      ownerId: "own_a",
    });
    expect(await store.read((tx) => tx.installationByTokenHash("nope"))).toBeUndefined();
    expect((await store.read((tx) => tx.deviceByTokenHash("hash_dev_1")))?.id).toBe("dev_1");
    expect(await store.transaction((tx) => tx.revokeDevice("dev_1", T0))).toBe(true);
    expect(await store.transaction((tx) => tx.revokeDevice("dev_1", T0))).toBe(false);
    expect(await store.read((tx) => tx.deviceByTokenHash("hash_dev_1"))).toBeUndefined();
    expect((await store.read((tx) => tx.devicesFor("own_a", "ins_a"))).map((device) => device.id)).toEqual(["dev_2"]);
    expect((await store.read((tx) => tx.listDevices())).find((device) => device.id === "dev_1")?.revokedAt).toBe(T0);
    expect((await store.read((tx) => tx.listInstallations())).map((item) => [item.id, item.devices])).toEqual([
      ["ins_a", 1],
      ["ins_b", 0],
    ]);
  });

  it("a revocation announces itself at commit (held polls end); revoking again announces nothing", async () => {
    const changes: Change[] = [];
    store.onChange((change) => changes.push(change));
    await expect(
      store.transaction(async (tx) => {
        await tx.revokeDevice("dev_2", T0);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await store.transaction((tx) => tx.revokeDevice("dev_1", T0))).toBe(true);
    expect(await store.transaction((tx) => tx.revokeDevice("dev_1", T0))).toBe(false);
    expect(changes).toEqual([{ kind: "revoked", deviceId: "dev_1" }]);
  });

  it("a pairing code is taken once and never after it expired", async () => {
    const pairing = {
      installationId: "ins_a",
      ownerId: "own_a",
      direct: false,
      purpose: "device" as const,
      expiresAt: T0 + 600_000,
    };
    await store.transaction((tx) => tx.createPairing({ ...pairing, codeHash: "c1", createdAt: T0 }));
    await store.transaction((tx) => tx.createPairing({ ...pairing, codeHash: "c2", createdAt: T0 }));
    // A code is taken only for its purpose (issue 37, item 2: a join code never pairs a phone).
    expect(await store.transaction((tx) => tx.takePairing("c1", T0, "join"))).toBeUndefined();
    expect(await store.transaction((tx) => tx.takePairing("c1", T0, "device"))).toEqual(pairing);
    expect(await store.transaction((tx) => tx.takePairing("c1", T0, "device"))).toBeUndefined();
    expect(await store.transaction((tx) => tx.takePairing("c2", T0 + 600_000, "device"))).toBeUndefined();
  });

  it("answers are unique per (installation_id, response_id); the second insert returns the first body", async () => {
    expect(await store.transaction((tx) => insert(tx, "r1"))).toEqual({ created: true });
    expect(await store.transaction((tx) => tx.insertAnswer(answer("r1", "ins_a", T0, "other")))).toEqual({
      created: false,
      existingBody: '{"r":"r1"}',
    });
    expect(await store.transaction((tx) => tx.insertAnswer(answer("r1", "ins_b")))).toEqual({ created: true });
    expect(ids(await all())).toEqual(["r1"]);
  });

  it("serves in store order after a position, from a time floor, in pages", async () => {
    await store.transaction(async (tx) => {
      await insert(tx, "old", T0 - 2 * DAY);
      for (const id of ["r1", "r2", "r3"]) await insert(tx, id);
    });
    await store.transaction((tx) => insert(tx, "r4"));
    expect(ids(await all(null, T0 - DAY))).toEqual(["r1", "r2", "r3", "r4"]);
    const [first, second] = await store.read((tx) => tx.answersAfter("ins_a", null, T0 - DAY, 2));
    expect(ids([first, second] as { body: string }[])).toEqual(["r1", "r2"]);
    expect(store.isPosition(second?.position ?? "")).toBe(true);
    expect(ids(await all(second?.position ?? null, T0 - DAY))).toEqual(["r3", "r4"]);
    expect(await store.read((tx) => tx.answersAfter("ins_b", null, 0, 10))).toEqual([]);
  });

  it("walking the feed page by page serves every row once, in order, across digit boundaries of positions", async () => {
    // Positions past 9, 99...: an ordering by their text form would put "10" before "9" (a bug this suite caught).
    // One transaction (one txid on PostgreSQL, so seq decides) and then single ones.
    const expected = Array.from({ length: 23 }, (_, index) => `r${index}`);
    await store.transaction(async (tx) => {
      for (const id of expected.slice(0, 15)) await insert(tx, id);
    });
    for (const id of expected.slice(15)) await store.transaction((tx) => insert(tx, id));
    const walked: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page: { position: string; body: string }[] = await store.read((tx) =>
        tx.answersAfter("ins_a", cursor, 0, 4),
      );
      if (page.length === 0) break;
      walked.push(...ids(page));
      cursor = page.at(-1)?.position ?? cursor;
    }
    expect(walked).toEqual(expected);
  });

  it("a transaction that throws leaves nothing behind and announces nothing", async () => {
    const changes: Change[] = [];
    store.onChange((change) => changes.push(change));
    await expect(
      store.transaction(async (tx) => {
        await insert(tx, "r1");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await all()).toEqual([]);
    expect(changes).toEqual([]);
    await store.transaction((tx) => insert(tx, "r2"));
    expect(changes).toEqual([{ kind: "answers", installationId: "ins_a" }]);
  });

  /**
   * A transaction that inserts `responseId` and then stays open: `inserted` resolves once the row is in, `release`
   * lets it commit, `committed` is the transaction's end.
   */
  function heldInsert(responseId: string) {
    const gate = Promise.withResolvers<void>();
    const inserted = Promise.withResolvers<void>();
    const committed = store.transaction(async (tx) => {
      await insert(tx, responseId);
      inserted.resolve();
      await gate.promise;
    });
    return { inserted: inserted.promise, release: () => gate.resolve(), committed };
  }

  it("reads outside the transaction never see its uncommitted rows", async () => {
    const late = heldInsert("late");
    await late.inserted;
    expect(await all()).toEqual([]);
    late.release();
    await late.committed;
    expect(ids(await all())).toEqual(["late"]);
  });

  it("a cursor never skips a row whose transaction took its position first but committed last", async () => {
    // Transaction A inserts first (takes the lower sequence value) and holds; B inserts after and commits first.
    const a = heldInsert("a-early-seq");
    await a.inserted;
    const b = store.transaction((tx) => insert(tx, "b-late-seq"));
    // PostgreSQL lets B commit now; SQLite serializes writers, so B waits for A (and cannot overtake it).
    if (backend.name === "postgres") await b;
    const firstPage = await all();
    const cursor = firstPage.at(-1)?.position ?? null;
    a.release();
    await Promise.all([a.committed, b]);
    const secondPage = await all(cursor);
    const served = [...ids(firstPage), ...ids(secondPage)];
    expect(served.sort()).toEqual(["a-early-seq", "b-late-seq"]);
    // And the full feed is in an order a cursor can walk: nothing after a position ever lands before it.
    expect(ids(await all()).sort()).toEqual(["a-early-seq", "b-late-seq"]);
  });

  it("the same cursor rule holds for answers stored by the batched write path (storeAnswer)", async () => {
    const a = heldInsert("a-early-seq");
    await a.inserted;
    const batch = Promise.all(["b1", "b2", "b3"].map((id) => store.storeAnswer(answer(id))));
    if (backend.name === "postgres") await batch;
    const firstPage = await all();
    const cursor = firstPage.at(-1)?.position ?? null;
    a.release();
    await Promise.all([a.committed, batch]);
    const served = [...ids(firstPage), ...ids(await all(cursor))];
    expect(served.sort()).toEqual(["a-early-seq", "b1", "b2", "b3"]);
  });

  it("concurrent storeAnswer calls each get their own outcome, duplicates within one batch included", async () => {
    await store.storeAnswer(answer("r0"));
    const changes: Change[] = [];
    store.onChange((change) => changes.push(change));
    const outcomes = await Promise.all([
      store.storeAnswer(answer("r1")),
      store.storeAnswer(answer("r1")),
      store.storeAnswer(answer("r1", "ins_a", T0, "different")),
      store.storeAnswer(answer("r0", "ins_a", T0, "different")),
      store.storeAnswer(answer("r2")),
      store.storeAnswer(answer("r1", "ins_b")),
    ]);
    expect(outcomes).toEqual([
      { created: true },
      { created: false, existingBody: '{"r":"r1"}' },
      { created: false, existingBody: '{"r":"r1"}' },
      { created: false, existingBody: '{"r":"r0"}' },
      { created: true },
      { created: true },
    ]);
    expect(ids(await all())).toEqual(["r0", "r1", "r2"]);
    // Every created row announced itself once (the keys of the hub).
    expect(changes.filter((change) => change.kind === "answers" && change.installationId === "ins_a")).toHaveLength(2);
  });

  it("concurrent storeEnvelope calls store every envelope for its recipients", async () => {
    const envelope = (id: string, recipients: string[]) => ({
      id,
      installationId: "ins_a",
      body: `{"e":"${id}"}`,
      createdAt: T0,
      recipients,
    });
    await Promise.all([
      store.storeEnvelope(envelope("env_1", ["dev_1", "dev_2"])),
      store.storeEnvelope(envelope("env_2", ["dev_2"])),
      store.storeEnvelope(envelope("env_3", ["dev_1"])),
    ]);
    const of = async (deviceId: string) =>
      (await store.read((tx) => tx.envelopesAfter(deviceId, null, 0, 100))).map((row) => row.envelopeId).sort();
    expect(await of("dev_1")).toEqual(["env_1", "env_3"]);
    expect(await of("dev_2")).toEqual(["env_1", "env_2"]);
  });

  describe("envelope idempotency keys (issue 31, item 8)", () => {
    const keyed = (id: string, key: string | undefined, installationId = "ins_a", recipients = ["dev_1"]) => ({
      id,
      installationId,
      body: `{"e":"${id}"}`,
      createdAt: T0,
      recipients,
      idempotencyKey: key,
    });
    const feed = async (deviceId: string) =>
      (await store.read((tx) => tx.envelopesAfter(deviceId, null, 0, 100))).map((row) => row.envelopeId);

    it("one envelope per installation and key: a repeat stores nothing and gets the first id and body", async () => {
      expect(await store.storeEnvelope(keyed("env_1", "k1"))).toEqual({ created: true });
      const changes: Change[] = [];
      store.onChange((change) => changes.push(change));
      expect(await store.storeEnvelope(keyed("env_2", "k1", "ins_a", ["dev_1", "dev_2"]))).toEqual({
        created: false,
        existingId: "env_1",
        existingBody: '{"e":"env_1"}',
      });
      expect(await store.transaction((tx) => tx.insertEnvelope(keyed("env_3", "k1")))).toMatchObject({
        created: false,
        existingId: "env_1",
      });
      // The key is the installation's own; envelopes without one never collide.
      expect(await store.storeEnvelope(keyed("env_4", "k1", "ins_b"))).toEqual({ created: true });
      expect(await store.storeEnvelope(keyed("env_5", undefined))).toEqual({ created: true });
      expect(await store.storeEnvelope(keyed("env_6", undefined))).toEqual({ created: true });
      expect(await feed("dev_1")).toEqual(["env_1", "env_4", "env_5", "env_6"]);
      expect(await feed("dev_2")).toEqual([]);
      expect(await store.read((tx) => tx.envelopeByIdempotencyKey("ins_a", "k1"))).toEqual({
        id: "env_1",
        body: '{"e":"env_1"}',
      });
      expect(await store.read((tx) => tx.envelopeByIdempotencyKey("ins_a", "k2"))).toBeUndefined();
      // Only what was stored announced itself.
      expect(changes).toEqual([
        { kind: "envelopes", deviceId: "dev_1" },
        { kind: "envelopes", deviceId: "dev_1" },
        { kind: "envelopes", deviceId: "dev_1" },
      ]);
    });

    it("concurrent posts of one key (one batch on PostgreSQL, one commit on SQLite) store it once", async () => {
      const outcomes = await Promise.all([
        store.storeEnvelope(keyed("env_a", "same")),
        store.storeEnvelope(keyed("env_b", "same")),
        store.storeEnvelope(keyed("env_c", "other")),
        store.storeEnvelope(keyed("env_d", "same")),
        store.storeEnvelope(keyed("env_e", undefined)),
      ]);
      expect(outcomes).toEqual([
        { created: true },
        { created: false, existingId: "env_a", existingBody: '{"e":"env_a"}' },
        { created: true },
        { created: false, existingId: "env_a", existingBody: '{"e":"env_a"}' },
        { created: true },
      ]);
      expect((await feed("dev_1")).sort()).toEqual(["env_a", "env_c", "env_e"]);
    });

    it("a key lives as long as its envelope: once pruned, the key stores a new one", async () => {
      await store.storeEnvelope(keyed("env_old", "k1"));
      const now = T0 + MAX_AGE + 1;
      const pruned = await store.transaction((tx) =>
        tx.prune({ now, ageCutoff: now - MAX_AGE, ackCutoff: now - ACK_REST, batch: 100 }),
      );
      expect(pruned.envelopes).toBe(1);
      expect(await store.storeEnvelope({ ...keyed("env_new", "k1"), createdAt: now })).toEqual({ created: true });
    });
  });

  it("acknowledging marks answers once; later acks do not move the mark", async () => {
    await store.transaction((tx) => insert(tx, "r1"));
    const [row] = await all();
    await store.transaction((tx) => tx.ackAnswers("ins_a", row?.position ?? "", T0 + HOUR));
    await store.transaction((tx) => tx.ackAnswers("ins_a", row?.position ?? "", T0 + 10 * HOUR));
    // Pruned 24 h after the first ack, not the second.
    const pruned = await store.transaction((tx) =>
      tx.prune({
        now: T0 + HOUR + ACK_REST + 1,
        ageCutoff: T0 + HOUR + ACK_REST + 1 - MAX_AGE,
        ackCutoff: T0 + HOUR + 1,
        batch: 100,
      }),
    );
    expect(pruned.answers).toBe(1);
  });

  it("retention: 7 days, or 24 hours after the acknowledged cursor passed it, whichever is first", async () => {
    await store.transaction(async (tx) => {
      for (const id of ["acked", "unacked", "young"]) await insert(tx, id, id === "young" ? T0 + 6 * DAY : T0);
    });
    const [acked] = await all();
    await store.transaction((tx) => tx.ackAnswers("ins_a", acked?.position ?? "", T0 + HOUR));
    const pruneAt = (now: number) =>
      store.transaction((tx) => tx.prune({ now, ageCutoff: now - MAX_AGE, ackCutoff: now - ACK_REST, batch: 100 }));
    expect((await pruneAt(T0 + HOUR + ACK_REST - 1)).answers).toBe(0);
    expect((await pruneAt(T0 + HOUR + ACK_REST + 1)).answers).toBe(1);
    expect(ids(await all())).toEqual(["unacked", "young"]);
    expect((await pruneAt(T0 + MAX_AGE + 1)).answers).toBe(1);
    expect(ids(await all())).toEqual(["young"]);
  });

  it("pruning goes in bounded batches", async () => {
    await store.transaction(async (tx) => {
      for (let index = 0; index < 25; index += 1) await insert(tx, `r${index}`);
    });
    const now = T0 + MAX_AGE + 1;
    const batch = () =>
      store.transaction((tx) => tx.prune({ now, ageCutoff: now - MAX_AGE, ackCutoff: now - ACK_REST, batch: 10 }));
    expect((await batch()).answers).toBe(10);
    expect((await batch()).answers).toBe(10);
    expect((await batch()).answers).toBe(5);
  });

  it("envelopes: per recipient feed, acknowledged per device, pruned once every recipient acknowledged", async () => {
    await store.transaction((tx) =>
      tx.insertEnvelope({
        id: "env_1",
        installationId: "ins_a",
        body: "{}",
        createdAt: T0,
        recipients: ["dev_1", "dev_2"],
      }),
    );
    await store.transaction((tx) =>
      tx.insertEnvelope({ id: "env_2", installationId: "ins_a", body: "{}", createdAt: T0, recipients: ["dev_2"] }),
    );
    const one = await store.read((tx) => tx.envelopesAfter("dev_1", null, 0, 10));
    const two = await store.read((tx) => tx.envelopesAfter("dev_2", null, 0, 10));
    expect(one.map((row) => row.envelopeId)).toEqual(["env_1"]);
    expect(two.map((row) => row.envelopeId)).toEqual(["env_1", "env_2"]);
    const pruneAt = (now: number) =>
      store.transaction((tx) => tx.prune({ now, ageCutoff: now - MAX_AGE, ackCutoff: now - ACK_REST, batch: 100 }));
    await store.transaction((tx) => tx.ackEnvelopes("dev_1", one[0]?.position ?? "", T0));
    expect((await pruneAt(T0 + ACK_REST + 1)).envelopes).toBe(0);
    await store.transaction((tx) => tx.ackEnvelopes("dev_2", two[0]?.position ?? "", T0));
    expect((await pruneAt(T0 + ACK_REST + 1)).envelopes).toBe(1);
    expect((await store.read((tx) => tx.envelopesAfter("dev_2", null, 0, 10))).map((row) => row.envelopeId)).toEqual([
      "env_2",
    ]);
    expect((await pruneAt(T0 + MAX_AGE + 1)).envelopes).toBe(1);
  });

  describe('receipts (issue 37 item 3, docs/relay.md "Receipts")', () => {
    const envelope = (id: string, recipients: string[], installationId = "ins_a", idempotencyKey?: string) =>
      store.transaction((tx) =>
        tx.insertEnvelope({ id, installationId, body: "{}", createdAt: T0, recipients, idempotencyKey }),
      );
    const feed = (installationId = "ins_a", after: string | null = null) =>
      store.read((tx) => tx.receiptsAfter(installationId, after, 0, 100));
    const hops = (rows: { envelopeId: string; deviceId: string; state: string; at: number }[]) =>
      rows.map((row) => `${row.envelopeId}/${row.deviceId}/${row.state}@${row.at - T0}`);

    it("acknowledging records fetched once per envelope and device, announced to the installation", async () => {
      await store.transaction(async (tx) => {
        await tx.createDevice({
          id: "dev_b",
          ownerId: "own_b",
          directInstallationId: null,
          name: "b",
          publicKey: "{}",
          tokenHash: "hash_dev_b",
          pushSubscription: null,
          createdAt: T0,
        });
      });
      await envelope("env_1", ["dev_1", "dev_2"], "ins_a", "obx_1.k");
      await envelope("env_2", ["dev_1"]);
      await envelope("env_b", ["dev_b"], "ins_b");
      const changes: Change[] = [];
      store.onChange((change) => changes.push(change));
      const rows = await store.read((tx) => tx.envelopesAfter("dev_1", null, 0, 10));
      await store.transaction((tx) => tx.ackEnvelopes("dev_1", rows[0]?.position ?? "", T0 + 5));
      await store.transaction((tx) => tx.ackEnvelopes("dev_1", rows[1]?.position ?? "", T0 + 9));
      // Acknowledging again moves nothing and records nothing.
      await store.transaction((tx) => tx.ackEnvelopes("dev_1", rows[1]?.position ?? "", T0 + 20));
      const page = await feed();
      expect(hops(page)).toEqual(["env_1/dev_1/fetched@5", "env_2/dev_1/fetched@9"]);
      expect(page[0]?.idempotencyKey).toBe("obx_1.k");
      expect(page[1]?.idempotencyKey).toBeNull();
      expect(changes).toEqual([
        { kind: "receipts", installationId: "ins_a" },
        { kind: "receipts", installationId: "ins_a" },
      ]);
      expect(await feed("ins_b")).toEqual([]);
      // Positions order the feed: after the first row comes the second only.
      expect(hops(await feed("ins_a", page[0]?.position ?? null))).toEqual(["env_2/dev_1/fetched@9"]);
    });

    it("a device's report: only for an envelope sealed to it, fetched with it, once per state", async () => {
      await envelope("env_1", ["dev_1"]);
      expect(await store.transaction((tx) => tx.recordReceipt("env_1", "dev_2", "shown", T0))).toEqual({
        outcome: "unknown",
      });
      expect(await store.transaction((tx) => tx.recordReceipt("env_x", "dev_1", "shown", T0))).toEqual({
        outcome: "unknown",
      });
      expect(await store.transaction((tx) => tx.recordReceipt("env_1", "dev_1", "shown", T0 + 1))).toEqual({
        outcome: "recorded",
        at: T0 + 1,
      });
      expect(await store.transaction((tx) => tx.recordReceipt("env_1", "dev_1", "shown", T0 + 2))).toEqual({
        outcome: "repeat",
        at: T0 + 1,
      });
      expect(await store.transaction((tx) => tx.recordReceipt("env_1", "dev_1", "opened", T0 + 3))).toMatchObject({
        outcome: "recorded",
      });
      // The cursor passing it later adds no second fetched.
      const rows = await store.read((tx) => tx.envelopesAfter("dev_1", null, 0, 10));
      await store.transaction((tx) => tx.ackEnvelopes("dev_1", rows[0]?.position ?? "", T0 + 4));
      expect(hops(await feed())).toEqual(["env_1/dev_1/fetched@1", "env_1/dev_1/shown@1", "env_1/dev_1/opened@3"]);
    });

    it("receipts go with their envelope: pruned with it, deleted with its installation", async () => {
      await envelope("env_1", ["dev_1"]);
      await store.transaction((tx) => tx.recordReceipt("env_1", "dev_1", "shown", T0));
      expect(await feed()).toHaveLength(2);
      const now = T0 + MAX_AGE + 1;
      await store.transaction((tx) =>
        tx.prune({ now, ageCutoff: now - MAX_AGE, ackCutoff: now - ACK_REST, batch: 100 }),
      );
      expect(await feed()).toEqual([]);
      await envelope("env_2", ["dev_1"]);
      await store.transaction((tx) => tx.recordReceipt("env_2", "dev_1", "opened", T0));
      await store.transaction((tx) => tx.deleteInstallation("ins_a"));
      expect(await feed()).toEqual([]);
    });
  });

  it("push subscriptions: set, and dropped only if still the failing one", async () => {
    await store.transaction((tx) => tx.setPushSubscription("dev_1", "sub-a"));
    await store.transaction((tx) => tx.dropPushSubscription("dev_1", "sub-old"));
    expect((await store.read((tx) => tx.deviceById("dev_1")))?.pushSubscription).toBe("sub-a");
    await store.transaction((tx) => tx.dropPushSubscription("dev_1", "sub-a"));
    expect((await store.read((tx) => tx.deviceById("dev_1")))?.pushSubscription).toBeNull();
  });

  it("units of work started together commit independently: one that throws rolls back alone", async () => {
    // SQLite groups the units of one event-loop turn into one commit, each in its own savepoint.
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        store.transaction(async (tx) => {
          await insert(tx, `g${index}`);
          if (index === 4) throw new Error("unit 4 fails");
          return index;
        }),
      ),
    );
    expect(results.filter((result) => result.status === "rejected")).toHaveLength(1);
    expect(ids(await all()).sort()).toEqual(["g0", "g1", "g2", "g3", "g5", "g6", "g7", "g8", "g9"]);
  });

  it("concurrent inserts of one response_id store one answer", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => store.transaction((tx) => insert(tx, "same"))));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(ids(await all())).toEqual(["same"]);
  });

  describe("deleting an installation (issue 32, item 5: notify relay unenroll)", () => {
    const device = (id: string, ownerId: string | null, directInstallationId: string | null) => ({
      id,
      ownerId,
      directInstallationId,
      name: id,
      publicKey: "{}",
      tokenHash: `hash_${id}`,
      pushSubscription: null,
      createdAt: T0,
    });
    const envelope = (id: string, installationId: string, recipients: string[]) => ({
      id,
      installationId,
      body: "{}",
      createdAt: T0,
      recipients,
    });

    it("deletes it with its devices, answers, envelopes, pairings and owner; announces the devices; others stay", async () => {
      await store.transaction(async (tx) => {
        await tx.createDevice(device("dev_b", "own_b", null));
        await tx.insertAnswer(answer("r1"));
        await tx.insertAnswer(answer("r2"));
        await tx.insertAnswer(answer("rb", "ins_b"));
        await tx.insertEnvelope(envelope("env_a", "ins_a", ["dev_1", "dev_2"]));
        await tx.insertEnvelope(envelope("env_b", "ins_b", ["dev_b"]));
        const pairing = {
          ownerId: "own_a",
          direct: false,
          purpose: "device" as const,
          expiresAt: T0 + 600_000,
          createdAt: T0,
        };
        await tx.createPairing({ ...pairing, installationId: "ins_a", codeHash: "code_a" });
        await tx.createPairing({ ...pairing, installationId: "ins_b", ownerId: "own_b", codeHash: "code_b" });
      });
      const changes: Change[] = [];
      store.onChange((change) => changes.push(change));

      const deleted = await store.transaction((tx) => tx.deleteInstallation("ins_a"));
      expect(deleted).toEqual({
        deviceIds: expect.arrayContaining(["dev_1", "dev_2"]),
        answers: 2,
        envelopes: 1,
        pairings: 1,
        owner: true,
      });
      expect(deleted?.deviceIds).toHaveLength(2);
      expect(changes).toEqual(
        expect.arrayContaining([
          { kind: "revoked", deviceId: "dev_1" },
          { kind: "revoked", deviceId: "dev_2" },
        ]),
      );
      expect((await store.read((tx) => tx.listInstallations())).map((item) => item.id)).toEqual(["ins_b"]);
      expect((await store.read((tx) => tx.listDevices())).map((item) => item.id)).toEqual(["dev_b"]);
      expect(await store.read((tx) => tx.installationByTokenHash("hash_ins_a"))).toBeUndefined();
      expect(await store.read((tx) => tx.deviceByTokenHash("hash_dev_1"))).toBeUndefined();
      expect(await all()).toEqual([]);
      expect(await store.read((tx) => tx.envelopesAfter("dev_1", null, 0, 10))).toEqual([]);
      expect(await store.transaction((tx) => tx.takePairing("code_a", T0, "device"))).toBeUndefined();
      // The other installation keeps everything of its own.
      expect(ids(await store.read((tx) => tx.answersAfter("ins_b", null, 0, 10)))).toEqual(["rb"]);
      expect((await store.read((tx) => tx.envelopesAfter("dev_b", null, 0, 10))).map((row) => row.envelopeId)).toEqual([
        "env_b",
      ]);
      expect(await store.transaction((tx) => tx.takePairing("code_b", T0, "device"))).toMatchObject({
        installationId: "ins_b",
      });
      // The owner row went too: an owner id can be created again.
      await store.transaction((tx) => tx.createOwner("own_a", T0));
      // Deleting it again finds nothing and announces nothing.
      changes.length = 0;
      expect(await store.transaction((tx) => tx.deleteInstallation("ins_a"))).toBeUndefined();
      expect(changes).toEqual([]);
    });

    it("an owner shared with another installation keeps its phones; only the leaving one's direct link goes", async () => {
      await store.transaction(async (tx) => {
        await tx.createInstallation({
          id: "ins_c",
          ownerId: "own_a",
          name: "c",
          tokenHash: "hash_ins_c",
          createdAt: T0,
        });
        await tx.createDevice(device("dev_direct", null, "ins_c"));
        await tx.insertEnvelope(envelope("env_c", "ins_c", ["dev_1", "dev_direct"]));
        await tx.insertEnvelope(envelope("env_a", "ins_a", ["dev_1"]));
      });
      const deleted = await store.transaction((tx) => tx.deleteInstallation("ins_c"));
      expect(deleted).toEqual({ deviceIds: ["dev_direct"], answers: 0, envelopes: 1, pairings: 0, owner: false });
      expect((await store.read((tx) => tx.devicesFor("own_a", "ins_a"))).map((item) => item.id)).toEqual([
        "dev_1",
        "dev_2",
      ]);
      expect((await store.read((tx) => tx.envelopesAfter("dev_1", null, 0, 10))).map((row) => row.envelopeId)).toEqual([
        "env_a",
      ]);
      expect((await store.read((tx) => tx.listInstallations())).map((item) => item.id)).toEqual(["ins_a", "ins_b"]);
    });

    it("a delete that rolls back leaves everything and announces nothing", async () => {
      const changes: Change[] = [];
      store.onChange((change) => changes.push(change));
      await expect(
        store.transaction(async (tx) => {
          await tx.deleteInstallation("ins_a");
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(changes).toEqual([]);
      expect((await store.read((tx) => tx.devicesFor("own_a", "ins_a"))).map((item) => item.id)).toEqual([
        "dev_1",
        "dev_2",
      ]);
    });
  });
});
