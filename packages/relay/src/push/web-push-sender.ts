import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { cappedServerDelayMs, MAX_SERVER_DELAY_MS, retryAfterMs } from "@notify/contracts/retry";
import type { Agent } from "undici";
import type webpush from "web-push";
import type { PushWaker } from "../domain/deps.js";
import { isLoopback, nonPublicReason, parseIp } from "../domain/ip.js";
import { type PushEndpointPolicy, pushEndpointProblem } from "../domain/push-subscription.js";
import type { RelayLogger } from "../log.js";
import type { PushOutcome } from "../metrics.js";
import type { RelayStore } from "../store/types.js";
import { encryptPush } from "./aes128gcm.js";
import type { VapidKeys } from "./vapid.js";

export interface WebPushOptions {
  vapid: VapidKeys & { subject: string };
  store: RelayStore;
  logger: RelayLogger;
  /** Per attempt. */
  timeoutMs?: number;
  /** Delays before the 2nd, 3rd, ... attempt: three attempts in all by default. */
  retryDelaysMs?: readonly number[];
  /** The longest a push service's `Retry-After` makes a retry wait (default 60 s). */
  maxRetryAfterMs?: number;
  concurrency?: number;
  /** The loopback switch (RELAY_ALLOW_LOOPBACK_PUSH): what the endpoint rule lets through when connecting too. */
  pushEndpoints?: PushEndpointPolicy;
  /** Name resolution (tests stand in for DNS here); every address it gives is checked before connecting. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** Each attempt's outcome (metrics). */
  onOutcome?: (outcome: PushOutcome) => void;
  /** Most wake-ups queued; past it the oldest is dropped (default 100,000). */
  maxQueue?: number;
}

/** A push endpoint whose host resolves to an address the relay must not send to (DNS rebinding, a private name). */
export class RefusedAddressError extends Error {
  readonly code = "ERR_PUSH_ADDRESS_REFUSED";
  constructor(reason: string) {
    super(`the push endpoint's host resolves to ${reason} address`);
    this.name = "RefusedAddressError";
  }
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * net's `lookup` for the push Agent: resolves, then refuses the connection when any address is not public (loopback
 * only with the switch). The endpoint was checked when it was registered; this catches a name that resolves
 * elsewhere now (DNS rebinding) or always did (a name for a private address).
 */
export function guardedLookup(
  policy: PushEndpointPolicy,
  resolve: (hostname: string) => Promise<LookupAddress[]>,
): (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = found.filter((entry) => wanted === undefined || entry.family === wanted);
        for (const entry of addresses) {
          const ip = parseIp(entry.address);
          const reason = ip ? nonPublicReason(ip) : "an unparsable";
          if (reason && !(policy.allowLoopback && ip && isLoopback(ip))) {
            callback(new RefusedAddressError(reason), "");
            return;
          }
        }
        const first = addresses[0];
        if (!first) callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
        else if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, ""),
    );
  };
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, order: "verbatim" });

const refused = (error: unknown): boolean => {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof RefusedAddressError) return true;
  }
  return false;
};

interface Job {
  deviceId: string;
  subscription: string;
  payload: string;
  /** Attempts made so far. */
  attempt: number;
}

/** A VAPID Authorization header is signed once per push service origin and reused for this long (RFC 8292: <= 24 h). */
const VAPID_REUSE_MS = 12 * 60 * 60 * 1000;
/** A wake-up older than this is useless: the phone fetches on its next open anyway. */
const TTL_SECONDS = 24 * 60 * 60;

/**
 * Content-free Web Push wake-ups (RFC 8030 with VAPID, RFC 8292, and aes128gcm, RFC 8291). Jobs are queued after
 * the envelope's commit and sent in the background with bounded concurrency, so a slow or failing push service never
 * fails or slows the POST. 404 and 410 mean the subscription is gone: it is dropped. 429, 5xx and network errors
 * are retried after a backoff (Retry-After when given) without holding a sending slot meanwhile. Best-effort: the
 * queue lives in memory and is lost on restart (the phone fetches its envelopes when opened anyway); when full, the
 * oldest wake-up is dropped.
 */
export class WebPushSender implements PushWaker {
  private readonly queue: Job[] = [];
  private inFlight = 0;
  /** Retries waiting for their backoff. */
  private readonly waitingRetries = new Set<NodeJS.Timeout>();
  private readonly maxQueue: number;
  private readonly vapidHeaders = new Map<string, { authorization: string; until: number }>();
  private idleWaiters: (() => void)[] = [];
  private readonly timeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly maxRetryAfterMs: number;
  private readonly concurrency: number;
  private closed = false;
  private readonly pushEndpoints: PushEndpointPolicy;
  private agent: Agent | undefined;

  constructor(private readonly options: WebPushOptions) {
    this.pushEndpoints = options.pushEndpoints ?? { allowLoopback: false };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryDelaysMs = options.retryDelaysMs ?? [1000, 5000];
    this.maxRetryAfterMs = Math.min(options.maxRetryAfterMs ?? 60_000, MAX_SERVER_DELAY_MS);
    this.concurrency = options.concurrency ?? 16;
    this.maxQueue = options.maxQueue ?? 100_000;
  }

  /** Wake-ups queued or waiting for a retry (metrics). */
  get queued(): number {
    return this.queue.length + this.waitingRetries.size;
  }

  wake(deviceId: string, subscription: string, payload: { envelope_id: string; version: string }): void {
    if (this.closed) return;
    if (this.queue.length >= this.maxQueue) {
      this.queue.shift();
      this.options.onOutcome?.("dropped");
      this.options.logger.warn("push queue full: dropped the oldest wake-up");
    }
    this.queue.push({ deviceId, subscription, payload: JSON.stringify(payload), attempt: 0 });
    this.pump();
  }

  /** Resolves when nothing is queued or in flight (tests, shutdown). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0 && this.waitingRetries.size === 0;
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    for (const timer of this.waitingRetries) clearTimeout(timer);
    this.waitingRetries.clear();
    await this.idle();
    await this.agent?.close();
  }

  /** Back in the queue after `delay` (ms); the sending slot is free meanwhile. */
  private retryLater(job: Job, delay: number): void {
    const timer = setTimeout(() => {
      this.waitingRetries.delete(timer);
      if (this.closed) return this.settleIdle();
      this.queue.push(job);
      this.pump();
    }, delay);
    timer.unref();
    this.waitingRetries.add(timer);
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
          this.settleIdle();
        });
    }
  }

  /**
   * web-push, undici and their dependencies load on the first wake-up: a relay without subscriptions never pays for
   * them. One Agent of the sender's own: it follows no redirects (a 3xx is a failed push), reads no proxy variables,
   * and connects only to addresses `guardedLookup` lets through.
   */
  private library:
    | Promise<{ webpush: typeof webpush; request: typeof import("undici").request; agent: Agent }>
    | undefined;

  private load() {
    this.library ??= Promise.all([import("web-push"), import("undici")]).then(([module, undici]) => {
      const agent = new undici.Agent({
        connect: {
          timeout: this.timeoutMs,
          lookup: guardedLookup(this.pushEndpoints, this.options.resolve ?? systemResolve),
        } as object,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.agent = agent;
      return { webpush: module.default, request: undici.request, agent };
    });
    return this.library;
  }

  /** The VAPID Authorization header for a push service origin, signed once and reused (an ES256 signature each). */
  private vapidAuthorization(library: typeof webpush, audience: string): string {
    const now = Date.now();
    const cached = this.vapidHeaders.get(audience);
    if (cached && cached.until > now) return cached.authorization;
    const { subject, publicKey, privateKey } = this.options.vapid;
    // Valid for an hour longer than it is reused, so a header is never sent expired.
    const expiration = Math.floor((now + VAPID_REUSE_MS + 60 * 60 * 1000) / 1000);
    const headers = library.getVapidHeaders(audience, subject, publicKey, privateKey, "aes128gcm", expiration);
    const authorization = String(headers.Authorization);
    if (this.vapidHeaders.size > 1000) this.vapidHeaders.clear();
    this.vapidHeaders.set(audience, { authorization, until: now + VAPID_REUSE_MS });
    return authorization;
  }

  /** One attempt; a retryable failure puts the job back in the queue after its backoff. */
  private async deliver(job: Job): Promise<void> {
    const { webpush: library, request, agent } = await this.load();
    const subscription = JSON.parse(job.subscription) as webpush.PushSubscription;
    const url = new URL(subscription.endpoint);
    const host = url.host;
    // Stored before this rule existed, or under a loopback switch now off: never sent, kept for the owner to see.
    const problem = pushEndpointProblem(url, this.pushEndpoints);
    if (problem) {
      this.options.onOutcome?.("refused");
      this.options.logger.warn(`push to ${job.deviceId} at ${host} not sent: the endpoint ${problem}`);
      return;
    }
    // Sealed here (push/aes128gcm.ts), with the headers web-push's generateRequestDetails gave.
    const body = encryptPush(subscription.keys, job.payload);
    const headers = {
      TTL: String(TTL_SECONDS),
      Authorization: this.vapidAuthorization(library, url.origin),
      "Content-Type": "application/octet-stream",
      "Content-Encoding": "aes128gcm",
      "Content-Length": String(body.length),
      Urgency: "high",
    };
    let status: number | undefined;
    let retryAfter: number | undefined;
    try {
      const response = await request(subscription.endpoint, {
        method: "POST",
        headers,
        body,
        dispatcher: agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.statusCode;
      retryAfter = retryAfterMs(response.headers, Date.now());
      await response.body.dump();
    } catch (error) {
      if (refused(error)) {
        this.options.onOutcome?.("refused");
        this.options.logger.warn(`push to ${job.deviceId} at ${host} refused: ${(error as Error).message}`);
        return;
      }
      status = undefined;
    }
    if (status !== undefined && status >= 200 && status < 300) {
      this.options.onOutcome?.("delivered");
      return;
    }
    if (status === 404 || status === 410) {
      this.options.onOutcome?.("gone");
      // The endpoint (it carries a capability) is never logged, only its host.
      this.options.logger.info(`push subscription of ${job.deviceId} at ${host} is gone (${status}): dropped`);
      await this.options.store.transaction((tx) => tx.dropPushSubscription(job.deviceId, job.subscription));
      return;
    }
    const retryable = status === undefined || status === 429 || status >= 500;
    const delay = this.retryDelaysMs[job.attempt];
    if (!retryable || delay === undefined || this.closed) {
      this.options.onOutcome?.("failed");
      this.options.logger.warn(`push to ${job.deviceId} at ${host} failed (${status ?? "network error"})`);
      return;
    }
    this.options.onOutcome?.("retried");
    // Retry-After (seconds or an HTTP date) when the push service gives one, capped (a minute by default): a value
    // past the timer limit would otherwise fire at once. Else the backoff, with jitter.
    const wait =
      retryAfter !== undefined
        ? cappedServerDelayMs(retryAfter, this.maxRetryAfterMs)
        : delay * (0.75 + Math.random() * 0.5);
    this.retryLater({ ...job, attempt: job.attempt + 1 }, wait);
  }
}
