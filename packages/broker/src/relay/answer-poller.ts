import type { RelayStoredAnswer } from "@notify/contracts/relay-api";
import { backoffMs, cappedServerDelayMs, MAX_SERVER_DELAY_MS, retryAfterMs } from "@notify/contracts/retry";
import type { Clock } from "../domain/clock.js";
import { DomainError } from "../domain/errors.js";
import type { InteractionService } from "../interactions/service.js";
import type { RespondInput } from "../interactions/types.js";
import type { Logger } from "../log/logger.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { ProviderProfile } from "../outbox/types.js";
import type { RelayCursorStore } from "../store/relay-cursor-store.js";
import { relaySettings } from "./relay-adapter.js";
import { relayRequest, relayUrl } from "./relay-http.js";

export interface PollerOptions {
  /** Seconds a poll asks the relay to hold an empty page (`wait=N`, which notify-relay offers). */
  waitSeconds?: number;
  /** At least this long between two polls that found nothing (a relay that does not hold). */
  idleMs?: number;
  /** Backoff after a failed poll: base doubling to max, jittered (the outbox's policy). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** The longest a relay's `Retry-After` makes the poll wait (default MAX_SERVER_DELAY_MS, as the outbox). */
  maxServerDelayMs?: number;
  /** How often the relay providers are looked at again (added, changed, disabled, deleted). */
  rescanMs?: number;
  random?: () => number;
}

const DEFAULTS: Required<Omit<PollerOptions, "random">> = {
  waitSeconds: 25,
  idleMs: 2_000,
  baseBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  maxServerDelayMs: MAX_SERVER_DELAY_MS,
  rescanMs: 2_000,
};

/** What one poll run ended with, for tests and `notify relay status`. */
export interface PollStats {
  polls: number;
  accepted: number;
  replayed: number;
  refused: number;
  failures: number;
  lastCode?: string;
}

interface Loop {
  version: string;
  controller: AbortController;
  done: Promise<void>;
  stats: PollStats;
}

/**
 * The answer fields the broker reads from one element of `responses` (the contract's stored answer body); a row
 * without `installation_id` is taken as this installation's.
 */
type RelayAnswerRow = Omit<RelayStoredAnswer, "contract_version" | "received_at" | "installation_id"> &
  Partial<Pick<RelayStoredAnswer, "installation_id">>;

function answerRow(value: unknown): RelayAnswerRow | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const row = value as Record<string, unknown>;
  for (const field of ["response_id", "interaction_id", "request_digest", "nonce", "device_id"]) {
    if (typeof row[field] !== "string" || row[field] === "") return undefined;
  }
  if (row.choice_id !== undefined && typeof row.choice_id !== "string") return undefined;
  if (row.text !== undefined && typeof row.text !== "string") return undefined;
  return row as unknown as RelayAnswerRow;
}

/**
 * The relay answer poll (spec 2, GET /v1/interaction-responses): one continuous, low-frequency loop per enabled
 * relay provider. Each answer is settled through the respond rules with `source` = `relay` and its `device_id`
 * (a repeat replays, a different second answer is refused); only then is the page's cursor stored and sent back,
 * so a crash in between replays the page and settles nothing twice. 401/403 stop the loop with the cursor kept
 * until the profile is saved again; 5xx, 429 and network failures back off (bounded) and retry.
 */
export class AnswerPoller {
  private readonly options: Required<Omit<PollerOptions, "random">>;
  private readonly random: () => number;
  private readonly loops = new Map<string, Loop>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly outbound: OutboundService,
    private readonly interactions: InteractionService,
    private readonly cursors: RelayCursorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: PollerOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
    this.random = options.random ?? Math.random;
  }

  start(): void {
    this.stopped = false;
    this.rescan();
  }

  /** Poll statistics of a provider's current loop (tests, status). */
  stats(providerId: string): PollStats | undefined {
    return this.loops.get(providerId)?.stats;
  }

  /** Starts loops for new or changed relay providers and ends those of disabled, changed or deleted ones. */
  rescan(): void {
    if (this.stopped) return;
    const wanted = new Map<string, ProviderProfile>();
    for (const profile of this.outbound.listProfiles()) {
      if (profile.kind === "relay" && profile.enabled) wanted.set(profile.id, profile);
    }
    for (const [id, loop] of this.loops) {
      const profile = wanted.get(id);
      if (!profile || profile.updatedAt !== loop.version) {
        loop.controller.abort();
        this.loops.delete(id);
      }
    }
    for (const profile of wanted.values()) {
      if (!this.loops.has(profile.id)) this.run(profile);
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.rescan(), this.options.rescanMs);
    this.timer.unref();
  }

  private run(profile: ProviderProfile): void {
    const controller = new AbortController();
    const stats: PollStats = { polls: 0, accepted: 0, replayed: 0, refused: 0, failures: 0 };
    const loop: Loop = { version: profile.updatedAt, controller, stats, done: Promise.resolve() };
    loop.done = this.loop(profile, controller.signal, stats).catch(() => {
      // A closed database during shutdown; the next start resumes from the stored cursor.
    });
    this.loops.set(profile.id, loop);
  }

  private async loop(profile: ProviderProfile, signal: AbortSignal, stats: PollStats): Promise<void> {
    const stop = this.cursors.get(profile.id).stopped;
    // Stopped by a 401/403 for this very profile version: wait until the owner saves it again (a new token).
    if (stop && stop.profileVersion === profile.updatedAt) return;
    if (stop) this.cursors.saveStop(profile.id, null, this.clock.now());
    const relay = relaySettings(profile.settings);
    let useWait = true;
    let failures = 0;
    while (!signal.aborted) {
      let token: string;
      try {
        token = this.outbound.openSecrets(profile.id).installationToken ?? "";
      } catch {
        token = "";
      }
      if (token === "") {
        stats.lastCode = "provider_secrets_unreadable";
        failures++;
        await this.sleep(this.backoff(failures), signal);
        continue;
      }
      const cursor = this.cursors.get(profile.id).cursor;
      const query = new URLSearchParams({ installation_id: relay.installationId });
      if (cursor !== undefined) query.set("since", cursor);
      if (useWait) query.set("wait", String(this.options.waitSeconds));
      const startedMs = Date.now();
      stats.polls++;
      const reply = await relayRequest({
        url: relayUrl(relay.url, `/v1/interaction-responses?${query}`),
        token,
        signal,
        timeoutMs: (this.options.waitSeconds + 15) * 1000,
      });
      if (signal.aborted) return;
      if (reply.ok) {
        const page = reply.body as { responses?: unknown; next_cursor?: unknown };
        if (!Array.isArray(page?.responses) || typeof page.next_cursor !== "string") {
          stats.lastCode = "relay_bad_reply";
          failures++;
          await this.sleep(this.backoff(failures), signal);
          continue;
        }
        failures = 0;
        delete stats.lastCode;
        for (const row of page.responses) this.settle(row, relay.installationId, stats);
        // Acknowledge only now: the answers above are settled (each in its own committed transaction).
        if (page.next_cursor !== cursor) this.cursors.saveCursor(profile.id, page.next_cursor, this.clock.now());
        if (page.responses.length === 0 && Date.now() - startedMs < this.options.idleMs) {
          await this.sleep(this.options.idleMs, signal);
        }
        continue;
      }
      stats.lastCode = reply.code;
      if (reply.status === 401 || reply.status === 403) {
        this.cursors.saveStop(
          profile.id,
          { status: reply.status, profileVersion: profile.updatedAt },
          this.clock.now(),
        );
        this.logger.warn(
          `relay poll for provider ${profile.name} stopped: HTTP ${reply.status} (cursor kept; save the provider again to resume)`,
        );
        return;
      }
      if (reply.status === 400 && useWait) {
        // A relay without long polls: plain polls at the idle interval.
        useWait = false;
        continue;
      }
      failures++;
      stats.failures++;
      // The relay's Retry-After, when longer than the backoff, up to the cap every server-named delay has (a value
      // past the timer limit would otherwise fire at once: a hot loop).
      const requested = reply.headers ? retryAfterMs(reply.headers, Date.now()) : undefined;
      const wait = Math.max(this.backoff(failures), cappedServerDelayMs(requested, this.options.maxServerDelayMs));
      await this.sleep(wait, signal);
    }
  }

  /** One answer through the respond rules (spec 2, rule 3: source relay); refusals are counted, never thrown. */
  private settle(value: unknown, installationId: string, stats: PollStats): void {
    const row = answerRow(value);
    if (!row || (row.installation_id !== undefined && row.installation_id !== installationId)) {
      stats.refused++;
      return;
    }
    const answer: RespondInput = {
      response_id: row.response_id,
      request_digest: row.request_digest,
      nonce: row.nonce,
      source: "relay",
      device_id: row.device_id,
    };
    if (row.choice_id !== undefined) answer.choice_id = row.choice_id;
    if (row.text !== undefined) answer.text = row.text;
    try {
      const before = this.interactions.find(row.interaction_id);
      const settled = this.interactions.answer(row.interaction_id, answer);
      if (before?.status === "answered" && settled.response?.response_id === row.response_id) stats.replayed++;
      else stats.accepted++;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // Not found, already answered differently, closed, stale digest or nonce, wrong shape: the broker decides
      // (spec 2), and the relay keeps the row until retention. No answer text or nonce is logged.
      stats.refused++;
      this.logger.info(`relay answer for ${row.interaction_id} refused: HTTP ${error.status}`);
    }
  }

  private backoff(failures: number): number {
    return backoffMs(failures, {
      baseMs: this.options.baseBackoffMs,
      maxMs: this.options.maxBackoffMs,
      random: this.random,
    });
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const loops = [...this.loops.values()];
    this.loops.clear();
    for (const loop of loops) loop.controller.abort();
    await Promise.all(loops.map((loop) => loop.done));
  }
}
