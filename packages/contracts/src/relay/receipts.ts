import * as z from "zod";
import { RELAY_RECEIPT_STATES, RELAY_REPORTED_RECEIPT_STATES } from "../enums.js";

/**
 * Receipts (issue 37 item 3; docs/relay.md, "Receipts"): the hops an envelope took on a device. The relay records
 * `fetched` itself (the device's acknowledged cursor passed the envelope); the phone reports `shown` (its card or
 * notification was on screen) and `opened` (the person opened it). The installation reads its envelopes' receipts
 * from a feed with the same cursor rules as its answers.
 */

export {
  RELAY_RECEIPT_STATES,
  RELAY_REPORTED_RECEIPT_STATES,
  type RelayReceiptState,
  type RelayReportedReceiptState,
} from "../enums.js";

const Timestamp = z.iso.datetime({ offset: true });

/** POST /v1/envelopes/{envelope_id}/receipts body (device token). */
export const RelayReceiptRequest = z.strictObject({ state: z.enum(RELAY_REPORTED_RECEIPT_STATES) });
export type RelayReceiptRequest = z.infer<typeof RelayReceiptRequest>;

/** -> 201 when stored, 200 when it was already (`at` is then the first report's time). */
export const RelayReceiptRecorded = z.strictObject({
  envelope_id: z.string(),
  state: z.enum(RELAY_REPORTED_RECEIPT_STATES),
  at: Timestamp,
});
export type RelayReceiptRecorded = z.infer<typeof RelayReceiptRecorded>;

/** One receipt in GET /v1/receipts. `idempotency_key`: the one the envelope was posted with, if any. */
export const RelayReceipt = z.strictObject({
  envelope_id: z.string(),
  idempotency_key: z.string().optional(),
  device_id: z.string(),
  state: z.enum(RELAY_RECEIPT_STATES),
  at: Timestamp,
});
export type RelayReceipt = z.infer<typeof RelayReceipt>;

/** GET /v1/receipts?since=<cursor>[&wait=N] (installation token). */
export const RelayReceiptPage = z.strictObject({ receipts: z.array(RelayReceipt), next_cursor: z.string().min(1) });
export type RelayReceiptPage = z.infer<typeof RelayReceiptPage>;
