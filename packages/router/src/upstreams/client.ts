import { Agent, type Dispatcher, request } from "undici";

export interface UpstreamTimeouts {
  connectMs: number;
  headersMs: number;
  /** Silence allowed between streamed chunks. */
  bodyMs: number;
}

/** Spec 3: 30 s to connect, 300 s to response headers, 300 s of silence between chunks. */
export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 30_000, headersMs: 300_000, bodyMs: 300_000 };

/**
 * The upstream HTTP client: undici follows no redirects unless asked, sends no cookies of its own, and ignores the
 * system's proxy variables (no ProxyAgent is installed), so a key reaches only the host it was saved for.
 */
export class UpstreamClient {
  private readonly agent: Agent;

  constructor(readonly timeouts: UpstreamTimeouts = DEFAULT_TIMEOUTS) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 30_000,
      connections: 256,
    });
  }

  send(
    url: string,
    options: { method: "GET" | "POST"; headers: Record<string, string>; body?: string; signal: AbortSignal },
  ): Promise<Dispatcher.ResponseData> {
    return request(url, {
      method: options.method,
      headers: options.headers,
      ...(options.body === undefined ? {} : { body: options.body }),
      signal: options.signal,
      dispatcher: this.agent,
    });
  }

  close(): Promise<void> {
    return this.agent.close();
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
