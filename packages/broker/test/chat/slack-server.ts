import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Json } from "@notify/test-kit";
import type { WebSocket } from "ws";
import { LoopbackServer } from "./loopback-server.js";

export type { Json } from "@notify/test-kit";
export interface SlackCall {
  method: string;
  /** The Bearer token the call carried (tests check which token each method used). */
  token: string | undefined;
  body: Json;
  result?: Json;
}

export interface SlackUserRef {
  id: string;
  name: string;
}

interface Envelope {
  envelope_id: string;
  type: "interactive" | "events_api";
  accepts_response_payload: boolean;
  retry_attempt: number;
  retry_reason: string;
  payload: Json;
}

interface AckWaiter {
  resolve: (ack: Json) => void;
}

const TEAM = { id: "T0NOTIFY1", domain: "notify-test" };
const APP_ID = "A0NOTIFY1";

/**
 * A loopback Slack: the Web API (https://api.slack.com/web: `POST /api/<method>`, JSON body, `Authorization:
 * Bearer`, answered HTTP 200 `{ok: true, ...}` or `{ok: false, error}`, HTTP 429 with `Retry-After` seconds) and
 * a Socket Mode WebSocket server (https://api.slack.com/apis/socket-mode): `apps.connections.open` with the
 * app-level token returns a one-time `ws://` URL; on connect the server sends `hello`; envelopes (`interactive`
 * with block_actions / view_submission payloads, `events_api` with an event_callback) carry an `envelope_id` the
 * client must send back as `{envelope_id, payload?}`; an envelope not acknowledged when its socket goes is sent
 * again on the next connection with `retry_attempt` + 1, as Slack does. `disconnect` envelopes and dropped
 * sockets are the test's to send. For the failures a client must survive: the URL handed out can be rewritten, a
 * socket can be left without its `hello`, or be sent `disconnect` right after it.
 */
export class SlackServer extends LoopbackServer {
  readonly calls: SlackCall[] = [];
  /** Every envelope sent, with its ack (undefined until acknowledged). */
  readonly envelopes: { envelope: Envelope; ack?: Json; ackMs?: number; sentMs: number }[] = [];
  /** Connections opened (after `hello`). */
  connections = 0;
  /** WebSocket upgrades accepted, with or without a `hello`. */
  upgrades = 0;
  /** Rewrites the Socket Mode URL apps.connections.open answers with. */
  rewriteSocketUrl: ((url: string) => string) | undefined;
  /** Sockets get no `hello` (a server that takes the connection and then says nothing). */
  silent = false;
  /** Every socket is sent `disconnect` right after its `hello`. */
  disconnectOnHello = false;
  /** The next this-many acks are lost on the way (a broker killed after it acted, before Slack heard). */
  loseAcks = 0;
  /** Envelope ids whose ack was lost. */
  readonly lostAcks: string[] = [];
  private socket: WebSocket | undefined;
  private readonly tickets = new Set<string>();
  private readonly failures = new Map<string, { status: number; error?: string; retryAfter?: number }[]>();
  private readonly ackWaiters = new Map<string, AckWaiter[]>();
  private readonly connectionWaiters: (() => void)[] = [];
  private nextTs = 1_700_000_000_000_100;
  private nextId = 1;
  /** Messages by `channel ts`. */
  readonly messages = new Map<string, Json>();
  /** Views opened, newest last. */
  readonly views: Json[] = [];
  /** Channel names (`#name`) and the ids postMessage answers with. */
  readonly channels = new Map<string, string>([["#agents", "C0AGENTS1"]]);

  constructor(
    readonly appToken: string,
    readonly botToken: string,
  ) {
    super();
  }

  /** A socket opens only with a ticket apps.connections.open handed out, once. */
  protected override upgrade(url: URL): string | undefined {
    const ticket = url.searchParams.get("ticket") ?? "";
    return url.pathname === "/link/" && this.tickets.delete(ticket) ? undefined : "401 Unauthorized";
  }

  /** The `apiBaseUrl` setting pointing here. */
  get apiBaseUrl(): string {
    return `${this.url}/api`;
  }

  /** The next `count` calls of `method` fail: an HTTP status (429 with Retry-After seconds) or `ok:false` error. */
  fail(method: string, failure: { status?: number; error?: string; retryAfter?: number }, count = 1): void {
    const list = this.failures.get(method) ?? [];
    for (let index = 0; index < count; index++) list.push({ status: failure.status ?? 200, ...failure });
    this.failures.set(method, list);
  }

  callsOf(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Question messages posted with buttons, as stored (channel id and ts filled in). */
  posted(): Json[] {
    return this.callsOf("chat.postMessage")
      .filter((call) => call.result)
      .map((call) => call.result.message);
  }

  /** Resolves once `count` connections have said hello (deadline: the caller's `until`). */
  waitForConnections(count: number): Promise<void> {
    if (this.connections >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.connections >= count) resolve();
        else this.connectionWaiters.push(check);
      };
      this.connectionWaiters.push(check);
    });
  }

  get open(): boolean {
    return this.socket !== undefined && this.socket.readyState === this.socket.OPEN;
  }

  /** Asks the client to reconnect, as Slack does before it recycles a connection. */
  disconnect(reason: "refresh_requested" | "warning" | "link_disabled" = "refresh_requested"): void {
    this.socket?.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "applink-test" } }));
  }

  /** Drops the socket without a close handshake (a network failure). */
  drop(): void {
    this.socket?.terminate();
    this.socket = undefined;
  }

  /** Resolves with the ack of `envelopeId` (its payload, if any), or rejects after `deadlineMs`. */
  ack(envelopeId: string, deadlineMs = 30_000): Promise<Json> {
    const done = this.envelopes.find((entry) => entry.envelope.envelope_id === envelopeId);
    if (done?.ack !== undefined) return Promise.resolve(done.ack);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`envelope ${envelopeId} not acknowledged in ${deadlineMs} ms`)),
        deadlineMs,
      );
      const list = this.ackWaiters.get(envelopeId) ?? [];
      list.push({
        resolve: (ack) => {
          clearTimeout(timer);
          resolve(ack);
        },
      });
      this.ackWaiters.set(envelopeId, list);
    });
  }

  /** A button click on a posted message (block_actions); `channel` overrides where the click came from. */
  click(
    message: Json,
    actionIndex: number,
    user: SlackUserRef,
    options: { channel?: string; value?: string } = {},
  ): string {
    const channel = options.channel ?? message.channel;
    const actions = message.blocks.find((block: Json) => block.type === "actions");
    const button = actions.elements[actionIndex];
    const actionTs = this.stamp();
    return this.send("interactive", true, {
      type: "block_actions",
      user: { id: user.id, username: user.name, name: user.name, team_id: TEAM.id },
      api_app_id: APP_ID,
      token: "verification-token-unused",
      container: { type: "message", message_ts: message.ts, channel_id: channel, is_ephemeral: false },
      trigger_id: `${this.nextId++}.${TEAM.id}.${randomBytes(8).toString("hex")}`,
      team: TEAM,
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: channel, name: "agents" },
      message: { ...message, channel: undefined },
      state: { values: {} },
      response_url: `${this.url}/actions/${TEAM.id}/1/x`,
      actions: [
        {
          action_id: button.action_id,
          block_id: actions.block_id,
          text: button.text,
          value: options.value ?? button.value,
          style: button.style,
          type: "button",
          action_ts: actionTs,
        },
      ],
    });
  }

  /** Submits the answer modal `view` (as views.open received it) with `text`. */
  submit(view: Json, user: SlackUserRef, text: string): string {
    const input = view.blocks.find((block: Json) => block.type === "input");
    return this.send("interactive", true, {
      type: "view_submission",
      team: TEAM,
      user: { id: user.id, username: user.name, name: user.name, team_id: TEAM.id },
      api_app_id: APP_ID,
      token: "verification-token-unused",
      trigger_id: `${this.nextId++}.${TEAM.id}.${randomBytes(8).toString("hex")}`,
      view: {
        ...view,
        id: view.id,
        team_id: TEAM.id,
        state: {
          values: {
            [input.block_id]: { [input.element.action_id]: { type: "plain_text_input", value: text } },
          },
        },
        hash: randomBytes(6).toString("hex"),
        app_id: APP_ID,
        bot_id: "B0NOTIFY1",
      },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    });
  }

  /** A message in a thread (events_api, event_callback with a message event). */
  threadReply(channel: string, threadTs: string, user: SlackUserRef, text: string): string {
    const ts = this.stamp();
    return this.send("events_api", false, {
      token: "verification-token-unused",
      team_id: TEAM.id,
      context_team_id: TEAM.id,
      api_app_id: APP_ID,
      event: {
        type: "message",
        user: user.id,
        text,
        ts,
        thread_ts: threadTs,
        parent_user_id: "U0NOTIFYBOT",
        team: TEAM.id,
        channel,
        event_ts: ts,
        channel_type: "channel",
      },
      type: "event_callback",
      event_id: `Ev${String(this.nextId++).padStart(8, "0")}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: TEAM.id, user_id: "U0NOTIFYBOT", is_bot: true }],
      is_ext_shared_channel: false,
    });
  }

  private stamp(): string {
    const value = this.nextTs++;
    return `${String(value).slice(0, 10)}.${String(value).slice(10)}`;
  }

  private send(type: Envelope["type"], accepts: boolean, payload: Json): string {
    const envelope: Envelope = {
      envelope_id: `${randomBytes(4).toString("hex")}-${randomBytes(2).toString("hex")}-${randomBytes(6).toString("hex")}`,
      type,
      accepts_response_payload: accepts,
      retry_attempt: 0,
      retry_reason: "",
      payload,
    };
    this.envelopes.push({ envelope, sentMs: performance.now() });
    this.socket?.send(JSON.stringify(envelope));
    return envelope.envelope_id;
  }

  protected override connected(ws: WebSocket): void {
    this.socket?.terminate();
    this.socket = ws;
    this.upgrades++;
    ws.on("message", (data) => {
      let message: Json;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      const id = message?.envelope_id;
      const entry = this.envelopes.find((candidate) => candidate.envelope.envelope_id === id);
      if (!entry || entry.ack !== undefined) return;
      if (this.loseAcks > 0) {
        this.loseAcks--;
        this.lostAcks.push(id);
        return;
      }
      entry.ack = message.payload ?? {};
      entry.ackMs = performance.now();
      for (const waiter of this.ackWaiters.get(id) ?? []) waiter.resolve(entry.ack);
      this.ackWaiters.delete(id);
    });
    ws.on("close", () => {
      if (this.socket === ws) this.socket = undefined;
    });
    if (this.silent) return;
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: 1,
        debug_info: { host: "applink-test", build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: APP_ID },
      }),
    );
    this.connections++;
    for (const wake of this.connectionWaiters.splice(0)) wake();
    if (this.disconnectOnHello) {
      this.disconnect();
      return;
    }
    // Slack redelivers what the last connection did not acknowledge.
    for (const entry of this.envelopes) {
      if (entry.ack !== undefined) continue;
      entry.envelope.retry_attempt++;
      entry.envelope.retry_reason = "timeout";
      ws.send(JSON.stringify(entry.envelope));
    }
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, text: string): Promise<void> {
    const send = (status: number, body: Json, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      response.end(JSON.stringify(body));
    };
    const match = /^\/api\/([a-zA-Z.]+)$/.exec(request.url ?? "");
    if (!match || request.method !== "POST") return send(404, { ok: false, error: "unknown_method" });
    const method = match[1] as string;
    const auth = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    let body: Json = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return send(200, { ok: false, error: "invalid_json" });
    }
    const call: SlackCall = { method, token: auth, body };
    this.calls.push(call);
    if (auth === undefined) return send(200, { ok: false, error: "not_authed" });
    const wanted = method === "apps.connections.open" ? this.appToken : this.botToken;
    if (auth !== wanted) {
      // A bot token on connections.open, or the app token on a bot method, is the wrong kind of token.
      const other = method === "apps.connections.open" ? this.botToken : this.appToken;
      return send(200, { ok: false, error: auth === other ? "not_allowed_token_type" : "invalid_auth" });
    }
    const failure = this.failures.get(method)?.shift();
    if (failure) {
      call.method = `${method}:failed`;
      if (failure.status === 429) {
        return send(
          429,
          { ok: false, error: "ratelimited" },
          failure.retryAfter !== undefined ? { "retry-after": String(failure.retryAfter) } : {},
        );
      }
      if (failure.status !== 200) return send(failure.status, { ok: false, error: "internal_error" });
      return send(200, { ok: false, error: failure.error ?? "internal_error" });
    }
    const ok = (result: Json) => {
      call.result = result;
      send(200, { ok: true, ...result });
    };
    switch (method) {
      case "apps.connections.open": {
        const ticket = randomBytes(12).toString("hex");
        this.tickets.add(ticket);
        const url = `${this.url.replace(/^http/, "ws")}/link/?ticket=${ticket}`;
        return ok({ url: this.rewriteSocketUrl ? this.rewriteSocketUrl(url) : url });
      }
      case "chat.postMessage": {
        const channel = this.channels.get(body.channel) ?? body.channel;
        if (typeof channel !== "string" || !/^[CGD][A-Z0-9]+$/.test(channel)) {
          return send(200, { ok: false, error: "channel_not_found" });
        }
        if (typeof body.text !== "string" && !Array.isArray(body.blocks)) {
          return send(200, { ok: false, error: "no_text" });
        }
        const ts = this.stamp();
        const message = {
          type: "message",
          subtype: undefined,
          text: body.text,
          user: "U0NOTIFYBOT",
          bot_id: "B0NOTIFY1",
          app_id: APP_ID,
          ts,
          team: TEAM.id,
          blocks: body.blocks,
          channel,
        };
        this.messages.set(`${channel} ${ts}`, message);
        return ok({ channel, ts, message });
      }
      case "chat.update": {
        const message = this.messages.get(`${body.channel} ${body.ts}`);
        if (!message) return send(200, { ok: false, error: "message_not_found" });
        // A new object: what a test kept of the message as posted stays as it was.
        const updated = { ...message, text: body.text, blocks: body.blocks };
        this.messages.set(`${body.channel} ${body.ts}`, updated);
        return ok({ channel: body.channel, ts: body.ts, text: body.text, message: updated });
      }
      case "chat.postEphemeral":
        if (typeof body.user !== "string" || typeof body.channel !== "string") {
          return send(200, { ok: false, error: "user_not_in_channel" });
        }
        return ok({ message_ts: this.stamp() });
      case "views.open": {
        if (typeof body.trigger_id !== "string" || body.trigger_id === "") {
          return send(200, { ok: false, error: "invalid_trigger_id" });
        }
        const view = { id: `V${String(this.nextId++).padStart(8, "0")}`, ...body.view };
        this.views.push(view);
        return ok({ view });
      }
      default:
        return send(200, { ok: false, error: "unknown_method" });
    }
  }
}
