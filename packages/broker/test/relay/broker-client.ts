import { DatabaseSync } from "node:sqlite";
import { liveBroker as kitLiveBroker, type LiveBroker, type StartBroker } from "@notify/test-kit/live-broker";
import { startBroker } from "../../src/broker.js";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";

export { addRelayProvider, type LiveBroker } from "@notify/test-kit/live-broker";

/**
 * The kit's live broker (@notify/test-kit/live-broker) on this package's source, so the broker's own suites test
 * src; the source's startBroker is the function the build's declarations describe.
 */
export const liveBroker = (dataDir: string): Promise<LiveBroker> =>
  kitLiveBroker(dataDir, startBroker as unknown as StartBroker);

/** The relay poll's stored state, read from the broker's SQLite file by a second connection. */
export function storedPollState(dataDir: string): { cursor: string | null; stopped: number | null } | undefined {
  const db = new DatabaseSync(`${dataDir}/${DATABASE_FILE_NAME}`, { readOnly: true });
  try {
    return db.prepare("SELECT cursor, stopped FROM relay_cursors").get() as
      | { cursor: string | null; stopped: number | null }
      | undefined;
  } finally {
    db.close();
  }
}
