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
