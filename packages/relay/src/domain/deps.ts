import type { Installation, RelayStore } from "../store/types.js";
import type { Clock } from "./clock.js";
import type { Feed } from "./feed.js";
import type { PushEndpointPolicy } from "./push-subscription.js";

/** What a newly stored envelope asks of Web Push; sent after commit, never awaited by the POST. */
export interface PushWaker {
  wake(deviceId: string, subscription: string, payload: { envelope_id: string; version: string }): void;
}

export interface DomainDeps {
  store: RelayStore;
  clock: Clock;
  feed: Feed;
  /** The URL phones use (RELAY_PUBLIC_URL), without a trailing slash. */
  publicUrl: () => string;
  push?: PushWaker;
  /** Which push endpoints a phone may register (the loopback switch). */
  pushEndpoints: PushEndpointPolicy;
  /** Installations already looked up (they never change owner and are never deleted). */
  knownInstallations: Map<string, Installation>;
}
