import { type SessionDto, type SessionsPayload, sessionsPayload } from "@notify/contracts/sessions";
import type { Clock } from "../domain/clock.js";
import type { OutboundRoute, ProviderProfile } from "../outbox/types.js";
import { deviceKeys } from "../relay/device-keys.js";
import { machineName } from "../relay/machine.js";
import { post, relaySettings } from "../relay/relay-adapter.js";
import type { SessionRegistry } from "./sessions.js";

/** What the publisher needs of the outbound configuration: the relay profiles, their routes and sealed secrets. */
export interface RelayProfiles {
  listProfiles(): ProviderProfile[];
  listRoutes(): OutboundRoute[];
  openSecrets(id: string): Record<string, string>;
}

export interface SessionsPublisherOptions {
  /** Changes within this long go as one summary (default 2 s). */
  debounceMs?: number;
  /** How often the summary is looked at without a change (a working session turning idle; default 60 s). */
  recheckMs?: number;
  /** After a failed send, the next try (default 15 s). */
  retryMs?: number;
  log?: (line: string) => void;
}

/** The parts of a summary that change what the phone shows: not the last-active times of every tool call. */
function fingerprintOf(payload: SessionsPayload): string {
  return JSON.stringify(
    payload.sessions.map((session) => [
      session.id,
      session.agent,
      session.project ?? "",
      session.state,
      session.open_questions,
      session.last_message ?? "",
    ]),
  );
}

/**
 * The phone's Sessions view (issue 37, item 1): the phone sees only sealed envelopes, so the broker seals its sessions
 * summary (a `sessions` payload, contracts/relay/sessions-payload.ts) to the phones of each enabled relay provider
 * when what the summary shows changes: debounced, one envelope per installation, nothing sent while nothing changed.
 * The relay stores it like any envelope and never reads it.
 */
export class SessionsRelayPublisher {
  private readonly debounceMs: number;
  private readonly recheckMs: number;
  private readonly retryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** By relay provider id: the fingerprint of the summary its phones have. */
  private readonly sent = new Map<string, string>();
  private readonly controller = new AbortController();
  /** Summaries sent so far (each envelope's idempotency key is its own). */
  private sends = 0;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly profiles: RelayProfiles,
    private readonly clock: Clock,
    options: SessionsPublisherOptions = {},
    private readonly machine: (chosen?: unknown) => string = machineName,
  ) {
    this.debounceMs = options.debounceMs ?? 2_000;
    this.recheckMs = options.recheckMs ?? 60_000;
    this.retryMs = options.retryMs ?? 15_000;
    this.log = options.log ?? (() => {});
  }

  private readonly log: (line: string) => void;

  /** Listens for session changes and looks again every `recheckMs`; the first summary goes out at once. */
  start(): void {
    this.registry.onChange(() => this.schedule(this.debounceMs));
    this.recheck = setInterval(() => this.schedule(0), this.recheckMs);
    this.recheck.unref();
    this.schedule(0);
  }

  /** Sends what changed within `delayMs` (an earlier planned send stays planned). */
  schedule(delayMs: number): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.publish();
    }, delayMs);
    this.timer.unref();
  }

  /** Sends the summary to every relay installation whose phones do not have it yet; one run at a time. */
  async publish(): Promise<void> {
    if (this.sending !== undefined) {
      this.again = true;
      return this.sending;
    }
    this.sending = this.run().finally(() => {
      this.sending = undefined;
      if (this.again) {
        this.again = false;
        this.schedule(0);
      }
    });
    return this.sending;
  }

  private async run(): Promise<void> {
    // The phones a route reaches: an enabled relay provider with an enabled route. The agents' words go only where a
    // route carries messages (IncludeMessage); a titles-only route's phones get the states without them.
    const routes = this.profiles.listRoutes().filter((route) => route.enabled);
    const relays = this.profiles
      .listProfiles()
      .filter((profile) => profile.kind === "relay" && profile.enabled)
      .filter((profile) => routes.some((route) => route.providerId === profile.id));
    if (relays.length === 0 || this.stopped) return;
    let sessions: SessionDto[];
    try {
      sessions = this.registry.list();
    } catch {
      return; // The database closing under a late tick.
    }
    const nowMs = this.clock.now();
    let failed = false;
    for (const profile of relays) {
      // The machine as its questions name it: the name chosen at enrollment, else the host name.
      const payload = sessionsPayload(sessions, this.machine(profile.settings.machine), nowMs);
      if (!routes.some((route) => route.providerId === profile.id && route.includeMessage)) {
        for (const session of payload.sessions) delete session.last_message;
      }
      // Nothing to show and nothing shown yet: no envelope (a broker whose agents never ran sends none).
      if (payload.sessions.length === 0 && !this.sent.has(profile.id)) continue;
      const fingerprint = `${payload.machine}\n${fingerprintOf(payload)}`;
      let secrets: Record<string, string>;
      try {
        secrets = this.profiles.openSecrets(profile.id);
      } catch {
        continue; // Unreadable secrets: the outbox reports them for its own deliveries.
      }
      const signal = AbortSignal.any([this.controller.signal, AbortSignal.timeout(30_000)]);
      const relay = relaySettings(profile.settings);
      // The devices are part of what was sent: a phone paired since gets the summary at the next look.
      const devices = await deviceKeys(relay.url, relay.installationId, secrets.installationToken ?? "", signal).catch(
        () => ({ ok: false as const, code: "relay_unreachable" }),
      );
      if (devices.ok && devices.devices.length === 0) continue;
      const ids = devices.ok ? devices.devices.map((device) => device.device_id).sort() : [];
      const sentKey = `${fingerprint}\n${ids.join(",")}`;
      if (devices.ok && this.sent.get(profile.id) === sentKey) continue;
      const result = await post(payload, profile.settings, secrets, {
        // A new envelope each time: an earlier summary with the same content is not the current one.
        idempotencyKey: `sessions.${this.clock.now()}.${++this.sends}`,
        signal,
      }).catch(() => ({ ok: false as const, code: "relay_unreachable" }));
      if (result.ok) this.sent.set(profile.id, sentKey);
      else {
        failed = true;
        this.log(`sessions summary to relay provider ${profile.name}: ${"code" in result ? result.code : "failed"}`);
      }
    }
    if (failed && !this.stopped) setTimeout(() => this.schedule(0), this.retryMs).unref();
  }

  stop(): void {
    this.stopped = true;
    this.controller.abort();
    clearTimeout(this.timer);
    clearInterval(this.recheck);
  }
}
