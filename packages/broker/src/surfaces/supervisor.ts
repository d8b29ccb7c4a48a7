import { backoffMs, cappedServerDelayMs, delay, MAX_SERVER_DELAY_MS } from "@notify/contracts/retry";
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
import type { RelayCursorStore } from "../store/relay-cursor-store.js";
import type { AnswerSurface } from "./surface.js";

/** What `notify outbound list` and the Outbound page show for a provider whose surface lists its connection. */
export type SurfaceConnection = OutboundConnection;

/** The timings of the surfaces' loops; every one has a default (test hooks set shorter ones). */
export interface SurfaceTimings {
  /** Backoff after a failure: base doubling to max, jittered (contracts/retry.ts, the outbox's policy). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often providers are looked at again, and open messages of closed questions edited. */
  rescanMs?: number;
  /** Telegram getUpdates long-poll `timeout`, seconds. */
  pollSeconds?: number;
  /**
   * The deadline of one chat API call (a long poll gets its `timeout` plus this), and of a socket from its opening
   * to its greeting (Slack's `hello`, Discord's HELLO): a server that stops answering is a failure, not a wait.
   */
  requestTimeoutMs?: number;
  /** How long the handles and messages of a settled question are kept (docs/outbound.md: 7 days). */
  retentionMs?: number;
  /** How often they are pruned (by the clock; checked on each rescan). */
  pruneEveryMs?: number;
  /** Seconds a relay poll asks the relay to hold an empty page (`wait=N`, which notify-relay offers). */
  waitSeconds?: number;
  /** At least this long between two relay polls that found nothing (a relay that does not hold). */
  idleMs?: number;
  /** The longest a relay's `Retry-After` makes the poll wait (default MAX_SERVER_DELAY_MS, as the outbox). */
  maxServerDelayMs?: number;
  random?: () => number;
}

/** The chat loops' test hook (BrokerOptions.chat). */
export type ChatTimings = SurfaceTimings;
/** The relay poll's test hook (BrokerOptions.relayPoller). */
export type PollerOptions = SurfaceTimings;

export type LoopTimings = Required<Omit<SurfaceTimings, "random">>;

const DEFAULTS: LoopTimings = {
  baseBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  rescanMs: 2_000,
  pollSeconds: 25,
  requestTimeoutMs: 15_000,
  retentionMs: 7 * 24 * 3_600_000,
  pruneEveryMs: 3_600_000,
  waitSeconds: 25,
  idleMs: 2_000,
  maxServerDelayMs: MAX_SERVER_DELAY_MS,
};

/** Edits one question message to show the outcome; true once it shows it (or can never be edited). */
export type MessageEditor = (row: MessageRow, interaction: InteractionDto, signal: AbortSignal) => Promise<boolean>;

/** What a surface's loop gets from the supervisor. */
export interface SurfaceLoopContext {
  profile: ProviderProfile;
  signal: AbortSignal;
  /** Chat apps: the button handles and question messages. */
  store: ChatStore;
  /** The relay: the answer page cursor. */
  cursors: RelayCursorStore;
  interactions: InteractionService;
  /** The broker's unit of work: an answer is acknowledged to the chat app only once `pendingCommit` settles. */
  unit: UnitOfWork;
  outbound: OutboundService;
  logger: Logger;
  clock: Clock;
  timings: LoopTimings;
  /** Reports the connection state (shown by `notify outbound list` where the surface lists it). */
  report(state: SurfaceConnection["state"], lastCode?: string): void;
  /** Registers how this provider's account edits its messages (while the loop runs). */
  setEditor(account: string, editor: MessageEditor): void;
  /** Edits the open messages of a question that is no longer pending (after a settle or a late tap). */
  close(interactionId: string): void;
  /** The shared backoff (contracts/retry.ts) with this surface's timings. */
  backoff(failures: number): number;
  /**
   * The loop's signal with the deadline of one chat API call (`requestTimeoutMs`: undici's own is 300 s), and any
   * other signals the call stops with (an edit's).
   */
  within(...signals: AbortSignal[]): AbortSignal;
  /** Waits `ms` (capped at MAX_SERVER_DELAY_MS, whatever a server named) or until the loop stops. */
  sleep(ms: number): Promise<void>;
  /** Keeps `initial` as this loop's counters, readable through `SurfaceSupervisor.stats` (tests, status). */
  keepStats<T extends object>(initial: T): T;
}

/**
 * One surface's loop: runs until `signal` aborts; throws on what it cannot handle (restarted with backoff); a
 * loop that returns is done until its provider is saved again (the relay after a 401).
 */
export type SurfaceLoop = (context: SurfaceLoopContext) => Promise<void>;

export interface SurfaceSupervisorDeps {
  outbound: OutboundService;
  interactions: InteractionService;
  store: ChatStore;
  cursors: RelayCursorStore;
  bus: DomainBus;
  unit: UnitOfWork;
  clock: Clock;
  logger: Logger;
}

/** Timings for every surface, and per provider kind on top (the relay's test hook sets `relay`'s). */
export interface SupervisorTimings {
  all?: SurfaceTimings | undefined;
  byKind?: Record<string, SurfaceTimings | undefined>;
}

interface Runner {
  version: string;
  controller: AbortController;
  done: Promise<void>;
  accounts: Set<string>;
}

const defined = (timings: SurfaceTimings | undefined) =>
  Object.fromEntries(Object.entries(timings ?? {}).filter(([, value]) => value !== undefined)) as SurfaceTimings;

/**
 * Runs the answer loop of every provider whose surface takes answers (issue 34, item 1): the relay's answer poll,
 * Telegram's getUpdates, Slack's Socket Mode, Discord's Gateway — one loop per provider. A loop starts when its
 * provider is enabled, stops when it is disabled, changed or deleted, and is restarted with the shared backoff
 * (contracts/retry.ts) when it fails; its state (connecting, connected, retrying with the last code) is kept for
 * the listings. The supervisor also edits every question message to its outcome once the question closes, on
 * whichever surface it was answered: at once on the bus event, and on each rescan for any edit that failed or was
 * missed (a broker stopped in between).
 */
export class SurfaceSupervisor {
  private readonly runners = new Map<string, Runner>();
  private readonly states = new Map<string, SurfaceConnection>();
  private readonly counters = new Map<string, object>();
  private readonly editors = new Map<string, MessageEditor>();
  private readonly editing = new Set<string>();
  private readonly rescanMs: number;
  private readonly retention: LoopTimings;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private lastPrune: number | undefined;
  private readonly controller = new AbortController();
  private readonly onChanged = (interaction: InteractionDto) => {
    if (interaction.status !== "pending") this.close(interaction.id);
  };

  constructor(
    private readonly deps: SurfaceSupervisorDeps,
    private readonly surfaces: readonly AnswerSurface[],
    private readonly timings: SupervisorTimings = {},
  ) {
    this.retention = this.timingsOf("");
    this.rescanMs = Math.min(
      this.retention.rescanMs,
      ...surfaces.map((surface) => this.timingsOf(surface.kind).rescanMs),
    );
  }

  /** DEFAULTS, then `all`, then the kind's own. */
  private timingsOf(kind: string): LoopTimings {
    return { ...DEFAULTS, ...defined(this.timings.all), ...defined(this.timings.byKind?.[kind]) } as LoopTimings;
  }

  private randomOf(kind: string): () => number {
    return this.timings.byKind?.[kind]?.random ?? this.timings.all?.random ?? Math.random;
  }

  start(): void {
    this.stopped = false;
    this.deps.bus.on("interaction.changed", this.onChanged);
    this.rescan();
  }

  /** The connection state of a provider's loop; undefined when none runs or its surface does not list it. */
  connection(providerId: string): SurfaceConnection | undefined {
    return this.states.get(providerId);
  }

  /** The counters a provider's current loop keeps (the relay poll's), if any. */
  stats<T extends object>(providerId: string): T | undefined {
    return this.counters.get(providerId) as T | undefined;
  }

  rescan(): void {
    if (this.stopped) return;
    const wanted = new Map<string, { profile: ProviderProfile; surface: AnswerSurface }>();
    for (const profile of this.deps.outbound.listProfiles()) {
      const surface = profile.enabled
        ? this.surfaces.find((candidate) => candidate.kind === profile.kind && candidate.answers(profile))
        : undefined;
      if (surface) wanted.set(profile.id, { profile, surface });
    }
    for (const [id, runner] of this.runners) {
      const entry = wanted.get(id);
      if (!entry || entry.profile.updatedAt !== runner.version) {
        runner.controller.abort();
        for (const account of runner.accounts) this.editors.delete(account);
        this.runners.delete(id);
        this.states.delete(id);
        this.counters.delete(id);
      }
    }
    for (const { profile, surface } of wanted.values()) {
      if (!this.runners.has(profile.id)) this.run(profile, surface);
    }
    this.sweepOpen();
    this.pruneIfDue();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.rescan(), this.rescanMs);
    this.timer.unref();
  }

  private run(profile: ProviderProfile, surface: AnswerSurface): void {
    const controller = new AbortController();
    const runner: Runner = { version: profile.updatedAt, controller, done: Promise.resolve(), accounts: new Set() };
    const signal = controller.signal;
    const timings = this.timingsOf(surface.kind);
    const random = this.randomOf(surface.kind);
    const backoff = (failures: number) =>
      backoffMs(failures, { baseMs: timings.baseBackoffMs, maxMs: timings.maxBackoffMs, random });
    const listed = surface.listsConnection;
    const context: SurfaceLoopContext = {
      profile,
      signal,
      store: this.deps.store,
      cursors: this.deps.cursors,
      interactions: this.deps.interactions,
      unit: this.deps.unit,
      outbound: this.deps.outbound,
      logger: this.deps.logger,
      clock: this.deps.clock,
      timings,
      report: (state, lastCode) => {
        if (signal.aborted || !listed) return;
        const previous = this.states.get(profile.id);
        const next: SurfaceConnection = { state, since: isoTime(this.deps.clock.now()) };
        const code = lastCode ?? (state === "connected" ? undefined : previous?.lastCode);
        if (code !== undefined) next.lastCode = code;
        if (previous?.state === state && previous.lastCode === next.lastCode) return;
        this.states.set(profile.id, next);
        if (state === "retrying" && previous?.state !== "retrying") {
          this.deps.logger.warn(`chat: ${profile.kind} provider ${profile.name} retrying: ${code ?? "error"}`);
        } else if (state === "connected" && previous?.state === "retrying") {
          this.deps.logger.info(`chat: ${profile.kind} provider ${profile.name} connected again`);
        }
      },
      setEditor: (account, editor) => {
        if (signal.aborted) return;
        runner.accounts.add(account);
        this.editors.set(account, editor);
        this.sweepOpen();
      },
      close: (interactionId) => this.close(interactionId),
      backoff,
      within: (...signals) => AbortSignal.any([signal, ...signals, AbortSignal.timeout(timings.requestTimeoutMs)]),
      // A server's `retry_after` past the timer limit would make a 429 a hot loop: at most MAX_SERVER_DELAY_MS.
      sleep: (ms) => delay(cappedServerDelayMs(ms), signal),
      keepStats: (initial) => {
        if (!signal.aborted) this.counters.set(profile.id, initial);
        return initial;
      },
    };
    if (listed) this.states.set(profile.id, { state: "connecting", since: isoTime(this.deps.clock.now()) });
    runner.done = (async () => {
      let failures = 0;
      while (!signal.aborted) {
        try {
          await surface.loop(context);
          return;
        } catch (error) {
          if (signal.aborted) break;
          failures++;
          const code = (error as { code?: unknown }).code;
          context.report("retrying", typeof code === "string" && /^[a-z0-9_]{1,40}$/.test(code) ? code : "loop_error");
        }
        if (!signal.aborted) await context.sleep(backoff(Math.max(1, failures)));
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
      interaction = this.deps.interactions.find(interactionId);
      rows = this.deps.store.openMessagesFor(interactionId);
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
        if (done && !this.stopped) this.deps.store.close(row, this.deps.clock.now());
      })
      .catch(() => {})
      .finally(() => this.editing.delete(key));
  }

  /** Open messages of closed questions, for the accounts that have a running loop. */
  private sweepOpen(): void {
    try {
      for (const account of this.editors.keys()) {
        for (const row of this.deps.store.openMessages(account)) {
          const interaction = this.deps.interactions.find(row.interactionId);
          if (interaction && interaction.status !== "pending") this.edit(row, interaction);
        }
      }
    } catch {
      // database closed during shutdown
    }
  }

  /** At start and then every `pruneEveryMs`: the state of settled questions older than `retentionMs` goes. */
  private pruneIfDue(): void {
    const now = this.deps.clock.now();
    if (this.lastPrune !== undefined && now - this.lastPrune < this.retention.pruneEveryMs) return;
    this.lastPrune = now;
    try {
      const removed = this.deps.store.prune(now - this.retention.retentionMs);
      if (removed.handles + removed.messages + removed.offsets > 0) {
        this.deps.logger.info(
          `chat: pruned ${removed.handles} button handles and ${removed.messages} messages of settled questions, ${removed.offsets} offsets of deleted providers`,
        );
      }
    } catch {
      // database closed during shutdown
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.bus.off("interaction.changed", this.onChanged);
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
