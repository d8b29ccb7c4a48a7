import type { RelayStore } from "../store/types.js";
import { type Clock, DAY } from "./clock.js";

/** docs/relay.md, "Retention": kept 7 days, or 24 hours after the owning reader's acknowledged cursor passed it. */
export const MAX_AGE = 7 * DAY;
export const ACK_REST = DAY;
export const PRUNE_BATCH = 1000;

/**
 * Deletes what retention no longer covers, in bounded batches (one short transaction each, so posts never wait
 * long behind pruning), until a batch comes back short.
 */
export async function pruneOnce(store: RelayStore, clock: Clock, batch = PRUNE_BATCH) {
  const total = { answers: 0, envelopes: 0, pairings: 0 };
  for (let round = 0; round < 1000; round += 1) {
    const now = clock.now();
    const result = await store.transaction((tx) =>
      tx.prune({ now, ageCutoff: now - MAX_AGE, ackCutoff: now - ACK_REST, batch }),
    );
    total.answers += result.answers;
    total.envelopes += result.envelopes;
    total.pairings += result.pairings;
    if (result.answers < batch && result.envelopes < batch && result.pairings < batch) break;
  }
  return total;
}
