import type webpush from "web-push";
import type { PushWaker } from "../domain/deps.js";
import type { RelayLogger } from "../log.js";
import type { RelayStore } from "../store/types.js";
import type { VapidKeys } from "./vapid.js";

export interface WebPushOptions {
  vapid: VapidKeys & { subject: string };
  store: RelayStore;
  logger: RelayLogger;
  /** Per attempt. */
  timeoutMs?: number;
  /** Delays before the 2nd, 3rd, ... attempt: three attempts in all by default. */
  retryDelaysMs?: readonly number[];
  concurrency?: number;
}

interface Job {
  deviceId: string;
  subscription: string;
  payload: string;
}

const MAX_QUEUE = 10_000;
/** A wake-up older than this is useless: the phone fetches on its next open anyway. */
const TTL_SECONDS = 24 * 60 * 60;

/**
 * Content-free Web Push wake-ups (RFC 8030 with VAPID, RFC 8292, and aes128gcm, RFC 8291). Jobs are queued after
 * the envelope's commit and sent in the background with bounded retries and concurrency, so a slow or failing push
 * service never fails or slows the POST. 404 and 410 mean the subscription is gone: it is dropped.
 */
export class WebPushSender implements PushWaker {
  private readonly queue: Job[] = [];
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly timeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly concurrency: number;
  private closed = false;

  constructor(private readonly options: WebPushOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryDelaysMs = options.retryDelaysMs ?? [1000, 5000];
    this.concurrency = options.concurrency ?? 16;
  }

  wake(deviceId: string, subscription: string, payload: { envelope_id: string; version: string }): void {
    if (this.closed) return;
    if (this.queue.length >= MAX_QUEUE) {
      this.queue.shift();
      this.options.logger.warn("push queue full: dropped the oldest wake-up");
    }
    this.queue.push({ deviceId, subscription, payload: JSON.stringify(payload) });
    this.pump();
  }

  /** Resolves when nothing is queued or in flight (tests, shutdown). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    await this.idle();
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.inFlight += 1;
      this.deliver(job)
        .catch((error: unknown) => this.options.logger.warn(`push to ${job.deviceId} failed: ${(error as Error).name}`))
        .finally(() => {
          this.inFlight -= 1;
          this.pump();
          if (this.queue.length === 0 && this.inFlight === 0) {
            const waiters = this.idleWaiters;
            this.idleWaiters = [];
            for (const resolve of waiters) resolve();
          }
        });
    }
  }

  /** web-push and its dependencies load on the first wake-up: a relay without subscriptions never pays for them. */
  private library: Promise<typeof webpush> | undefined;

  private async deliver(job: Job): Promise<void> {
    this.library ??= import("web-push").then((module) => module.default);
    const library = await this.library;
    const subscription = JSON.parse(job.subscription) as webpush.PushSubscription;
    const host = new URL(subscription.endpoint).host;
    for (let attempt = 0; ; attempt += 1) {
      const details = library.generateRequestDetails(subscription, job.payload, {
        vapidDetails: this.options.vapid,
        contentEncoding: "aes128gcm",
        TTL: TTL_SECONDS,
        urgency: "high",
      });
      let status: number | undefined;
      let retryAfter: number | undefined;
      try {
        const response = await fetch(details.endpoint, {
          method: details.method,
          headers: details.headers as Record<string, string>,
          body: details.body as Buffer,
          signal: AbortSignal.timeout(this.timeoutMs),
          redirect: "error",
        });
        status = response.status;
        retryAfter = Number(response.headers.get("retry-after")) || undefined;
        await response.body?.cancel();
      } catch {
        status = undefined;
      }
      if (status !== undefined && status >= 200 && status < 300) return;
      if (status === 404 || status === 410) {
        // The endpoint (it carries a capability) is never logged, only its host.
        this.options.logger.info(`push subscription of ${job.deviceId} at ${host} is gone (${status}): dropped`);
        await this.options.store.transaction((tx) => tx.dropPushSubscription(job.deviceId, job.subscription));
        return;
      }
      const retryable = status === undefined || status === 429 || status >= 500;
      const delay = this.retryDelaysMs[attempt];
      if (!retryable || delay === undefined || this.closed) {
        this.options.logger.warn(`push to ${job.deviceId} at ${host} failed (${status ?? "network error"})`);
        return;
      }
      const wait = retryAfter !== undefined ? Math.min(retryAfter * 1000, 60_000) : delay;
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
  }
}
