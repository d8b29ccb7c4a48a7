import type * as z from "zod";
import type { ArcContext, ArcEvent, ArcSender, CreatedRequest, Outcome, UpdatedRequest } from "./arc/schemas.js";
import { ARC_VERSION } from "./arc/version.js";
import type { InteractionKind, InteractionStatus, NotificationStatus, Priority } from "./enums.js";

/**
 * A small typed client for TypeScript agents that produce ARC 0.2 events for a Notify broker (docs/arc.md):
 * `create`, `update`, `resolve` post to `POST /v1/events`, and `waitForAnswer` long-polls
 * `GET /v1/interactions/{id}/wait` until the question is settled. Every event gets a fresh `event_id`
 * (`crypto.randomUUID()`) unless one is given, and `occurred_at` is the current time.
 */

/** request.created's `request` as a producer writes it. */
export type ArcCreateRequest = z.input<typeof CreatedRequest>;
/** request.updated's `request` without the key (the key is the first argument of `update`). */
export type ArcUpdateRequest = Omit<z.input<typeof UpdatedRequest>, "key">;
export type ArcOutcome = z.infer<typeof Outcome>;
export type ArcExtensions = Record<`x-${string}`, unknown> & {
  "x-notify"?: { notification_type?: string };
  /** A context posted first with `POST /v1/contexts` (docs/api.md, "Item context"). */
  "x-notify-context"?: { id: string };
};

/** Options of every event-sending call. */
export interface ArcEventOptions {
  /** Defaults to `crypto.randomUUID()`. Reuse an event_id only to retry the very same event. */
  eventId?: string;
  context?: ArcContext;
  extensions?: ArcExtensions;
}

/** The broker's notification (docs/api.md, "Notification object"), as returned by POST /v1/events. */
export interface ArcNotification {
  id: string;
  key?: string;
  agent: string;
  agentInstance?: string;
  project?: string;
  type: string;
  priority: Priority;
  title: string;
  message: string;
  cwd?: string;
  pid?: number;
  status: NotificationStatus;
  createdAt: string;
  updatedAt: string;
  resolvedAt?: string;
  metadata?: Record<string, unknown>;
}

export type ArcInteractionStatus = InteractionStatus;

/** The broker's durable question (docs/api.md, "Interaction object"). It holds the nonce: keep it out of logs. */
export interface ArcInteraction {
  id: string;
  key?: string;
  agent: string;
  agent_instance?: string;
  project?: string;
  session_id?: string;
  turn_id?: string;
  native_request_id?: string;
  kind: InteractionKind;
  prompt: string;
  choices: { id: string; label: string; detail?: string }[];
  text_max_length: number;
  status: ArcInteractionStatus;
  request_digest: string;
  nonce: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  answered_at?: string;
  response?: {
    response_id: string;
    choice_id?: string;
    text?: string;
    source: string;
    device_id?: string;
    created_at: string;
  };
}

/** The body of every successful POST /v1/events: `interaction` is null unless the event was answerable. */
export interface ArcEventResult {
  /** 201 when a new request was persisted, 200 otherwise (update, answer, resolution, in-place refresh, replay). */
  status: number;
  notification: ArcNotification | null;
  interaction: ArcInteraction | null;
}

/** A non-2xx answer from the broker: the status and the `error` string of its `{error}` body. */
export class ArcHttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
  ) {
    super(`HTTP ${status}: ${error}`);
    this.name = "ArcHttpError";
  }
}

export interface ArcProducerOptions {
  /** The broker's base URL, e.g. `http://127.0.0.1:47821`. */
  baseUrl: string;
  /** The broker's bearer token (`notify token`). */
  token: string;
  /** Who produces the events; `sender.id` with an event_id is an event's identity. */
  sender: ArcSender;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export interface WaitOptions {
  /** Aborts the wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Seconds per long-poll (the broker clamps it to 1-300). Default 60. */
  pollTimeoutSeconds?: number;
  /**
   * Stop waiting at this time and return the interaction as it is then (normally still `pending`). Without a
   * deadline the wait ends when the question is settled, at the latest when it expires.
   */
  deadline?: Date;
}

export class ArcProducer {
  private readonly baseUrl: string;
  private readonly token: string;
  private readonly sender: ArcSender;
  private readonly fetch: typeof globalThis.fetch;

  constructor(options: ArcProducerOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.sender = { ...options.sender };
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** request.created: opens a condition, or refreshes the active one with the same `request.key` in place. */
  create(request: ArcCreateRequest, options: ArcEventOptions = {}): Promise<ArcEventResult> {
    return this.send("request.created", request, options);
  }

  /** request.updated: replaces the visible state of the active condition under `key` (404 when there is none). */
  update(key: string, request: ArcUpdateRequest, options: ArcEventOptions = {}): Promise<ArcEventResult> {
    return this.send("request.updated", { ...request, key }, options);
  }

  /** request.resolved: closes the condition under `key` and withdraws its open question. */
  resolve(key: string, outcome?: ArcOutcome, options: ArcEventOptions = {}): Promise<ArcEventResult> {
    const request = outcome === undefined ? { key } : { key, outcome };
    return this.send("request.resolved", request, options);
  }

  /**
   * Long-polls `GET /v1/interactions/{id}/wait` until the interaction is no longer `pending` (answered, expired,
   * cancelled or superseded) and returns it. At `deadline` it returns the current state instead; as the broker
   * waits at least one second per poll, a deadline is kept to within about a second.
   */
  async waitForAnswer(interactionId: string, options: WaitOptions = {}): Promise<ArcInteraction> {
    const pollSeconds = options.pollTimeoutSeconds ?? 60;
    const path = `/v1/interactions/${encodeURIComponent(interactionId)}`;
    for (;;) {
      options.signal?.throwIfAborted();
      let seconds = pollSeconds;
      if (options.deadline !== undefined) {
        const left = (options.deadline.getTime() - Date.now()) / 1000;
        if (left <= 0) return (await this.call("GET", path, undefined, options.signal)).body as ArcInteraction;
        seconds = Math.min(seconds, Math.max(1, Math.ceil(left)));
      }
      const reply = await this.call("GET", `${path}/wait?timeout=${seconds}`, undefined, options.signal);
      const interaction = reply.body as ArcInteraction;
      if (interaction.status !== "pending") return interaction;
    }
  }

  /** Posts one event of `type` with the envelope filled in (arc_version, event_id, occurred_at, sender). */
  private async send(
    type: ArcEvent["event_type"],
    request: unknown,
    options: ArcEventOptions,
  ): Promise<ArcEventResult> {
    const event: Record<string, unknown> = {
      arc_version: ARC_VERSION,
      event_id: options.eventId ?? crypto.randomUUID(),
      event_type: type,
      occurred_at: new Date().toISOString(),
      sender: this.sender,
      request,
    };
    if (options.context !== undefined) event.context = options.context;
    if (options.extensions !== undefined) event.extensions = options.extensions;
    const reply = await this.call("POST", "/v1/events", event);
    const body = reply.body as Omit<ArcEventResult, "status">;
    return { status: reply.status, notification: body.notification, interaction: body.interaction };
  }

  /** One HTTP call with the bearer token; a non-2xx answer throws ArcHttpError. */
  private async call(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: "application/json" };
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (signal !== undefined) init.signal = signal;
    const response = await this.fetch(`${this.baseUrl}${path}`, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed as { error?: unknown } | undefined)?.error;
      throw new ArcHttpError(response.status, typeof error === "string" ? error : response.statusText || text);
    }
    return { status: response.status, body: parsed };
  }
}
