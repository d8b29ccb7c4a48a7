import type { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";

/**
 * Runs WAL checkpoints on a worker thread with its own connection, so the fsync of the database file never stalls
 * a request on the main thread. The main connection turns automatic checkpoints off while this runs.
 */
export class Checkpointer {
  private readonly worker: Worker;

  constructor(path: string, intervalMs = 1000) {
    this.worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), {
      workerData: { path, intervalMs },
    });
    this.worker.unref();
    // A checkpoint that fails is retried at the next tick; the WAL only grows meanwhile.
    this.worker.on("error", () => {});
  }

  async stop(): Promise<void> {
    this.worker.postMessage("stop");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** Rows written per second above which checkpoints move to a worker thread. */
const CHECKPOINT_WORKER_THRESHOLD = 500;

/**
 * Watches a database's writes; once it writes CHECKPOINT_WORKER_THRESHOLD rows/s, its WAL checkpoints move to a
 * worker thread (automatic checkpoints off on this connection). A quiet broker keeps SQLite's own automatic
 * checkpoints and does not pay for the thread (~14 MB).
 */
export function checkpointsUnderLoad(
  db: DatabaseSync,
  path: string,
  { thresholdPerSecond = CHECKPOINT_WORKER_THRESHOLD, sampleMs = 1000, checkpointMs = 1000 } = {},
): { stop(): Promise<void> } {
  let checkpointer: Checkpointer | undefined;
  if (path === ":memory:") return { stop: async () => {} };
  const totalChanges = db.prepare("SELECT total_changes() AS total");
  let lastTotal = 0;
  const timer = setInterval(() => {
    const { total } = totalChanges.get() as { total: number };
    const perSecond = ((total - lastTotal) * 1000) / sampleMs;
    lastTotal = total;
    if (perSecond >= thresholdPerSecond && !checkpointer) {
      db.exec("PRAGMA wal_autocheckpoint = 0");
      checkpointer = new Checkpointer(path, checkpointMs);
      clearInterval(timer);
    }
  }, sampleMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await checkpointer?.stop();
    },
  };
}
