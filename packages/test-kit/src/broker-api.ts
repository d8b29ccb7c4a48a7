import type { Json } from "./json.js";

/** What a call on a broker answered: the status, the body parsed as JSON (undefined when empty or not JSON). */
export interface ApiReply<T = Json> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface BrokerApi {
  /** Any path on the broker with the bearer token, a JSON body when given, and extra headers. */
  call<T = Json>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiReply<T>>;
  /** A /v1 call with the bearer token. */
  v1<T = Json>(method: string, path: string, body?: unknown): Promise<ApiReply<T>>;
  /** A /ui/api call with the bearer token and `X-Notify-UI: 1` (what the web UI sends on every change). */
  ui<T = Json>(method: string, path: string, body?: unknown): Promise<ApiReply<T>>;
}

type Lazy<T> = T | (() => T);
const get = <T>(value: Lazy<T>): T => (typeof value === "function" ? (value as () => T)() : value);

/**
 * A fetch client on a running broker. `url` and `token` may be functions, for suites whose broker is started in a
 * beforeAll and restarted between tests.
 */
export function brokerApi(url: Lazy<string>, token: Lazy<string>): BrokerApi {
  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiReply<T>> => {
    const response = await fetch(`${get(url)}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${get(token)}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed as T, text, headers: response.headers };
  };
  return {
    call,
    v1: (method, path, body) => call(method, `/v1${path}`, body),
    ui: (method, path, body) => call(method, `/ui/api${path}`, body, { "x-notify-ui": "1" }),
  };
}
