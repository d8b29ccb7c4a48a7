import { join } from "node:path";
import { type BuildRelay, RelayHarness as KitRelayHarness, removableTempDir } from "@notify/test-kit/relay-harness";
import { type AppOptions, buildApp } from "../src/http/app.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { RelayStore, StoreTx } from "../src/store/types.js";

export { ENROLLMENT_TOKEN, until, untilValue } from "@notify/test-kit";
export {
  type Enrolled,
  envelopeFor,
  type Paired,
  type Reply,
  type RequestSpec,
  type Transport,
  x25519Jwk,
} from "@notify/test-kit/relay-harness";

/** Phones of `ownerId` named by their ids, each with the token hash `hash_<id>`, no push and no direct pairing. */
export async function createPlainDevices(
  tx: StoreTx,
  ownerId: string,
  ids: string[],
  createdAt: number,
): Promise<void> {
  for (const id of ids) {
    await tx.createDevice({
      id,
      ownerId,
      directInstallationId: null,
      name: id,
      publicKey: "{}",
      tokenHash: `hash_${id}`,
      pushSubscription: null,
      createdAt,
    });
  }
}

/** A temp dir removed when the test file ends, or earlier with `remove`. */
export const tempDir = (prefix = "relay-test-"): { path: string; remove: () => void } => removableTempDir(prefix);

/**
 * The kit's relay harness (@notify/test-kit/relay-harness) on this package's source, so the relay's own suites test
 * src rather than the build the other packages' tests use. The source's buildApp is the function the build's
 * declarations describe; its own types (the source's ChangeHub and store classes) are nominally other ones.
 */
const sourceBuild = buildApp as unknown as BuildRelay;

export class RelayHarness extends KitRelayHarness {
  constructor(store: RelayStore, options: Partial<AppOptions> = {}) {
    super(store as never, options as never, sourceBuild);
  }

  /** Over a fresh SQLite file in its own temp dir (`dir`, removed on close). */
  static sqlite(options: Partial<AppOptions> = {}): RelayHarness & { dir: { path: string; remove: () => void } } {
    const dir = tempDir();
    const harness = new RelayHarness(new SqliteStore(join(dir.path, "relay.db")), options);
    return Object.assign(harness, { dir });
  }
}
