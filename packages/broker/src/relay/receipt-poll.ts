import { RELAY_RECEIPT_STATES, type RelayReceiptState } from "@notify/contracts/enums";
import { cappedServerDelayMs, delay, retryAfterMs } from "@notify/contracts/retry";
import { type IncomingReceipt, RelayReceiptStore } from "../store/relay-receipt-store.js";
import type { SurfaceLoop, SurfaceLoopContext } from "../surfaces/supervisor.js";
import { relaySettings } from "./relay-adapter.js";
import { relayRequest, relayUrl } from "./relay-http.js";

/** What the receipt poll knows of a relay provider, for the unfetched-route flag (relay/unfetched.ts). */
export interface ReceiptPollState {
  /** `on`: the relay served a receipt page; `unsupported`: it has no receipt route (404), so nothing is flagged. */
  receipts: "on" | "unsupported";
  /** When this process first read a receipt page from it (ms). */
  sinceMs: number;
}

/** By provider id; a provider whose poll has not answered yet is absent. */
export const receiptPolls = new Map<string, ReceiptPollState>();

/** How long a relay without the receipt route is left alone before it is asked again (an upgrade adds it). */
const UNSUPPORTED_RETRY_MS = 10 * 60_000;
/** Receipts are kept as long as the outbox items they are about would be looked at: a week. */
const RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

const STATES = new Set<string>(RELAY_RECEIPT_STATES);

function receiptOf(value: unknown): IncomingReceipt | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const row = value as Record<string, unknown>;
  const { idempotency_key: key, device_id: device, state, at } = row;
  if (typeof key !== "string" || typeof device !== "string" || typeof state !== "string" || typeof at !== "string") {
    return undefined;
  }
  const atMs = Date.parse(at);
  if (!STATES.has(state) || !Number.isFinite(atMs)) return undefined;
  return { idempotencyKey: key, deviceId: device, state: state as RelayReceiptState, atMs };
}

/**
 * The receipt poll (docs/relay.md, "Receipts on the broker"): beside each relay provider's answer poll, a long poll
 * of `GET /v1/receipts` stores each phone's hops of this broker's envelopes by outbox item. Its cursor lives in
 * memory: after a restart the last 24 hours are read again and stored once each. A 401/403 ends it (the answer poll
 * says why and stops too); a relay without the route (404) is asked again every 10 minutes.
 */
async function receiptLoop(context: SurfaceLoopContext, signal: AbortSignal): Promise<void> {
  const { profile, timings } = context;
  const store = new RelayReceiptStore(context.cursors.db);
  const relay = relaySettings(profile.settings);
  // The loop's own signal: the answer poll's end stops this wait too (context.sleep waits on the supervisor's).
  const sleep = (ms: number) => delay(cappedServerDelayMs(ms, timings.maxServerDelayMs), signal);
  let cursor: string | undefined;
  let failures = 0;
  let prunedMs = 0;
  while (!signal.aborted) {
    let token = "";
    try {
      token = context.outbound.openSecrets(profile.id).installationToken ?? "";
    } catch {
      token = "";
    }
    if (token === "") {
      failures++;
      await sleep(context.backoff(failures));
      continue;
    }
    // The first page comes at once (no `wait`): it says whether this relay records receipts at all.
    const query = new URLSearchParams();
    if (cursor !== undefined) query.set("since", cursor);
    if (receiptPolls.get(profile.id)?.receipts === "on") query.set("wait", String(timings.waitSeconds));
    const startedMs = Date.now();
    const reply = await relayRequest({
      url: relayUrl(relay.url, `/v1/receipts?${query}`),
      token,
      signal,
      timeoutMs: (timings.waitSeconds + 15) * 1000,
    });
    if (signal.aborted) return;
    if (reply.ok) {
      const page = reply.body as { receipts?: unknown; next_cursor?: unknown };
      if (!Array.isArray(page?.receipts) || typeof page.next_cursor !== "string") {
        failures++;
        await sleep(context.backoff(failures));
        continue;
      }
      failures = 0;
      if (receiptPolls.get(profile.id)?.receipts !== "on") {
        receiptPolls.set(profile.id, { receipts: "on", sinceMs: context.clock.now() });
      }
      const receipts = page.receipts.map(receiptOf).filter((receipt) => receipt !== undefined);
      if (receipts.length > 0) store.record(receipts);
      cursor = page.next_cursor;
      const now = context.clock.now();
      if (now - prunedMs >= PRUNE_EVERY_MS) {
        prunedMs = now;
        store.prune(now - RETENTION_MS);
      }
      if (page.receipts.length === 0 && Date.now() - startedMs < timings.idleMs) await sleep(timings.idleMs);
      continue;
    }
    if (reply.status === 401 || reply.status === 403) return;
    if (reply.status === 404) {
      receiptPolls.set(profile.id, { receipts: "unsupported", sinceMs: context.clock.now() });
      await sleep(UNSUPPORTED_RETRY_MS);
      continue;
    }
    if (reply.status === 400 && reply.relayError === "invalid_cursor") cursor = undefined;
    failures++;
    const requested = reply.headers ? retryAfterMs(reply.headers, Date.now()) : undefined;
    await sleep(Math.max(context.backoff(failures), cappedServerDelayMs(requested, timings.maxServerDelayMs)));
  }
}

/**
 * The relay surface's loop with the receipt poll beside it: both run while the answer poll runs, and the receipt
 * poll stops with it (however it ends), so a restarted loop never leaves a second receipt poll behind.
 */
export function withReceiptPoll(answerLoop: SurfaceLoop): SurfaceLoop {
  return async (context) => {
    const stop = new AbortController();
    const signal = AbortSignal.any([context.signal, stop.signal]);
    const receipts = receiptLoop(context, signal).catch((error: unknown) => {
      context.logger.warn(`relay receipt poll for provider ${context.profile.name} stopped: ${(error as Error).name}`);
    });
    try {
      await answerLoop(context);
    } finally {
      stop.abort();
      await receipts;
    }
  };
}
