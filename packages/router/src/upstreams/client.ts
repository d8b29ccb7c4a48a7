import type { Agent, Dispatcher } from "undici";

export interface UpstreamTimeouts {
  connectMs: number;
  headersMs: number;
  /** Silence allowed between streamed chunks. */
  bodyMs: number;
}

/** docs/router.md, "Timeouts": 30 s to connect, 300 s to response headers, 300 s of silence between chunks. */
export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 30_000, headersMs: 300_000, bodyMs: 300_000 };

/**
 * The upstream HTTP client: undici follows no redirects unless asked, sends no cookies of its own, and ignores the
 * system's proxy variables (no ProxyAgent is installed), so a key reaches only the host it was saved for.
 */
export class UpstreamClient {
  private agent: Promise<{ agent: Agent; request: typeof import("undici").request }> | undefined;

  constructor(readonly timeouts: UpstreamTimeouts = DEFAULT_TIMEOUTS) {}

  /** undici is loaded on the first upstream request: a broker whose router is off never pays for it. */
  private client(): Promise<{ agent: Agent; request: typeof import("undici").request }> {
    this.agent ??= import("undici").then(({ Agent, request }) => ({
      agent: new Agent({
        connect: { timeout: this.timeouts.connectMs },
        headersTimeout: this.timeouts.headersMs,
        bodyTimeout: this.timeouts.bodyMs,
        keepAliveTimeout: 30_000,
      }),
      request,
    }));
    return this.agent;
  }

  async send(
    url: string,
    options: { method: "GET" | "POST"; headers: Record<string, string>; body?: string | Buffer; signal: AbortSignal },
  ): Promise<Dispatcher.ResponseData> {
    const { agent, request } = await this.client();
    return request(url, {
      method: options.method,
      headers: options.headers,
      ...(options.body === undefined ? {} : { body: options.body }),
      signal: options.signal,
      dispatcher: agent,
    });
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).agent.close();
  }
}

/** A failed upstream connection (before the headers, or while reading the body): a short code, never the text. */
export function connectionFailureCode(error: unknown): "timeout" | "connection_error" {
  const code = String((error as { code?: string }).code ?? "");
  const name = (error as { name?: string }).name;
  if (
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    name === "TimeoutError"
  )
    return "timeout";
  return "connection_error";
}
