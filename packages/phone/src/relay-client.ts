import type { RelayClaim, RelayEnvelopePage } from "@notify/contracts/relay-api";
import type { Envelope } from "@notify/contracts/relay-envelope";
import type { RelayReceiptRequest } from "@notify/contracts/relay-receipts";
import { get, type Pairing } from "./storage.js";

/** The one client of the relay's phone routes (same origin: the relay serves this app). */
export type Claimed = RelayClaim;

/** GET /v1/envelopes, with each envelope typed as openEnvelope takes it (jose's JWE). */
export interface EnvelopePage extends Omit<RelayEnvelopePage, "envelopes"> {
  envelopes: { envelope_id: string; envelope: Envelope; created_at: string }[];
  next_cursor: string;
}

export class RelayStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`relay answered ${status}`);
  }
}

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<unknown> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, { ...init, headers, cache: "no-store" });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) throw new RelayStatusError(response.status, body);
  return body;
}

export function claim(code: string, deviceName: string, publicKey: JsonWebKey): Promise<Claimed> {
  return call("/v1/pairings/claim", {
    method: "POST",
    body: JSON.stringify({
      code,
      device_name: deviceName,
      public_key: { kty: publicKey.kty, crv: publicKey.crv, x: publicKey.x },
    }),
  }) as Promise<Claimed>;
}

export function envelopes(token: string, since: string | undefined, waitSeconds: number, signal?: AbortSignal) {
  const query = new URLSearchParams();
  if (since) query.set("since", since);
  if (waitSeconds > 0) query.set("wait", String(waitSeconds));
  return call(`/v1/envelopes?${query}`, { token, ...(signal ? { signal } : {}) }) as Promise<EnvelopePage>;
}

/** The raw status and body: the card decides what 201, 409, 401 and 403 mean. */
export async function postAnswer(token: string, body: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch("/v1/interaction-responses", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
    body,
    cache: "no-store",
  });
  let parsed: unknown = null;
  try {
    parsed = await response.json();
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed };
}

/** The VAPID public key phones subscribe with (base64url). */
export async function vapidPublicKey(): Promise<string> {
  const body = (await call("/v1/push/vapid-public-key")) as { public_key: string };
  return body.public_key;
}

/** Registers (or, with null, removes) this phone's Web Push subscription at the relay. */
export async function putPushSubscription(token: string, subscription: PushSubscriptionJSON | null): Promise<void> {
  const push_subscription = subscription === null ? null : { endpoint: subscription.endpoint, keys: subscription.keys };
  await call("/v1/device/push-subscription", { method: "PUT", token, body: JSON.stringify({ push_subscription }) });
}

/** A one-time join code for another machine (`POST /v1/device/joins`): 10 characters, 10 minutes, single use. */
export interface JoinCode {
  code: string;
  relay_url: string;
  expires_at: string;
}

/** Makes a join code: on another machine, `notify relay join RELAY_URL CODE` adds it to this phone's owner. */
export function joinCode(token: string): Promise<JoinCode> {
  return call("/v1/device/joins", { method: "POST", token, body: "{}" }) as Promise<JoinCode>;
}

/** Receipts this page (or service worker) reported or is reporting: one POST per envelope and state. */
const reported = new Set<string>();

/**
 * Tells the relay an envelope was shown on this phone or opened by the person (docs/relay.md, "Receipts"), once per
 * envelope and state. Best effort: a failure is forgotten so a later call tries again, and never reaches the person.
 * Without `token` the stored pairing's is used, so the service worker can call it as it is (a shown notification is
 * `shown`, a tapped one `opened`).
 */
export async function reportReceipt(
  envelopeId: string,
  state: RelayReceiptRequest["state"],
  token?: string,
): Promise<void> {
  const key = `${envelopeId}\n${state}`;
  if (reported.has(key)) return;
  reported.add(key);
  try {
    const bearer = token ?? (await get<Pairing>("pairing"))?.token;
    if (!bearer) throw new Error("not paired");
    const body: RelayReceiptRequest = { state };
    await call(`/v1/envelopes/${encodeURIComponent(envelopeId)}/receipts`, {
      method: "POST",
      token: bearer,
      body: JSON.stringify(body),
    });
  } catch (error) {
    // 404: the envelope was pruned or is not this phone's; nothing to report, ever.
    if (!(error instanceof RelayStatusError && error.status === 404)) reported.delete(key);
  }
}
