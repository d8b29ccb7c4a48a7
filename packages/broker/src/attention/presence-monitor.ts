import type { PresenceResponse, PresenceSource, PresenceStateName } from "@notify/contracts";
import { DEFAULT_AWAY_AFTER_SECONDS } from "../config/settings.js";
import type { Clock } from "../domain/clock.js";
import { isoTime } from "../domain/clock.js";

/**
 * Whether the person is at this computer (docs/routing.md, "Presence"): one
 * combined state from the signals the broker has, each source reporting its own reading by name.
 */

/** One source's reading. `locked` marks an away that outranks any presence (the screen is locked). */
export interface PresenceSignal extends PresenceSource {
  locked?: boolean;
}

export interface PresenceSnapshot {
  state: PresenceStateName;
  /** When the combined state began (ms). */
  since: number;
  sources: PresenceSignal[];
}

/**
 * A locked session is away whatever else is said; otherwise any source seeing the person makes them present, any
 * source seeing them gone (idle) makes them away, and no signal at all is unknown.
 */
export function combinePresence(signals: readonly PresenceSignal[]): PresenceStateName {
  if (signals.some((signal) => signal.locked)) return "away";
  if (signals.some((signal) => signal.state === "present")) return "present";
  if (signals.some((signal) => signal.state === "away")) return "away";
  return "unknown";
}

/**
 * How long a page that said it was hidden still vouches for the person: a page unloading (a reload, a page load inside
 * /ui) says so too, and the page that replaces it needs a moment to load, sign in and report itself visible
 * (docs/routing.md, "The page's activity route"). A page really hidden (another tab, the window minimized) stops
 * counting this much later than it said so.
 */
export const PAGE_HIDDEN_GRACE_MS = 10_000;

type Listener = (snapshot: PresenceSnapshot, previous: PresenceSnapshot) => void;

export class PresenceMonitor {
  private readonly signals = new Map<string, PresenceSignal>();
  private state: PresenceStateName = "unknown";
  private since: number;
  private readonly listeners = new Set<Listener>();
  private readonly stops: (() => Promise<void> | void)[] = [];
  /**
   * The /ui pages that said they were used: page id -> last activity (ms), and when the page said it was hidden. A
   * hidden page counts for PAGE_HIDDEN_GRACE_MS more, then it is dropped.
   */
  private readonly pages = new Map<string, { at: number; hiddenAt?: number }>();
  private pageTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    readonly awayAfterSeconds: number = DEFAULT_AWAY_AFTER_SECONDS,
  ) {
    this.since = clock.now();
    this.report({ name: "web", state: "unknown", detail: "no visible page has reported activity" });
  }

  snapshot(): PresenceSnapshot {
    return {
      state: this.state,
      since: this.since,
      sources: [...this.signals.values()].map((signal) => ({ ...signal })),
    };
  }

  /** GET /ui/api/presence. */
  response(): PresenceResponse {
    const { state, since, sources } = this.snapshot();
    return {
      state,
      since: isoTime(since),
      sources: sources.map(({ name, state, detail }) => ({ name, state, detail })),
    };
  }

  /** Called on every change of the combined state (not on a source's detail alone); returns the unsubscribe. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A source's new reading; the combined state follows. */
  report(signal: PresenceSignal): void {
    this.signals.set(signal.name, { ...signal });
    const state = combinePresence([...this.signals.values()]);
    if (state === this.state) return;
    const previous = this.snapshot();
    this.state = state;
    this.since = this.clock.now();
    const current = this.snapshot();
    for (const listener of this.listeners) {
      try {
        listener(current, previous);
      } catch {
        // One listener's failure does not stop the others, nor the source that reported.
      }
    }
  }

  /** A source started elsewhere (the session bus) hands over how to stop it. */
  addStop(stop: () => Promise<void> | void): void {
    this.stops.push(stop);
  }

  /**
   * POST /ui/api/presence/activity: a visible page was used (input, or shown again); `visible: false` says the page
   * was hidden, so it no longer vouches for the person once PAGE_HIDDEN_GRACE_MS have passed without it being shown
   * again. A page that unloads (a reload, a page load inside /ui) says it is hidden too, and the page that replaces it
   * reports itself visible under a new id within the grace: presence stays where it was.
   */
  pageActivity(page: string, visible: boolean): void {
    const now = this.clock.now();
    if (visible) this.pages.set(page, { at: now });
    else {
      const known = this.pages.get(page);
      if (known !== undefined && known.hiddenAt === undefined) known.hiddenAt = now;
    }
    this.refreshPages();
  }

  /**
   * Re-reads the pages against awayAfterSeconds and the hidden grace (a timer calls it when the next of them runs
   * out).
   */
  refreshPages(): void {
    const now = this.clock.now();
    const window = this.awayAfterSeconds * 1000;
    let newest: number | undefined;
    let newestVisible: number | undefined;
    let nextChange = Number.POSITIVE_INFINITY;
    let visibleCount = 0;
    let hiddenCount = 0;
    let hiddenLast: number | undefined;
    for (const [page, { at, hiddenAt }] of this.pages) {
      const graceEnds = hiddenAt === undefined ? Number.POSITIVE_INFINITY : hiddenAt + PAGE_HIDDEN_GRACE_MS;
      if (now - at >= window || now >= graceEnds) {
        this.pages.delete(page);
        continue;
      }
      newest = Math.max(newest ?? at, at);
      nextChange = Math.min(nextChange, at + window, graceEnds);
      if (hiddenAt === undefined) {
        visibleCount += 1;
        newestVisible = Math.max(newestVisible ?? at, at);
      } else {
        hiddenCount += 1;
        hiddenLast = Math.max(hiddenLast ?? hiddenAt, hiddenAt);
      }
    }
    if (this.pageTimer) clearTimeout(this.pageTimer);
    this.pageTimer = undefined;
    if (newest === undefined) {
      // A page going quiet says nothing about the person (they may be in their editor): unknown, not away.
      this.report({ name: "web", state: "unknown", detail: "no visible page has reported activity" });
      return;
    }
    const seconds = (at: number): number => Math.max(0, Math.round((now - at) / 1000));
    const parts: string[] = [];
    if (newestVisible !== undefined) {
      const pages = visibleCount === 1 ? "a visible page" : `${visibleCount} visible pages`;
      parts.push(`${pages} reported activity ${seconds(newestVisible)} s ago`);
    }
    if (hiddenLast !== undefined) {
      const pages = hiddenCount === 1 ? "a page" : `${hiddenCount} pages`;
      const left = Math.max(1, Math.ceil((hiddenLast + PAGE_HIDDEN_GRACE_MS - now) / 1000));
      parts.push(
        `${pages} hidden ${seconds(hiddenLast)} s ago still count${hiddenCount === 1 ? "s" : ""} for ${left} s`,
      );
    }
    this.report({ name: "web", state: "present", detail: parts.join("; ") });
    this.pageTimer = setTimeout(() => this.refreshPages(), nextChange - now + 1);
    this.pageTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.pageTimer) clearTimeout(this.pageTimer);
    this.pageTimer = undefined;
    this.listeners.clear();
    for (const stop of this.stops.splice(0)) await stop();
  }
}
