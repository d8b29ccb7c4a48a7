import { clientKey } from "../domain/ip.js";

export { clientKey };

/**
 * Token buckets, one small limiter per purpose (docs/relay.md, "Rate limits" lists the values). Limits are per
 * relay process: behind a load balancer with N processes a client gets up to N times the figure.
 */
export class Limiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    /** Requests allowed at once. */
    readonly burst: number,
    /** Requests per second regained. */
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`: 0 when allowed, else the whole seconds to wait (the `Retry-After` value). */
  take(key: string): number {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      // Bounded memory under a flood of distinct keys: forgetting buckets only ever lets a request through early.
      if (this.buckets.size >= 100_000) this.buckets.clear();
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }
}

export type LimitName =
  | "perIp"
  | "enroll"
  | "pairingCreate"
  | "joinCreate"
  | "claimPerIp"
  | "claimPerCode"
  | "claimAll"
  | "answerPost"
  | "answerPoll"
  | "envelopePost"
  | "envelopePoll"
  | "receiptPost"
  | "receiptPoll"
  | "deviceAdmin";

export type LimitTable = Record<LimitName, { burst: number; perSecond: number }>;

export const DEFAULT_LIMITS: LimitTable = {
  // Every request from one client address: a floor under everything else, before any token is looked up.
  perIp: { burst: 200, perSecond: 50 },
  // POST /v1/installations per client address: enrollment is rare, the token is the operator's.
  enroll: { burst: 5, perSecond: 10 / 60 },
  // POST /v1/pairings per installation: a person shows a QR code now and then.
  pairingCreate: { burst: 10, perSecond: 10 / 60 },
  // POST /v1/joins per owner (all its machines together): a person adds a machine now and then.
  joinCreate: { burst: 10, perSecond: 1 / 60 },
  // POST /v1/pairings/claim per client address: bounds code guessing.
  claimPerIp: { burst: 5, perSecond: 10 / 60 },
  // POST /v1/pairings/claim per submitted code: bounds guessing one code from many addresses.
  claimPerCode: { burst: 5, perSecond: 5 / 600 },
  // POST /v1/pairings/claim, all clients together: bounds guessing from many addresses (each with its own budget
  // above), so a live code meets at most ~1,300 guesses in its 10 minutes however many addresses guess.
  claimAll: { burst: 100, perSecond: 2 },
  // POST /v1/interaction-responses per device: a person taps, a phone retries.
  answerPost: { burst: 30, perSecond: 2 },
  // GET /v1/interaction-responses per installation: a broker's poll loop.
  answerPoll: { burst: 30, perSecond: 5 },
  // POST /v1/envelopes per installation: one per question or notification.
  envelopePost: { burst: 60, perSecond: 10 },
  // GET /v1/envelopes per device: a phone's fetch after each wake-up.
  envelopePoll: { burst: 30, perSecond: 2 },
  // POST /v1/envelopes/{id}/receipts per device: a phone reports each card it shows and opens (a backlog at once).
  receiptPost: { burst: 60, perSecond: 5 },
  // GET /v1/receipts per installation: a broker's receipt poll loop.
  receiptPoll: { burst: 30, perSecond: 5 },
  // GET /v1/device, GET /v1/devices, DELETE /v1/devices/{id}, PUT /v1/device/push-subscription per caller.
  deviceAdmin: { burst: 30, perSecond: 1 },
};

export class Limits {
  private readonly limiters = new Map<LimitName, Limiter>();

  constructor(table: LimitTable | false) {
    if (table === false) return;
    for (const [name, value] of Object.entries(table) as [LimitName, LimitTable[LimitName]][]) {
      this.limiters.set(name, new Limiter(value.burst, value.perSecond));
    }
  }

  /** 0 when allowed (or limits are off), else seconds to wait. */
  take(name: LimitName, key: string): number {
    return this.limiters.get(name)?.take(key) ?? 0;
  }
}
