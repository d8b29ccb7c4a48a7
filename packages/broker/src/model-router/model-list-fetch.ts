import type { Agent } from "undici";

/**
 * GET <base_url>/models for POST /ui/api/router/models/fetch (docs/router.md, "Fetching model lists"): one request
 * under the destination rule (the caller checked the URL), through an undici Agent of its own that follows no
 * redirects, keeps no cookies and reads no proxy variables. The reply is read as a stream and cut off once it passes 4
 * MiB. Errors carry a short reason of our own: never the provider's body, never the key.
 */

export const MAX_MODEL_LIST_BYTES = 4 * 1024 * 1024;
export const MAX_FETCHED_MODELS = 500;

export class ModelListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelListError";
  }
}

export interface ModelListRequest {
  url: string;
  headers: Record<string, string>;
  /** Test hook: a smaller cap. */
  maxBytes?: number;
  timeoutMs?: number;
}

let shared: Promise<{ agent: Agent; request: typeof import("undici").request }> | undefined;

/** undici is loaded on the first fetch; one Agent, short timeouts: this is a page waiting on a button. */
function client(): Promise<{ agent: Agent; request: typeof import("undici").request }> {
  shared ??= import("undici").then(({ Agent, request }) => ({
    agent: new Agent({ connect: { timeout: 10_000 }, headersTimeout: 30_000, bodyTimeout: 30_000 }),
    request,
  }));
  return shared;
}

/** The model IDs of one reply: `{data: [{id}]}`, a bare array of `{id}` (or of strings), or `{models: [{name}]}`. */
export function modelIdsOf(body: unknown): string[] | undefined {
  let entries: unknown[] | undefined;
  let field: "id" | "name" = "id";
  if (Array.isArray(body)) entries = body;
  else if (body !== null && typeof body === "object") {
    const record = body as Record<string, unknown>;
    if (Array.isArray(record.data)) entries = record.data;
    else if (Array.isArray(record.models)) {
      entries = record.models;
      field = "name";
    }
  }
  if (entries === undefined) return undefined;
  const ids: string[] = [];
  for (const entry of entries) {
    let id: unknown = entry;
    if (entry !== null && typeof entry === "object") {
      const record = entry as Record<string, unknown>;
      id = record[field] ?? record.id ?? record.name;
    }
    if (typeof id === "string" && id.length >= 1 && id.length <= 200) ids.push(id);
  }
  return ids;
}

/** Fetches and parses one model list; throws ModelListError with a reason safe to show. */
export async function fetchModelList(request: ModelListRequest): Promise<string[]> {
  const maxBytes = request.maxBytes ?? MAX_MODEL_LIST_BYTES;
  const host = new URL(request.url).host;
  const { agent, request: send } = await client();
  let response: Awaited<ReturnType<typeof send>>;
  try {
    response = await send(request.url, {
      method: "GET",
      headers: request.headers,
      dispatcher: agent,
      signal: AbortSignal.timeout(request.timeoutMs ?? 60_000),
    });
  } catch {
    throw new ModelListError(`could not reach ${host}`);
  }
  const { statusCode, body } = response;
  // A body dropped on purpose (an error status, past the cap) reports an abort; that is not a failure here.
  body.on("error", () => {});
  if (statusCode < 200 || statusCode > 299) {
    body.destroy();
    if (statusCode >= 300 && statusCode < 400) {
      throw new ModelListError(`${host} answered ${statusCode} (redirects are not followed)`);
    }
    throw new ModelListError(`${host} answered ${statusCode}`);
  }
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new ModelListError(`the model list is larger than ${maxBytes / (1024 * 1024)} MiB`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of body) {
      received += (chunk as Buffer).length;
      if (received > maxBytes) {
        body.destroy();
        throw new ModelListError(`the model list is larger than ${maxBytes / (1024 * 1024)} MiB`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof ModelListError) throw error;
    throw new ModelListError(`${host} broke off the model list`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ModelListError(`${host} did not answer JSON`);
  }
  const ids = modelIdsOf(parsed);
  if (ids === undefined) throw new ModelListError(`${host} answered no model list this router reads`);
  return [...new Set(ids)];
}
