import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

/** Messages from the main thread: start or stop checkpointing a database file, or end the thread. */
export type CheckpointMessage = { add: string } | { remove: string } | "stop";

const { intervalMs } = workerData as { intervalMs: number };
/** One connection per database file this thread checkpoints. */
const databases = new Map<string, DatabaseSync>();

/** PASSIVE never waits for the writer; TRUNCATE once the WAL has grown keeps the file from staying large. */
function checkpoint(db: DatabaseSync): void {
  try {
    const result = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as
      | { log: number; checkpointed: number }
      | undefined;
    if (result && result.log > 16_384 && result.checkpointed === result.log) db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // busy or closing: next tick
  }
}

function close(path: string): void {
  const db = databases.get(path);
  if (!db) return;
  databases.delete(path);
  checkpoint(db);
  db.close();
}

const timer = setInterval(() => {
  for (const db of databases.values()) checkpoint(db);
}, intervalMs);

parentPort?.on("message", (message: CheckpointMessage) => {
  if (message === "stop") {
    clearInterval(timer);
    for (const path of [...databases.keys()]) close(path);
    process.exit(0);
  }
  if ("add" in message && !databases.has(message.add)) {
    const db = new DatabaseSync(message.add);
    db.exec("PRAGMA busy_timeout = 1000");
    databases.set(message.add, db);
  }
  if ("remove" in message) close(message.remove);
});
