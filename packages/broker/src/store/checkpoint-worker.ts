import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new DatabaseSync(path);
db.exec("PRAGMA busy_timeout = 1000");

/** PASSIVE never waits for the writer; TRUNCATE once the WAL has grown keeps the file from staying large. */
function checkpoint(): void {
  try {
    const result = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as
      | { log: number; checkpointed: number }
      | undefined;
    if (result && result.log > 16_384 && result.checkpointed === result.log) db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // busy or closing: next tick
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort?.on("message", (message) => {
  if (message === "stop") {
    clearInterval(timer);
    checkpoint();
    db.close();
    process.exit(0);
  }
});
