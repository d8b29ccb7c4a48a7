import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { PushWaker } from "../domain/deps.js";
import type { PushEndpointPolicy } from "../domain/push-subscription.js";
import { type RelayLogger, streamLogger } from "../log.js";
import type { PushOutcome } from "../metrics.js";
import type { RelayStore, StoreTx } from "../store/types.js";
import type { VapidKeys } from "./vapid.js";
import { WebPushSender } from "./web-push-sender.js";

/**
 * Web Push on a thread of its own. Each wake-up costs an ECDH key pair, an ECDH agreement and AES-GCM (RFC 8291)
 * plus an HTTPS request: at 2,000 envelopes a second that is most of a core, and on the relay's event loop it made
 * every envelope POST wait behind the encryption (p50 29 -> 576 ms in bench/relay/push.mjs). Here the POST only
 * hands a small message to the thread. The thread asks the relay to drop a gone subscription (the store stays on
 * the main thread) and reports outcomes and its queue length every 100 ms.
 */
interface ThreadConfig {
  vapid: VapidKeys & { subject: string };
  pushEndpoints: PushEndpointPolicy;
  concurrency?: number;
}

type ToThread =
  | { type: "wake"; deviceId: string; subscription: string; payload: { envelope_id: string; version: string } }
  | { type: "close" };
type FromThread =
  | { type: "drop"; deviceId: string; subscription: string }
  | { type: "report"; outcomes: Partial<Record<PushOutcome, number>>; queued: number; idle: boolean }
  | { type: "closed" };

export class ThreadedPushSender implements PushWaker {
  private readonly worker: Worker;
  private queuedNow = 0;
  private closing: Promise<void> | undefined;

  constructor(
    config: ThreadConfig,
    private readonly options: { store: RelayStore; logger: RelayLogger; onOutcome?: (outcome: PushOutcome) => void },
  ) {
    this.worker = new Worker(new URL(import.meta.url), { workerData: config });
    this.worker.unref();
    this.worker.on("message", (message: FromThread) => {
      if (message.type === "drop") {
        this.options.store
          .transaction((tx) => tx.dropPushSubscription(message.deviceId, message.subscription))
          .catch((error: unknown) => this.options.logger.warn(`dropping a push subscription failed: ${error}`));
      } else if (message.type === "report") {
        this.queuedNow = message.queued;
        for (const [outcome, count] of Object.entries(message.outcomes)) {
          for (let index = 0; index < (count ?? 0); index += 1) this.options.onOutcome?.(outcome as PushOutcome);
        }
      }
    });
    this.worker.on("error", (error) => this.options.logger.error(`push thread failed: ${error.message}`));
  }

  wake(deviceId: string, subscription: string, payload: { envelope_id: string; version: string }): void {
    if (this.closing) return;
    this.worker.postMessage({ type: "wake", deviceId, subscription, payload } satisfies ToThread);
  }

  /** Wake-ups queued in the thread (as of its last report, at most 100 ms old). */
  get queued(): number {
    return this.queuedNow;
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const done = () => resolve();
      this.worker.once("exit", done);
      this.worker.on("message", (message: FromThread) => {
        if (message.type === "closed") this.worker.terminate().then(done, done);
      });
      this.worker.postMessage({ type: "close" } satisfies ToThread);
    });
    return this.closing;
  }
}

/** The thread: a WebPushSender whose store is the main thread. */
function runThread(): void {
  const port = parentPort;
  if (!port) return;
  const config = workerData as ThreadConfig;
  const outcomes: Partial<Record<PushOutcome, number>> = {};
  const relayStore = {
    transaction: async (work: (tx: StoreTx) => Promise<unknown>) =>
      work({
        dropPushSubscription: async (deviceId: string, subscription: string) => {
          port.postMessage({ type: "drop", deviceId, subscription } satisfies FromThread);
        },
      } as unknown as StoreTx),
  } as unknown as RelayStore;
  const sender = new WebPushSender({
    vapid: config.vapid,
    store: relayStore,
    logger: streamLogger((line) => process.stderr.write(line)),
    pushEndpoints: config.pushEndpoints,
    ...(config.concurrency ? { concurrency: config.concurrency } : {}),
    onOutcome: (outcome) => {
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    },
  });
  const report = () => {
    const sent = { ...outcomes };
    for (const key of Object.keys(outcomes)) delete outcomes[key as PushOutcome];
    port.postMessage({
      type: "report",
      outcomes: sent,
      queued: sender.queued,
      idle: sender.queued === 0,
    } satisfies FromThread);
  };
  setInterval(report, 100);
  port.on("message", (message: ToThread) => {
    if (message.type === "wake") sender.wake(message.deviceId, message.subscription, message.payload);
    else if (message.type === "close") {
      sender.close().then(() => {
        report();
        port.postMessage({ type: "closed" } satisfies FromThread);
      });
    }
  });
}

if (!isMainThread && (workerData as { vapid?: unknown } | undefined)?.vapid) runThread();
