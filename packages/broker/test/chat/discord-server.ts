import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Json } from "@notify/test-kit";
import type { WebSocket } from "ws";
import { LoopbackServer } from "./loopback-server.js";

export type { Json } from "@notify/test-kit";

export interface DiscordCall {
  method: string;
  /** The path below `/api/v10`: `channels/C/messages`, `interactions/I/T/callback`. */
  path: string;
  /** The `Authorization` header as sent. */
  authorization: string | undefined;
  body: Json;
}

export interface DiscordUserRef {
  id: string;
  username: string;
}

/** What one Gateway connection received from the client, in order (op and data). */
export interface GatewayConnection {
  received: { op: number; d: Json }[];
  url: string;
  /** When the socket opened and closed (performance.now()). */
  openedMs: number;
  closedMs?: number;
}

interface Session {
  id: string;
  seq: number;
  /** Every dispatch of the session, for a resume to replay what came after the client's `seq`. */
  events: { op: 0; s: number; t: string; d: Json }[];
}

const APPLICATION_ID = "1100000000000000001";
const BOT_USER = { id: "1100000000000000002", username: "notify-bot", bot: true, discriminator: "0" };
const GUILD_ID = "1100000000000000003";

/**
 * A loopback Discord: the REST API (https://discord.com/developers/docs/reference: `/api/v10/...`, JSON,
 * `Authorization: Bot <token>`, errors `{code, message}` with HTTP 4xx, 429 with `retry_after` seconds) and the
 * Gateway (https://discord.com/developers/docs/events/gateway): on connect HELLO (op 10) with a
 * `heartbeat_interval`; IDENTIFY (op 2) with the right token gets READY (op 0) with a `session_id` and a
 * `resume_gateway_url`, a wrong one close code 4004; HEARTBEAT (op 1) gets HEARTBEAT_ACK (op 11) unless the test
 * stalls the gateway; RESUME (op 6) of a known session replays the dispatches after its `seq`, then RESUMED, and
 * of an unknown one gets INVALID_SESSION (op 9, false). Interactions (INTERACTION_CREATE, types 3 and 5) are the
 * test's to send; their callbacks (`POST /interactions/{id}/{token}/callback`) are recorded, once each.
 */
export class DiscordServer extends LoopbackServer {
  readonly calls: DiscordCall[] = [];
  readonly connections: GatewayConnection[] = [];
  /** Messages by `channel id/message id`. */
  readonly messages = new Map<string, Json>();
  /** Interaction callbacks by interaction id. */
  readonly callbacks = new Map<string, Json>();
  /** Heartbeats get no ACK (a stalled, "zombie" connection). */
  stalled = false;
  /** `heartbeat_interval` in HELLO, ms (Discord's is about 41 s). */
  heartbeatMs = 300;
  private socket: WebSocket | undefined;
  private session: Session | undefined;
  private readonly sessions = new Map<string, Session>();
  private readonly tokens = new Map<string, string>();
  private nextId = 1_200_000_000_000_000_000n;

  constructor(readonly botToken: string) {
    super();
  }

  /** The Gateway: where `GET /gateway/bot` points, and READY's `resume_gateway_url`. */
  protected override upgrade(url: URL): string | undefined {
    return url.pathname === "/gateway" || url.pathname === "/resume" ? undefined : "404 Not Found";
  }

  /** The `apiBaseUrl` setting pointing here. */
  get apiBaseUrl(): string {
    return `${this.url}/api/v10`;
  }

  /** The client's sends of one op, over every connection. */
  sent(op: number): Json[] {
    return this.connections.flatMap((connection) => connection.received.filter((entry) => entry.op === op));
  }

  callsOf(method: string, path: RegExp): DiscordCall[] {
    return this.calls.filter((call) => call.method === method && path.test(call.path));
  }

  /** Question messages posted, as stored (ids filled in). */
  posted(): Json[] {
    return [...this.messages.values()];
  }

  /** Drops the socket without a close frame (a network failure). */
  drop(): void {
    this.socket?.terminate();
    this.socket = undefined;
  }

  /** Sends RECONNECT (op 7), as Discord does before it moves a session. */
  reconnect(): void {
    this.socket?.send(JSON.stringify({ op: 7, d: null }));
  }

  /** A tap on button `index` of a posted message (INTERACTION_CREATE, type 3); returns the interaction id. */
  click(message: Json, index: number, user: DiscordUserRef, options: { channelId?: string; customId?: string } = {}) {
    const button = message.components.flatMap((row: Json) => row.components)[index];
    return this.interaction(3, message, user, options.channelId, {
      custom_id: options.customId ?? button.custom_id,
      component_type: 2,
    });
  }

  /** Submits the modal a callback opened (INTERACTION_CREATE, type 5) with `text`; returns the interaction id. */
  submit(message: Json, modal: Json, user: DiscordUserRef, text: string): string {
    const input = modal.components[0].components[0];
    return this.interaction(5, message, user, undefined, {
      custom_id: modal.custom_id,
      components: [{ type: 1, components: [{ type: 4, custom_id: input.custom_id, value: text }] }],
    });
  }

  private interaction(type: number, message: Json, user: DiscordUserRef, channelId: string | undefined, data: Json) {
    const id = this.snowflake();
    const token = `aW50ZXJhY3Rpb246${randomBytes(24).toString("base64url")}`;
    this.tokens.set(id, token);
    this.dispatch("INTERACTION_CREATE", {
      id,
      application_id: APPLICATION_ID,
      type,
      data,
      guild_id: GUILD_ID,
      channel_id: channelId ?? message.channel_id,
      channel: { id: channelId ?? message.channel_id, type: 0 },
      member: { user: { id: user.id, username: user.username, global_name: user.username }, roles: [] },
      token,
      version: 1,
      message,
      locale: "en-US",
    });
    return id;
  }

  /** Sends a dispatch event (op 0) on the session, numbered; kept for a resume to replay. */
  dispatch(t: string, d: Json): void {
    const session = this.session;
    if (!session) throw new Error("no session to dispatch on");
    const event = { op: 0 as const, s: ++session.seq, t, d };
    session.events.push(event);
    this.socket?.send(JSON.stringify(event));
  }

  private snowflake(): string {
    this.nextId += 1n;
    return String(this.nextId);
  }

  protected override connected(ws: WebSocket, url: string): void {
    this.socket?.terminate();
    this.socket = ws;
    const connection: GatewayConnection = { received: [], url, openedMs: performance.now() };
    this.connections.push(connection);
    ws.on("message", (raw) => {
      let payload: Json;
      try {
        payload = JSON.parse(String(raw));
      } catch {
        ws.close(4002, "decode error");
        return;
      }
      connection.received.push({ op: payload.op, d: payload.d });
      switch (payload.op) {
        case 1:
          if (!this.stalled) ws.send(JSON.stringify({ op: 11 }));
          return;
        case 2: {
          if (payload.d?.token !== this.botToken) {
            ws.close(4004, "Authentication failed.");
            return;
          }
          const session: Session = { id: randomBytes(16).toString("hex"), seq: 0, events: [] };
          this.sessions.set(session.id, session);
          this.session = session;
          this.dispatch("READY", {
            v: 10,
            user: BOT_USER,
            guilds: [{ id: GUILD_ID, unavailable: true }],
            session_id: session.id,
            resume_gateway_url: `${this.url.replace(/^http/, "ws")}/resume`,
            application: { id: APPLICATION_ID, flags: 0 },
          });
          return;
        }
        case 6: {
          const session = this.sessions.get(payload.d?.session_id);
          if (!session || payload.d?.token !== this.botToken) {
            ws.send(JSON.stringify({ op: 9, d: false }));
            return;
          }
          this.session = session;
          const after = typeof payload.d.seq === "number" ? payload.d.seq : 0;
          for (const event of session.events) if (event.s > after) ws.send(JSON.stringify(event));
          this.dispatch("RESUMED", {});
          return;
        }
        default:
          return;
      }
    });
    ws.on("close", () => {
      connection.closedMs = performance.now();
      if (this.socket === ws) this.socket = undefined;
    });
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.heartbeatMs } }));
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, text: string): Promise<void> {
    const send = (status: number, body?: Json) => {
      if (body === undefined) {
        response.writeHead(status).end();
        return;
      }
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    const path = /^\/api\/v10\/(.+)$/.exec(request.url ?? "")?.[1];
    if (!path) return send(404, { message: "404: Not Found", code: 0 });
    let body: Json = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return send(400, { message: "400: Bad Request", code: 50109 });
    }
    const method = request.method ?? "GET";
    const authorization = request.headers.authorization;
    this.calls.push({ method, path, authorization, body });
    const callback = /^interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (callback) {
      // An interaction's token authenticates its callback; no bot token is needed.
      const [, id, token] = callback as unknown as [string, string, string];
      if (this.tokens.get(id) !== token) return send(404, { message: "Unknown interaction", code: 10062 });
      if (this.callbacks.has(id)) {
        return send(400, { message: "Interaction has already been acknowledged.", code: 40060 });
      }
      this.callbacks.set(id, body);
      return send(204);
    }
    if (authorization !== `Bot ${this.botToken}`) return send(401, { message: "401: Unauthorized", code: 0 });
    if (method === "GET" && path === "gateway/bot") {
      return send(200, {
        url: `${this.url.replace(/^http/, "ws")}/gateway`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      });
    }
    const post = /^channels\/(\d+)\/messages$/.exec(path);
    if (post && method === "POST") {
      const message = {
        id: this.snowflake(),
        channel_id: post[1],
        type: 0,
        content: body.content,
        components: body.components ?? [],
        author: BOT_USER,
        timestamp: new Date().toISOString(),
      };
      this.messages.set(`${message.channel_id}/${message.id}`, message);
      return send(200, message);
    }
    const patch = /^channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (patch && method === "PATCH") {
      const key = `${patch[1]}/${patch[2]}`;
      const message = this.messages.get(key);
      if (!message) return send(404, { message: "Unknown Message", code: 10008 });
      const updated = { ...message, content: body.content, components: body.components ?? message.components };
      this.messages.set(key, updated);
      return send(200, updated);
    }
    return send(404, { message: "404: Not Found", code: 0 });
  }
}
