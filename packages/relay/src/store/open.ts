import { join } from "node:path";
import type { RelayLogger } from "../log.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";
import type { RelayStore } from "./types.js";

/** SQLite in the data dir by default; PostgreSQL when a database URL is given. */
export async function openStore(
  options: { dataDir: string; databaseUrl?: string | undefined; groupCommit?: boolean },
  logger?: RelayLogger,
): Promise<RelayStore> {
  if (options.databaseUrl) {
    const { PostgresStore } = await import("./postgres/postgres-store.js");
    return PostgresStore.connect(options.databaseUrl, {
      ...(logger ? { logger } : {}),
      ...(options.groupCommit === false ? { groupCommit: false as const } : {}),
    });
  }
  return new SqliteStore(join(options.dataDir, "relay.db"));
}
