import { backoffMs, cappedServerDelayMs } from "@notify/contracts/retry";
import type { OutboundConnection } from "@notify/contracts/ui";
import type { DomainBus } from "../domain/bus.js";
import { type Clock, isoTime } from "../domain/clock.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionService } from "../interactions/service.js";
import type { InteractionDto } from "../interactions/types.js";
import type { Logger } from "../log/logger.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { ProviderProfile } from "../outbox/types.js";
import type { ChatStore, MessageRow } from "../store/chat-store.js";

/** What `notify outbound list` and the Outbound page show for a provider that answers from a chat app. */
export type ChatConnection = OutboundConnection;

export interface ChatTimings {
  /** Backoff after a failure: base doubling to max, jittered. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often providers are looked at again, and open messages of closed questions edited. */
  rescanMs?: number;
  /** Telegram getUpdates long-poll `timeout`, seconds. */
  pollSeconds?: number;
  /**
   * The deadline of one chat API call (a long poll gets its `timeout` plus this), and of a Slack socket from
   * `apps.connections.open` to its `hello`: a server that stops answering is a failure, not a wait for undici's.
   */
  requestTimeoutMs?: number;
  /** How long the handles and messages of a settled question are kept (docs/outbound.md: 7 days). */
  retentionMs?: number;
  /** How often they are pruned (by the clock; checked on each rescan). */
  pruneEveryMs?: number;
  random?: () => number;
}

/** Edits one question message to show the outcome; true once it shows it (or can never be edited). */
export type MessageEditor = (row: MessageRow, interaction: InteractionDto, signal: AbortSignal) => Promise<boolean>;

/** What a provider's loop gets from the supervisor. */
export interface ChatLoopContext {
  profile: ProviderProfile;
  signal: AbortSignal;
  store: ChatStore;
  interactions: InteractionService;
  /** The broker's unit of work: an answer is acknowledged to the chat app only once `pendingCommit` settles. */
  unit: UnitOfWork;
  outbound: OutboundService;
  logger: Logger;
  clock: Clock;
  timings: Required<Omit<ChatTimings, "random">>;
  /** Reports the connection state (shown by `notify outbound list`). */
  report(state: ChatConnection["state"], lastCode?: string): void;
  /** Registers how this provider's account edits its messages (while the loop runs). */
  setEditor(account: string, editor: MessageEditor): void;
  /** Edits the open messages of a question that is no longer pending (after a settle or a late tap). */
  close(interactionId: string): void;
  backoff(failures: number): number;
  /** Waits `ms` (capped at MAX_SERVER_DELAY_MS, whatever a server named) or until the loop stops. */
  sleep(ms: number): Promise<void>;
}

/** One provider kind's loop: runs until `signal` aborts; throws on what it cannot handle (restarted with backoff). */
export type ChatLoop = (context: ChatLoopContext) => Promise<void>;

/** Which providers run a loop, and which loop. */
export type LoopFor = (profile: ProviderProfile) => ChatLoop | undefined;

const DEFAULTS: Required<Omit<ChatTimings, "random">> = {
  baseBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  rescanMs: 2_000,
  pollSeconds: 25,
  requestTimeoutMs: 15_000,
  retentionMs: 7 * 24 * 3_600_000,
  pruneEveryMs: 3_600_000,
};

interface Runner {
  version: string;
  controller: AbortController;
  done: Promise<void>;
  accounts: Set<string>;
}

/**
 * Supervises the answer loops of chat providers (issue 25): one getUpdates loop per Telegram provider with
 * `answers: true`, one Socket Mode connection per `slack_app` provider. A loop starts when its provider is
 * enabled, stops when it is disabled, changed or deleted, and is restarted with backoff when it fails; its state
 * (connecting, connected, retrying with the last code) is kept for the listings. The supervisor also edits every
 * question message to its outcome once the question closes, on whichever surface: at once on the bus event, and
 * on each rescan for any edit that failed or was missed (a broker stopped in between).
 */
export class ChatSupervisor {
  private readonly timings: Required<Omit<ChatTimings, "random">>;
  private readonly random: () => number;
  private readonly runners = new Map<string, Runner>();
  private readonly states = new Map<string, ChatConnection>();
  private readonly editors = new Map<string, MessageEditor>();
  private readonly editing = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private lastPrune: number | undefined;
  private readonly controller = new AbortController();
  private readonly onChanged = (interaction: InteractionDto) => {
    if (interaction.status !== "pending") this.close(interaction.id);
  };

  constructor(
    private readonly outbound: OutboundService,
    private readonly interactions: InteractionService,
    private readonly store: ChatStore,
    private readonly bus: DomainBus,
    private readonly unit: UnitOfWork,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly loopFor: LoopFor,
    timings: ChatTimings = {},
  ) {
    this.timings = { ...DEFAULTS, ...Object.fromEntries(Object.entries(timings).filter(([, v]) => v !== undefined)) };
    this.random = timings.random ?? Math.random;
  }

  start(): void {
    this.stopped = false;
    this.bus.on("interaction.changed", this.onChanged);
    this.rescan();
  }

  /** The connection state of a provider's loop; undefined when none runs. */
  connection(providerId: string): ChatConnection | undefined {
    return this.states.get(providerId);
  }

  rescan(): void {
    if (this.stopped) return;
    const wanted = new Map<string, { profile: ProviderProfile; loop: ChatLoop }>();
    for (const profile of this.outbound.listProfiles()) {
      const loop = profile.enabled ? this.loopFor(profile) : undefined;
      if (loop) wanted.set(profile.id, { profile, loop });
    }
    for (const [id, runner] of this.runners) {
      const entry = wanted.get(id);
      if (!entry || entry.profile.updatedAt !== runner.version) {
        runner.controller.abort();
        for (const account of runner.accounts) this.editors.delete(account);
        this.runners.delete(id);
        this.states.delete(id);
      }
    }
    for (const { profile, loop } of wanted.values()) {
      if (!this.runners.has(profile.id)) this.run(profile, loop);
    }
    this.sweepOpen();
    this.pruneIfDue();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.rescan(), this.timings.rescanMs);
    this.timer.unref();
  }

  private run(profile: ProviderProfile, loop: ChatLoop): void {
    const controller = new AbortController();
    const runner: Runner = { version: profile.updatedAt, controller, done: Promise.resolve(), accounts: new Set() };
    const signal = controller.signal;
    const context: ChatLoopContext = {
      profile,
      signal,
      store: this.store,
      interactions: this.interactions,
      unit: this.unit,
      outbound: this.outbound,
      logger: this.logger,
      clock: this.clock,
      timings: this.timings,
      report: (state, lastCode) => {
        if (signal.aborted) return;
        const previous = this.states.get(profile.id);
        const next: ChatConnection = { state, since: isoTime(this.clock.now()) };
        const code = lastCode ?? (state === "connected" ? undefined : previous?.lastCode);
        if (code !== undefined) next.lastCode = code;
        if (previous?.state === state && previous.lastCode === next.lastCode) return;
        this.states.set(profile.id, next);
        if (state === "retrying" && previous?.state !== "retrying") {
          this.logger.warn(`chat: ${profile.kind} provider ${profile.name} retrying: ${code ?? "error"}`);
        } else if (state === "connected" && previous?.state === "retrying") {
          this.logger.info(`chat: ${profile.kind} provider ${profile.name} connected again`);
        }
      },
      setEditor: (account, editor) => {
        if (signal.aborted) return;
        runner.accounts.add(account);
        this.editors.set(account, editor);
        this.sweepOpen();
      },
      close: (interactionId) => this.close(interactionId),
      backoff: (failures) => this.backoff(failures),
      sleep: (ms) => sleep(ms, signal),
    };
    this.states.set(profile.id, { state: "connecting", since: isoTime(this.clock.now()) });
    runner.done = (async () => {
      let failures = 0;
      while (!signal.aborted) {
        try {
          await loop(context);
          failures = 0;
        } catch (error) {
          if (signal.aborted) break;
          failures++;
          const code = (error as { code?: unknown }).code;
          context.report("retrying", typeof code === "string" && /^[a-z0-9_]{1,40}$/.test(code) ? code : "loop_error");
        }
        if (!signal.aborted) await context.sleep(this.backoff(Math.max(1, failures)));
      }
    })();
    this.runners.set(profile.id, runner);
  }

  /** Edits the open messages of a closed question, each once at a time. */
  close(interactionId: string): void {
    if (this.stopped) return;
    let interaction: InteractionDto | undefined;
    let rows: MessageRow[];
    try {
      interaction = this.interactions.find(interactionId);
      rows = this.store.openMessagesFor(interactionId);
    } catch {
      return; // database closed during shutdown
    }
    if (!interaction || interaction.status === "pending") return;
    for (const row of rows) this.edit(row, interaction);
  }

  private edit(row: MessageRow, interaction: InteractionDto): void {
    const editor = this.editors.get(row.account);
    const key = `${row.account}\u0000${row.conversation}\u0000${row.message}`;
    if (!editor || this.editing.has(key)) return;
    this.editing.add(key);
    editor(row, interaction, this.controller.signal)
      .then((done) => {
        if (done && !this.stopped) this.store.close(row);
      })
      .catch(() => {})
      .finally(() => this.editing.delete(key));
  }

  /** Open messages of closed questions, for the accounts that have a running loop. */
  private sweepOpen(): void {
    try {
      for (const account of this.editors.keys()) {
        for (const row of this.store.openMessages(account)) {
          const interaction = this.interactions.find(row.interactionId);
          if (interaction && interaction.status !== "pending") this.edit(row, interaction);
        }
      }
    } catch {
      // database closed during shutdown
    }
  }

  /** At start and then every `pruneEveryMs`: the state of settled questions older than `retentionMs` goes. */
  private pruneIfDue(): void {
    const now = this.clock.now();
    if (this.lastPrune !== undefined && now - this.lastPrune < this.timings.pruneEveryMs) return;
    this.lastPrune = now;
    try {
      const removed = this.store.prune(now - this.timings.retentionMs);
      if (removed.handles + removed.messages + removed.offsets > 0) {
        this.logger.info(
          `chat: pruned ${removed.handles} button handles and ${removed.messages} messages of settled questions, ${removed.offsets} offsets of deleted providers`,
        );
      }
    } catch {
      // database closed during shutdown
    }
  }

  private backoff(failures: number): number {
    return backoffMs(failures, {
      baseMs: this.timings.baseBackoffMs,
      maxMs: this.timings.maxBackoffMs,
      random: this.random,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.bus.off("interaction.changed", this.onChanged);
    this.controller.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const runners = [...this.runners.values()];
    this.runners.clear();
    this.states.clear();
    for (const runner of runners) runner.controller.abort();
    await Promise.all(runners.map((runner) => runner.done));
  }
}

/**
 * An abortable wait of at most MAX_SERVER_DELAY_MS: a server's `retry_after` past the timer limit (2^31-1 ms)
 * would make setTimeout fire at once, and a 429 a hot loop.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, cappedServerDelayMs(ms));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
