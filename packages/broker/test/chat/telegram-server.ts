import type { IncomingMessage, ServerResponse } from "node:http";
import type { Json } from "@notify/test-kit";
import { LoopbackServer } from "./loopback-server.js";

export interface TgCall {
  method: string;
  body: Json;
}

export interface TgUser {
  id: number;
  first_name: string;
  last_name?: string;
}

/**
 * A loopback Telegram Bot API (https://core.telegram.org/bots/api): `POST /bot<token>/<method>` with JSON,
 * answered `{ok, result}` or `{ok: false, error_code, description, parameters?}`. getUpdates long-polls with
 * `offset` (updates below it are confirmed and forgotten) and `timeout`; a 429 with `parameters.retry_after` can
 * be queued for any method; answerCallbackQuery can be held (a broker killed while it waits); any method can be
 * made to stall (a server that takes the request and never answers); updates can be pushed raw (malformed, or with
 * a chosen update_id).
 */
export class TelegramServer extends LoopbackServer {
  readonly calls: TgCall[] = [];
  private nextUpdateId = 1000;
  private nextMessageId = 1;
  private updates: Json[] = [];
  private waiters: (() => void)[] = [];
  /** The highest offset a getUpdates confirmed. */
  confirmedOffset = 0;
  private failures = new Map<string, { status: number; retryAfter?: number }[]>();
  private stalls = new Map<string, number>();
  holdCallbacks = false;

  constructor(readonly token: string) {
    super();
  }

  override async close(): Promise<void> {
    for (const wake of this.waiters.splice(0)) wake();
    await super.close();
  }

  /** The next `count` calls of `method` fail with `status` (429 with retry_after seconds). */
  fail(method: string, status: number, count = 1, retryAfter?: number): void {
    const list = this.failures.get(method) ?? [];
    for (let index = 0; index < count; index++)
      list.push({ status, ...(retryAfter !== undefined ? { retryAfter } : {}) });
    this.failures.set(method, list);
  }

  /** The next `count` calls of `method` are never answered (their connection stays open until close()). */
  stall(method: string, count = 1): void {
    this.stalls.set(method, (this.stalls.get(method) ?? 0) + count);
  }

  private push(update: Json): number {
    const id = this.nextUpdateId++;
    this.updates.push({ update_id: id, ...update });
    for (const wake of this.waiters.splice(0)) wake();
    return id;
  }

  /** An update as given, with its own update_id (later ids continue above it). */
  pushRaw(update: Json): void {
    if (typeof update.update_id === "number") this.nextUpdateId = Math.max(this.nextUpdateId, update.update_id + 1);
    this.updates.push(update);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The update_id the next pushed update gets. */
  get nextId(): number {
    return this.nextUpdateId;
  }

  /** A button tap on a message (callback_query). */
  tap(message: Json, data: string, from: TgUser, chatId: number = message.chat.id): number {
    return this.push({
      callback_query: {
        id: `cq${this.nextUpdateId}`,
        from: { is_bot: false, ...from },
        message: { ...message, chat: { id: chatId, type: chatId > 0 ? "private" : "group" } },
        chat_instance: "1",
        data,
      },
    });
  }

  /** A text message replying to `messageId`. */
  reply(messageId: number, text: string, from: TgUser, chatId: number): number {
    return this.push({
      message: {
        message_id: this.nextMessageId++,
        from: { is_bot: false, ...from },
        chat: { id: chatId, type: chatId > 0 ? "private" : "group" },
        date: Math.floor(Date.now() / 1000),
        text,
        reply_to_message: { message_id: messageId, chat: { id: chatId, type: "private" }, date: 0 },
      },
    });
  }

  callsOf(method: string): Json[] {
    return this.calls.filter((call) => call.method === method).map((call) => call.body);
  }

  /** Messages sent with their `message_id` (as the Bot API returned them). */
  sent(): Json[] {
    return this.calls
      .filter((call) => call.method === "sendMessage" && call.body.result)
      .map((call) => call.body.result);
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, text: string): Promise<void> {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.url ?? "");
    const send = (status: number, body: Json) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (!match || request.method !== "POST") return send(404, { ok: false, error_code: 404, description: "Not Found" });
    if (match[1] !== this.token) return send(401, { ok: false, error_code: 401, description: "Unauthorized" });
    const method = match[2] as string;
    const body = text ? JSON.parse(text) : {};
    const stalls = this.stalls.get(method) ?? 0;
    if (stalls > 0) {
      this.stalls.set(method, stalls - 1);
      this.calls.push({ method: `${method}:stalled`, body });
      return;
    }
    const failure = this.failures.get(method)?.shift();
    if (failure) {
      this.calls.push({ method: `${method}:failed`, body });
      return send(failure.status, {
        ok: false,
        error_code: failure.status,
        description: failure.status === 429 ? "Too Many Requests: retry later" : "Internal Server Error",
        ...(failure.retryAfter !== undefined ? { parameters: { retry_after: failure.retryAfter } } : {}),
      });
    }
    const call: TgCall = { method, body };
    this.calls.push(call);
    switch (method) {
      case "sendMessage": {
        const result = {
          message_id: this.nextMessageId++,
          from: { id: Number(this.token.split(":")[0]), is_bot: true, first_name: "Notify" },
          chat: { id: Number(body.chat_id), type: "private" },
          date: Math.floor(Date.now() / 1000),
          text: body.text,
          ...(body.reply_markup?.inline_keyboard ? { reply_markup: body.reply_markup } : {}),
        };
        call.body = { ...body, result };
        return send(200, { ok: true, result });
      }
      case "editMessageText":
        return send(200, { ok: true, result: { message_id: body.message_id, chat: { id: Number(body.chat_id) } } });
      case "answerCallbackQuery":
        if (this.holdCallbacks) return; // never answered: the broker is killed while it waits
        return send(200, { ok: true, result: true });
      case "getUpdates": {
        const offset = typeof body.offset === "number" ? body.offset : 0;
        if (offset > this.confirmedOffset) this.confirmedOffset = offset;
        this.updates = this.updates.filter((update) => update.update_id >= this.confirmedOffset);
        if (this.updates.length === 0 && body.timeout > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(body.timeout, 5) * 1000);
            this.waiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
        if (response.destroyed) return;
        return send(200, { ok: true, result: this.updates.slice(0, 100) });
      }
      default:
        return send(404, { ok: false, error_code: 404, description: "Not Found: method not found" });
    }
  }
}
