import type { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";
import type { CheckpointMessage } from "./checkpoint-worker.js";

/**
 * Runs WAL checkpoints on a worker thread with a connection of its own per database, so the copy back (and the
 * fsync) of a database file never stalls a request on the main thread. The main connection turns automatic
 * checkpoints off while its file is here. One thread serves every database of the process (a thread costs about
 * 10 MB of RSS): it starts with the first file and ends with the last.
 */
class Checkpointer {
  private readonly worker: Worker;
  private readonly paths = new Set<string>();

  constructor(intervalMs: number) {
    this.worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), { workerData: { intervalMs } });
    this.worker.unref();
    // A checkpoint that fails is retried at the next tick; the WAL only grows meanwhile.
    this.worker.on("error", () => {});
  }

  get size(): number {
    return this.paths.size;
  }

  add(path: string): void {
    this.paths.add(path);
    this.worker.postMessage({ add: path } satisfies CheckpointMessage);
  }

  remove(path: string): void {
    if (this.paths.delete(path)) this.worker.postMessage({ remove: path } satisfies CheckpointMessage);
  }

  async stop(): Promise<void> {
    this.worker.postMessage("stop" satisfies CheckpointMessage);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

let shared: Checkpointer | undefined;

/** Rows written per second above which checkpoints move to a worker thread. */
const CHECKPOINT_WORKER_THRESHOLD = 500;

/**
 * Watches a database's writes; once it writes CHECKPOINT_WORKER_THRESHOLD rows/s, its WAL checkpoints move to a
 * worker thread (automatic checkpoints off on this connection), shared with any other database that got there too.
 * A quiet broker keeps SQLite's own automatic checkpoints and does not pay for the thread.
 */
export function checkpointsUnderLoad(
  db: DatabaseSync,
  path: string,
  { thresholdPerSecond = CHECKPOINT_WORKER_THRESHOLD, sampleMs = 1000, checkpointMs = 1000 } = {},
): { stop(): Promise<void> } {
  if (path === ":memory:") return { stop: async () => {} };
  let moved = false;
  const totalChanges = db.prepare("SELECT total_changes() AS total");
  let lastTotal = 0;
  const timer = setInterval(() => {
    const { total } = totalChanges.get() as { total: number };
    const perSecond = ((total - lastTotal) * 1000) / sampleMs;
    lastTotal = total;
    if (perSecond >= thresholdPerSecond && !moved) {
      db.exec("PRAGMA wal_autocheckpoint = 0");
      shared ??= new Checkpointer(checkpointMs);
      shared.add(path);
      moved = true;
      clearInterval(timer);
    }
  }, sampleMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      if (!moved || !shared) return;
      // The thread checkpoints the file once more as it lets go of it; the last file ends the thread.
      shared.remove(path);
      if (shared.size === 0) {
        const last = shared;
        shared = undefined;
        await last.stop();
      }
    },
  };
}
