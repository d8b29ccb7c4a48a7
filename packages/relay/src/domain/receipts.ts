import { RELAY_REPORTED_RECEIPT_STATES, type RelayReportedReceiptState } from "@notify/contracts/enums";
import type { RelayReceiptPage, RelayReceiptRecorded } from "@notify/contracts/relay-receipts";
import type { Device, Installation } from "../store/types.js";
import type { Cancellation } from "./change-hub.js";
import { isoTime } from "./clock.js";
import type { DomainDeps } from "./deps.js";
import { RelayError } from "./errors.js";

const REPORTED: readonly string[] = RELAY_REPORTED_RECEIPT_STATES;
type Reported = RelayReportedReceiptState;

/** What postEnvelope makes: `env_` and 24 hex digits. Any other id names no envelope. */
const ENVELOPE_ID = /^env_[0-9a-f]{24}$/;

/** The body names one reported state and nothing else: a field the relay would drop is refused instead. */
function reportedState(body: unknown): Reported {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new RelayError("invalid_request", "body must be an object");
  }
  const fields = Object.keys(body);
  const state = (body as { state?: unknown }).state;
  if (typeof state !== "string" || !REPORTED.includes(state))
    throw new RelayError("invalid_request", 'state must be "shown" or "opened"');
  if (fields.length !== 1) throw new RelayError("invalid_request", "the only field is state");
  return state as Reported;
}

/**
 * POST /v1/envelopes/{envelope_id}/receipts (docs/relay.md, "Receipts"): a device reports that an envelope sealed to
 * it was shown or opened. An envelope that does not exist, has been pruned, or was not sealed to this device is the
 * same 404, so a device learns nothing of other devices' envelopes. Once per (envelope, device, state): a repeat is a
 * 200 with the first report's time.
 */
export async function postReceipt(
  deps: DomainDeps,
  device: Device,
  envelopeId: string,
  body: unknown,
): Promise<{ created: boolean; receipt: RelayReceiptRecorded }> {
  const state = reportedState(body);
  if (!ENVELOPE_ID.test(envelopeId)) throw new RelayError("not_found", "no such envelope for this device");
  const now = deps.clock.now();
  const result = await deps.store.transaction((tx) => tx.recordReceipt(envelopeId, device.id, state, now));
  if (result.outcome === "unknown") throw new RelayError("not_found", "no such envelope for this device");
  return {
    created: result.outcome === "recorded",
    receipt: { envelope_id: envelopeId, state, at: isoTime(result.at) },
  };
}

/**
 * GET /v1/receipts: the installation's envelopes' receipts, oldest first, with the answer feed's cursor rules (an
 * empty `since` is the last 24 hours; a long poll wakes on a new receipt). An installation sees only receipts of
 * envelopes it posted.
 */
export async function listReceipts(
  deps: DomainDeps,
  installation: Installation,
  query: { since?: string | undefined; wait: number },
  signal?: Cancellation,
): Promise<RelayReceiptPage> {
  const store = deps.store;
  const page = await deps.feed.page(
    {
      key: `c:${installation.id}`,
      fetch: (after, floor, limit) => store.read((tx) => tx.receiptsAfter(installation.id, after, floor, limit)),
      // Receipts go with their envelopes (Retention): acknowledging them keeps nothing shorter.
      ack: async () => undefined,
    },
    query.since,
    query.wait,
    signal,
  );
  return {
    receipts: page.rows.map((row) => ({
      envelope_id: row.envelopeId,
      ...(row.idempotencyKey === null ? {} : { idempotency_key: row.idempotencyKey }),
      device_id: row.deviceId,
      state: row.state,
      at: isoTime(row.at),
    })),
    next_cursor: page.nextCursor,
  };
}
