import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { RelayReceiptState } from "@notify/contracts/enums";
import { transaction } from "./database.js";

/**
 * Receipts from the relay (migration 15; docs/relay.md, "Receipts on the broker"): the hops an envelope took on each
 * phone, by the outbox item that sent it. Written by the receipt poll (relay/receipt-poll.ts), read by the item's
 * timeline and the unfetched-route flag. Holds ids and times only.
 */

export interface ReceiptHop {
  outboxSeq: number;
  deviceId: string;
  state: RelayReceiptState;
  atMs: number;
}

/** One receipt as the relay names it: the envelope's `Idempotency-Key` is `<outbox item id>.<recipients hash>`. */
export interface IncomingReceipt {
  idempotencyKey: string;
  deviceId: string;
  state: RelayReceiptState;
  atMs: number;
}

/** A relay route with deliveries no phone fetched. */
export interface UnfetchedRoute {
  routeId: string;
  providerId: string;
  count: number;
  /** When the oldest of them was handed to the relay. */
  oldestMs: number;
}

const INSERT = `INSERT INTO relay_receipts (outbox_seq, device_id, state, at_ms)
  SELECT seq, ?2, ?3, ?4 FROM outbox WHERE seq = ?1 AND true
  ON CONFLICT DO NOTHING`;
const FOR_ITEMS = `SELECT outbox_seq, device_id, state, at_ms FROM relay_receipts
  WHERE outbox_seq IN (SELECT value FROM json_each(?)) ORDER BY at_ms`;
// Delivered to a relay provider between `since` and `cutoff` and fetched by no phone. `since` bounds the scan (an
// item older than the window is not what a person waits for now) and leaves out what was sent before the relay
// was known to record receipts.
const UNFETCHED = `SELECT route_id, provider_id, count(*) AS count, min(delivered_ms) AS oldest FROM outbox o
  WHERE o.status = 'Delivered' AND o.delivered_ms >= ?2 AND o.delivered_ms < ?3
    AND o.provider_id IN (SELECT value FROM json_each(?1))
    AND NOT EXISTS (SELECT 1 FROM relay_receipts r WHERE r.outbox_seq = o.seq AND r.state = 'fetched')
  GROUP BY route_id, provider_id ORDER BY oldest`;
const PRUNE = "DELETE FROM relay_receipts WHERE at_ms < ?";

export class RelayReceiptStore {
  private readonly prefix: string;
  private readonly insert: StatementSync;
  private readonly forItemsStatement: StatementSync;
  private readonly unfetchedStatement: StatementSync;
  private readonly pruneStatement: StatementSync;

  constructor(private readonly db: DatabaseSync) {
    const meta = db.prepare("SELECT namespace FROM outbox_meta").get() as { namespace: string };
    this.prefix = `obx_${meta.namespace}`;
    this.insert = db.prepare(INSERT);
    this.forItemsStatement = db.prepare(FOR_ITEMS);
    this.unfetchedStatement = db.prepare(UNFETCHED);
    this.pruneStatement = db.prepare(PRUNE);
  }

  /**
   * The outbox item an envelope's key names, if it is one of this database's (the outbox store's id form: the
   * prefix, then the seq in base 36); a key another broker made names nothing here.
   */
  seqOfKey(idempotencyKey: string): number | undefined {
    const id = idempotencyKey.slice(0, idempotencyKey.lastIndexOf("."));
    if (!id.startsWith(this.prefix)) return undefined;
    const rest = id.slice(this.prefix.length);
    if (!/^[0-9a-z]{6,11}$/.test(rest)) return undefined;
    const seq = Number.parseInt(rest, 36);
    return Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
  }

  /** Stores each receipt of an outbox item still kept, once per (item, device, state); returns how many were new. */
  record(receipts: readonly IncomingReceipt[]): number {
    return transaction(this.db, () => {
      let added = 0;
      for (const receipt of receipts) {
        const seq = this.seqOfKey(receipt.idempotencyKey);
        if (seq === undefined) continue;
        added += Number(this.insert.run(seq, receipt.deviceId, receipt.state, receipt.atMs).changes);
      }
      return added;
    });
  }

  /** The receipts of these outbox items, oldest first. */
  forItems(seqs: readonly number[]): ReceiptHop[] {
    if (seqs.length === 0) return [];
    const rows = this.forItemsStatement.all(JSON.stringify(seqs)) as {
      outbox_seq: number;
      device_id: string;
      state: string;
      at_ms: number;
    }[];
    return rows.map((row) => ({
      outboxSeq: row.outbox_seq,
      deviceId: row.device_id,
      state: row.state as RelayReceiptState,
      atMs: row.at_ms,
    }));
  }

  /** Routes of these relay providers with deliveries handed over in [sinceMs, cutoffMs) that no phone fetched. */
  unfetched(providerIds: readonly string[], sinceMs: number, cutoffMs: number): UnfetchedRoute[] {
    if (providerIds.length === 0 || cutoffMs <= sinceMs) return [];
    const rows = this.unfetchedStatement.all(JSON.stringify(providerIds), sinceMs, cutoffMs) as {
      route_id: string;
      provider_id: string;
      count: number;
      oldest: number;
    }[];
    return rows.map((row) => ({
      routeId: row.route_id,
      providerId: row.provider_id,
      count: row.count,
      oldestMs: row.oldest,
    }));
  }

  prune(beforeMs: number): number {
    return transaction(this.db, () => Number(this.pruneStatement.run(beforeMs).changes));
  }
}
