import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { SQL as PG_SQL } from "../src/store/postgres/queries.js";
import { SQL as SQLITE_SQL } from "../src/store/sqlite/queries.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { tempDir } from "./helpers.js";
import { sharedPostgres } from "./postgres.js";

// The recipients of every envelope and GET /v1/devices read "the owner's devices or this installation's direct
// ones". Without an index on direct_installation_id that OR is a scan of every device: with 9,000 phones it was the
// largest single cost in a profile of bench:relay-scale (issue 27). Schema migration 2 adds the index.

async function seed(store: SqliteStore | PostgresStore): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.createOwner("own_a", 1);
    await tx.createInstallation({ id: "ins_a", ownerId: "own_a", name: "a", tokenHash: "hash_a", createdAt: 1 });
    await tx.createDevice({
      id: "dev_owned",
      ownerId: "own_a",
      directInstallationId: null,
      name: "owned",
      publicKey: "{}",
      tokenHash: "hash_owned",
      pushSubscription: null,
      createdAt: 2,
    });
    await tx.createDevice({
      id: "dev_direct",
      ownerId: null,
      directInstallationId: "ins_a",
      name: "direct",
      publicKey: "{}",
      tokenHash: "hash_direct",
      pushSubscription: null,
      createdAt: 3,
    });
  });
}

describe("devices of an installation: found by index (relay schema 2)", () => {
  it("SQLite: the query searches both indexes, and a version 1 database gains the index keeping its rows", async () => {
    const dir = tempDir();
    const file = join(dir.path, "relay.db");
    try {
      const store = new SqliteStore(file);
      await seed(store);
      await store.close();

      const db = new DatabaseSync(file);
      const plan = () =>
        (db.prepare(`EXPLAIN QUERY PLAN ${SQLITE_SQL.devicesFor}`).all("own_a", "ins_a") as { detail: string }[])
          .map((row) => row.detail)
          .join("; ");
      expect(plan()).toContain("devices_by_direct_installation");
      expect(plan()).not.toMatch(/SCAN devices/);
      expect(db.prepare("PRAGMA user_version").get()).toEqual({ user_version: 5 });
      // Back to what a relay of schema 1 left behind (schema 3 added the envelopes' idempotency keys, 5 receipts).
      db.exec(`DROP TABLE receipts; DROP INDEX devices_by_direct_installation; DROP INDEX envelopes_by_idempotency_key;
        ALTER TABLE envelopes DROP COLUMN idempotency_key; ALTER TABLE pairings DROP COLUMN purpose;
        PRAGMA user_version = 1`);
      expect(plan()).toMatch(/SCAN devices/);
      db.close();

      const upgraded = new SqliteStore(file);
      const devices = await upgraded.read((tx) => tx.devicesFor("own_b", "ins_a"));
      expect(devices.map((device) => device.id)).toEqual(["dev_direct"]);
      await upgraded.close();
      const check = new DatabaseSync(file, { readOnly: true });
      expect(check.prepare("PRAGMA user_version").get()).toEqual({ user_version: 5 });
      for (const index of ["devices_by_direct_installation", "envelopes_by_idempotency_key"]) {
        expect(check.prepare("SELECT name FROM sqlite_master WHERE name = ?").get(index)).toBeDefined();
      }
      check.close();
    } finally {
      dir.remove();
    }
  });

  const postgres = sharedPostgres();

  it.runIf(postgres.available)("PostgreSQL: the plan uses the index where a scan is not forced", async () => {
    const url = await postgres.createDatabase();
    const store = await PostgresStore.connect(url);
    try {
      await seed(store);
      const devices = await store.read((tx) => tx.devicesFor("own_b", "ins_a"));
      expect(devices.map((device) => device.id)).toEqual(["dev_direct"]);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // Two rows: the planner would scan them whatever the indexes; with scans priced out it shows what it can use.
        await client.query("SET enable_seqscan = off");
        const { rows } = await client.query(`EXPLAIN ${PG_SQL.devicesFor}`, ["own_a", "ins_a"]);
        const plan = rows.map((row: Record<string, string>) => Object.values(row)[0]).join("\n");
        expect(plan).toContain("devices_by_direct_installation");
        expect(plan).not.toContain("Seq Scan");
        const { rows: versions } = await client.query("SELECT max(version) AS version FROM relay_schema");
        expect(versions[0].version).toBe(5);
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });
});
