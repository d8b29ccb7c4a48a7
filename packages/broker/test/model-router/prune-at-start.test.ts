import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrateRouterDatabase } from "@notify/router";
import { describe, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { writeConfigFile } from "../../src/config/config-file.js";
import { tempDir } from "../helpers.js";

describe("router ledger retention (docs/router.md, 'Ledger': pruned at broker start and once a day)", () => {
  it("a broker start drops ledger rows older than RouterLedgerRetentionDays and keeps newer ones", async () => {
    const dataDir = tempDir();
    writeConfigFile(dataDir, { authToken: "prune-test-token-123456", RouterLedgerRetentionDays: 7 });
    const db = new DatabaseSync(join(dataDir, "router.db"));
    migrateRouterDatabase(db);
    const insert = db.prepare(
      "INSERT INTO requests (id, started_at, started_ms, inbound_wire, stream) VALUES (?, ?, ?, 'chat', 0)",
    );
    const now = Date.now();
    for (const [id, ageDays] of [
      ["ancient", 8],
      ["recent", 6],
    ] as const) {
      const started = now - ageDays * 86_400_000;
      insert.run(id, new Date(started).toISOString(), started);
    }
    db.close();
    const broker = await startBroker({ dataDir, port: 0, env: {} });
    try {
      const response = await fetch(`${broker.url}/ui/api/router/activity`, {
        headers: { authorization: `Bearer ${broker.settings.authToken}` },
      });
      const rows = (await response.json()) as { id: string }[];
      expect(rows.map((row) => row.id)).toEqual(["recent"]);
    } finally {
      await broker.close();
    }
  });
});
