import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { createPlainDevices, tempDir } from "./helpers.js";

/**
 * Issue 33: a SQLite relay looks bearer tokens up on its writer connection (its page cache survives its own
 * commits). Revocation must still stop a token at once, also when another process (the `notify-relay` CLI) revokes
 * it, and a lookup must see every committed device.
 */
const T0 = Date.parse("2026-03-01T00:00:00Z");

describe("SQLite token lookups", () => {
  it("see committed devices and revocations by this store and by another connection, at once", async () => {
    const dir = tempDir();
    const path = join(dir.path, "relay.db");
    const relay = new SqliteStore(path);
    const cli = new SqliteStore(path);
    try {
      await relay.transaction(async (tx) => {
        await tx.createOwner("own_a", T0);
        await tx.createInstallation({
          id: "ins_a",
          ownerId: "own_a",
          name: null,
          tokenHash: "hash_ins",
          createdAt: T0,
        });
        await createPlainDevices(tx, "own_a", ["dev_1", "dev_2"], T0);
      });
      const lookup = (hash: string) => relay.read((tx) => tx.deviceByTokenHash(hash));
      expect((await lookup("hash_dev_1"))?.id).toBe("dev_1");
      expect((await relay.read((tx) => tx.installationByTokenHash("hash_ins")))?.id).toBe("ins_a");
      // Revoked by the relay itself.
      await relay.transaction((tx) => tx.revokeDevice("dev_1", T0 + 1));
      expect(await lookup("hash_dev_1")).toBeUndefined();
      // Revoked by another connection to the same file, after the relay's writer has read (and cached) the row.
      expect((await lookup("hash_dev_2"))?.id).toBe("dev_2");
      await cli.transaction((tx) => tx.revokeDevice("dev_2", T0 + 2));
      expect(await lookup("hash_dev_2")).toBeUndefined();
      // A device another connection adds is found at once.
      await cli.transaction((tx) =>
        tx.createDevice({
          id: "dev_3",
          ownerId: "own_a",
          directInstallationId: null,
          name: "dev_3",
          publicKey: "{}",
          tokenHash: "hash_dev_3",
          pushSubscription: null,
          createdAt: T0 + 3,
        }),
      );
      expect((await lookup("hash_dev_3"))?.id).toBe("dev_3");
    } finally {
      await Promise.all([relay.close(), cli.close()]);
      dir.remove();
    }
  });
});
