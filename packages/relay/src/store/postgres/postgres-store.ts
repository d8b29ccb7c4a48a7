import { randomUUID } from "node:crypto";
import { backoffMs } from "@notify/contracts/retry";
import pg from "pg";
import type { RelayLogger } from "../../log.js";
import { Batcher } from "../batcher.js";
import type {
  Change,
  DeletedInstallation,
  Device,
  DeviceSummary,
  EnvelopeRow,
  InsertAnswerResult,
  InsertEnvelopeResult,
  Installation,
  InstallationSummary,
  NewAnswer,
  NewEnvelope,
  Pairing,
  PairingPurpose,
  PruneResult,
  ReceiptRow,
  ReceiptState,
  RecordReceiptResult,
  RelayStore,
  ReportedReceiptState,
  StoredRow,
  StoreTx,
} from "../types.js";
import { SQL } from "./queries.js";
import { migrate } from "./schema.js";

type Row = Record<string, unknown>;
type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;
/** A change a commit announces (`missed` is the store's own). */
type RowChange = Exclude<Change, { kind: "missed" }>;

const CHANNEL = "relay_changes";

export interface PostgresOptions {
  /** Pool size (default 20). */
  max?: number;
  logger?: RelayLogger;
  /** Backoff of LISTEN re-subscription: first delay and cap (default 250 ms doubling to 5 s). */
  retryFirstMs?: number;
  retryMaxMs?: number;
  /**
   * Group commit of answers and envelopes: batches in flight at once (default 4) and items per batch (default 500).
   * `false` gives every write a transaction of its own (the benchmark's comparison).
   */
  groupCommit?: { maxInFlight: number; maxBatch: number } | false;
}

/** The key order every process inserts a batch's answers in (see SQL.insertAnswers). */
const byKey = (a: NewAnswer, b: NewAnswer): number =>
  a.installationId < b.installationId
    ? -1
    : a.installationId > b.installationId
      ? 1
      : a.responseId < b.responseId
        ? -1
        : a.responseId > b.responseId
          ? 1
          : 0;
/** The order every process inserts a batch's envelopes in: by (installation, idempotency key), unkeyed first. */
const envelopeKey = (envelope: NewEnvelope): string =>
  envelope.idempotencyKey === undefined ? "" : `${envelope.installationId}\u0000${envelope.idempotencyKey}`;
const byEnvelopeKey = (a: NewEnvelope, b: NewEnvelope): number =>
  envelopeKey(a) < envelopeKey(b) ? -1 : envelopeKey(a) > envelopeKey(b) ? 1 : 0;
const answerKey = (answer: { installationId: string; responseId: string }): string =>
  `${answer.installationId}\u0000${answer.responseId}`;
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

const toInstallation = (row: Row): Installation => ({
  id: String(row.id),
  ownerId: String(row.owner_id),
  name: nullableText(row.name),
  createdAt: Number(row.created_at),
});

const toDevice = (row: Row): DeviceSummary => ({
  id: String(row.id),
  ownerId: nullableText(row.owner_id),
  directInstallationId: nullableText(row.direct_installation_id),
  name: String(row.name),
  publicKey: String(row.public_key),
  pushSubscription: nullableText(row.push_subscription),
  createdAt: Number(row.created_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
});

const stripRevoked = ({ revokedAt: _revoked, ...device }: DeviceSummary): Device => device;

/** Every statement of SQL by its text, so each is parsed and planned once per connection (a named statement). */
const statementNames = new Map<string, string>(Object.entries(SQL).map(([name, text]) => [text, name]));
const prepared = (text: string, values: unknown[]): pg.QueryConfig => {
  const name = statementNames.get(text);
  return name ? { name, text, values } : { text, values };
};

/** A position is `<txid>.<seq>`; the start of a feed is `0.0`. */
const splitPosition = (position: string | null): [string, string] => {
  if (position === null) return ["0", "0"];
  const [txid = "0", seq = "0"] = position.split(".");
  return [txid, seq];
};

/** Bearer lookups outside a transaction, grouped per event-loop turn (see PostgresStore.tokenLookups). */
interface TokenLookups {
  devices: Batcher<string, Device | undefined>;
  installations: Batcher<string, Installation | undefined>;
}

class PostgresTx implements StoreTx {
  constructor(
    private readonly db: Queryable,
    private readonly changes: RowChange[] | undefined,
    private readonly lookups?: TokenLookups,
  ) {}

  private async rows(sql: string, values: unknown[]): Promise<Row[]> {
    return (await this.db.query(prepared(sql, values))).rows as Row[];
  }

  private async run(sql: string, values: unknown[]): Promise<number> {
    if (!this.changes) throw new Error("write outside a transaction");
    return (await this.db.query(prepared(sql, values))).rowCount ?? 0;
  }

  async createOwner(id: string, createdAt: number): Promise<void> {
    await this.run(SQL.insertOwner, [id, createdAt]);
  }

  async createInstallation(installation: Installation & { tokenHash: string }): Promise<void> {
    const { id, ownerId, name, tokenHash, createdAt } = installation;
    await this.run(SQL.insertInstallation, [id, ownerId, name, tokenHash, createdAt]);
  }

  async installationByTokenHash(tokenHash: string): Promise<Installation | undefined> {
    if (this.lookups) return this.lookups.installations.submit(tokenHash);
    const [row] = await this.rows(SQL.installationByTokenHash, [tokenHash]);
    return row && toInstallation(row);
  }

  async installationById(id: string): Promise<Installation | undefined> {
    const [row] = await this.rows(SQL.installationById, [id]);
    return row && toInstallation(row);
  }

  async listInstallations(): Promise<InstallationSummary[]> {
    return (await this.rows(SQL.listInstallations, [])).map((row) => ({
      ...toInstallation(row),
      devices: Number(row.devices),
    }));
  }

  async deleteInstallation(id: string): Promise<DeletedInstallation | undefined> {
    if (!this.changes) throw new Error("write outside a transaction");
    const [row] = await this.rows(SQL.lockInstallation, [id]);
    if (!row) return undefined;
    const ownerId = String(row.owner_id);
    const [others] = await this.rows(SQL.otherInstallationsOfOwner, [ownerId, id]);
    const ownerToo = Number(others?.n) === 0;
    await this.run(SQL.deleteLeavingRecipients, [id, ownerId, ownerToo]);
    const deviceIds = (await this.rows(SQL.deleteLeavingDevices, [id, ownerId, ownerToo])).map((device) =>
      String(device.id),
    );
    const deleted: DeletedInstallation = {
      deviceIds,
      answers: await this.run(SQL.deleteInstallationAnswers, [id]),
      envelopes: await this.run(SQL.deleteInstallationEnvelopes, [id]),
      pairings: await this.run(SQL.deleteInstallationPairings, [id]),
      owner: ownerToo,
    };
    await this.run(SQL.deleteInstallation, [id]);
    if (ownerToo) await this.run(SQL.deleteOwner, [ownerId]);
    for (const deviceId of deviceIds) this.changes.push({ kind: "revoked", deviceId });
    return deleted;
  }

  async createPairing(pairing: Pairing & { codeHash: string; createdAt: number }): Promise<void> {
    const { codeHash, installationId, ownerId, direct, purpose, createdAt, expiresAt } = pairing;
    await this.run(SQL.insertPairing, [codeHash, installationId, ownerId, direct, purpose, createdAt, expiresAt]);
  }

  async takePairing(codeHash: string, now: number, purpose: PairingPurpose): Promise<Pairing | undefined> {
    if (!this.changes) throw new Error("write outside a transaction");
    const [row] = await this.rows(SQL.takePairing, [codeHash, now, purpose]);
    if (!row) return undefined;
    return {
      installationId: String(row.installation_id),
      ownerId: String(row.owner_id),
      direct: row.direct === true,
      purpose: String(row.purpose) as PairingPurpose,
      expiresAt: Number(row.expires_at),
    };
  }

  async installationsOf(ownerId: string): Promise<Installation[]> {
    return (await this.rows(SQL.installationsOf, [ownerId])).map(toInstallation);
  }

  async openJoinCodes(ownerId: string, now: number): Promise<{ count: number; firstExpiry: number | null }> {
    const [row] = await this.rows(SQL.openJoinCodes, [ownerId, now]);
    return { count: Number(row?.n ?? 0), firstExpiry: row?.first == null ? null : Number(row.first) };
  }

  async createDevice(device: Device & { tokenHash: string }): Promise<void> {
    const { id, ownerId, directInstallationId, name, publicKey, tokenHash, pushSubscription, createdAt } = device;
    await this.run(SQL.insertDevice, [
      id,
      ownerId,
      directInstallationId,
      name,
      publicKey,
      tokenHash,
      pushSubscription,
      createdAt,
    ]);
  }

  async deviceByTokenHash(tokenHash: string): Promise<Device | undefined> {
    if (this.lookups) return this.lookups.devices.submit(tokenHash);
    const [row] = await this.rows(SQL.deviceByTokenHash, [tokenHash]);
    return row && stripRevoked(toDevice(row));
  }

  async deviceById(id: string): Promise<Device | undefined> {
    const [row] = await this.rows(SQL.deviceById, [id]);
    if (!row) return undefined;
    const device = toDevice(row);
    return device.revokedAt === null ? stripRevoked(device) : undefined;
  }

  async devicesFor(ownerId: string, installationId: string): Promise<Device[]> {
    return (await this.rows(SQL.devicesFor, [ownerId, installationId])).map((row) => stripRevoked(toDevice(row)));
  }

  async listDevices(): Promise<DeviceSummary[]> {
    return (await this.rows(SQL.listDevices, [])).map(toDevice);
  }

  async revokeDevice(id: string, now: number): Promise<boolean> {
    const revoked = (await this.run(SQL.revokeDevice, [now, id])) > 0;
    if (revoked) this.changes?.push({ kind: "revoked", deviceId: id });
    return revoked;
  }

  async setPushSubscription(deviceId: string, subscription: string): Promise<void> {
    await this.run(SQL.setPushSubscription, [subscription, deviceId]);
  }

  async dropPushSubscription(deviceId: string, subscription: string): Promise<void> {
    await this.run(SQL.dropPushSubscription, [deviceId, subscription]);
  }

  async insertAnswer(answer: NewAnswer) {
    const { installationId, responseId, deviceId, body, receivedAt } = answer;
    if ((await this.run(SQL.insertAnswer, [installationId, responseId, deviceId, body, receivedAt])) > 0) {
      this.changes?.push({ kind: "answers", installationId });
      return { created: true as const };
    }
    // ON CONFLICT waited for a concurrent insert of the same key to commit; READ COMMITTED now sees its row.
    const [row] = await this.rows(SQL.answerBody, [installationId, responseId]);
    return { created: false as const, existingBody: String(row?.body) };
  }

  async answersAfter(installationId: string, after: string | null, floor: number, limit: number): Promise<StoredRow[]> {
    const [txid, seq] = splitPosition(after);
    const rows = await this.rows(SQL.answersAfter, [installationId, txid, seq, floor, limit]);
    return rows.map((row) => ({
      position: `${row.position_txid}.${row.position_seq}`,
      body: String(row.body),
      at: Number(row.at),
    }));
  }

  async ackAnswers(installationId: string, upTo: string, now: number): Promise<void> {
    const [txid, seq] = splitPosition(upTo);
    await this.run(SQL.ackAnswers, [now, installationId, txid, seq]);
  }

  async insertEnvelope(envelope: NewEnvelope): Promise<InsertEnvelopeResult> {
    if (!this.changes) throw new Error("write outside a transaction");
    const { id, installationId, body, createdAt, idempotencyKey } = envelope;
    const [row] = await this.rows(SQL.insertEnvelope, [id, installationId, body, createdAt, idempotencyKey ?? null]);
    if (!row) {
      // The key is taken. ON CONFLICT waited for a concurrent insert of it to commit; READ COMMITTED now sees its row.
      const existing = await this.envelopeByIdempotencyKey(installationId, String(idempotencyKey));
      if (!existing) throw new Error("an envelope's idempotency key is taken but no envelope holds it");
      return { created: false, existingId: existing.id, existingBody: existing.body };
    }
    await this.run(SQL.insertRecipients, [envelope.recipients, row.seq]);
    for (const deviceId of envelope.recipients) this.changes.push({ kind: "envelopes", deviceId });
    return { created: true };
  }

  async envelopeByIdempotencyKey(installationId: string, key: string) {
    const [row] = await this.rows(SQL.envelopeByIdempotencyKey, [installationId, key]);
    return row && { id: String(row.id), body: String(row.body) };
  }

  async envelopesAfter(deviceId: string, after: string | null, floor: number, limit: number): Promise<EnvelopeRow[]> {
    const [txid, seq] = splitPosition(after);
    const rows = await this.rows(SQL.envelopesAfter, [deviceId, txid, seq, floor, limit]);
    return rows.map((row) => ({
      position: `${row.position_txid}.${row.position_seq}`,
      envelopeId: String(row.id),
      body: String(row.body),
      at: Number(row.at),
    }));
  }

  async ackEnvelopes(deviceId: string, upTo: string, now: number): Promise<void> {
    const [txid, seq] = splitPosition(upTo);
    const fetched = await this.rows(SQL.ackEnvelopes, [now, deviceId, txid, seq]);
    for (const installationId of new Set(fetched.map((row) => String(row.installation_id)))) {
      this.changes?.push({ kind: "receipts", installationId });
    }
  }

  async recordReceipt(
    envelopeId: string,
    deviceId: string,
    state: ReportedReceiptState,
    now: number,
  ): Promise<RecordReceiptResult> {
    if (!this.changes) throw new Error("write outside a transaction");
    const [sealed] = await this.rows(SQL.sealedTo, [deviceId, envelopeId]);
    if (!sealed) return { outcome: "unknown" };
    const installationId = String(sealed.installation_id);
    const inserted = await this.rows(SQL.insertReceipts, [
      installationId,
      sealed.seq,
      deviceId,
      ["fetched", state],
      now,
    ]);
    if (inserted.some((row) => row.state === state)) {
      this.changes.push({ kind: "receipts", installationId });
      return { outcome: "recorded", at: now };
    }
    // ON CONFLICT waited for a concurrent insert of the same receipt to commit; READ COMMITTED now sees its row.
    const [row] = await this.rows(SQL.receiptAt, [sealed.seq, deviceId, state]);
    return { outcome: "repeat", at: Number(row?.at) };
  }

  async receiptsAfter(
    installationId: string,
    after: string | null,
    floor: number,
    limit: number,
  ): Promise<ReceiptRow[]> {
    const [txid, seq] = splitPosition(after);
    const rows = await this.rows(SQL.receiptsAfter, [installationId, txid, seq, floor, limit]);
    return rows.map((row) => ({
      position: `${row.position_txid}.${row.position_seq}`,
      envelopeId: String(row.id),
      idempotencyKey: nullableText(row.idempotency_key),
      deviceId: String(row.device_id),
      state: String(row.state) as ReceiptState,
      at: Number(row.at),
    }));
  }

  async prune(options: { now: number; ageCutoff: number; ackCutoff: number; batch: number }): Promise<PruneResult> {
    const { now, ageCutoff, ackCutoff, batch } = options;
    return {
      answers: await this.run(SQL.pruneAnswers, [ageCutoff, ackCutoff, batch]),
      envelopes: await this.run(SQL.pruneEnvelopes, [ageCutoff, ackCutoff, batch]),
      pairings: await this.run(SQL.prunePairings, [now, batch]),
    };
  }
}

/** A change as a NOTIFY payload's tail (`<origin>|` comes first): `a|<installation>`, `c|<installation>` (receipts),
 * `e|<device>`, `r|<device>`. */
const changeText = (change: RowChange): string =>
  change.kind === "answers"
    ? `a|${change.installationId}`
    : change.kind === "receipts"
      ? `c|${change.installationId}`
      : `${change.kind === "revoked" ? "r" : "e"}|${change.deviceId}`;
const changeOf = (kind: string | undefined, id: string): RowChange | undefined =>
  kind === "a"
    ? { kind: "answers", installationId: id }
    : kind === "c"
      ? { kind: "receipts", installationId: id }
      : kind === "e"
        ? { kind: "envelopes", deviceId: id }
        : kind === "r"
          ? { kind: "revoked", deviceId: id }
          : undefined;

/**
 * PostgreSQL store for several stateless relay processes on one database. A commit announces its changes with
 * NOTIFY (delivered at commit, to every process's LISTEN connection), so a long-poll held by one process wakes for
 * an answer posted to another.
 */
export class PostgresStore implements RelayStore {
  readonly backend = "postgres" as const;
  /** Tags this process's notifications: it already announced them locally at commit. */
  private readonly origin = randomUUID();
  private readonly listeners = new Set<(change: Change) => void>();
  private listener: pg.Client | undefined;
  private closed = false;
  private resubscribing = false;
  private readonly toAnnounce = new Set<string>();
  private announceScheduled = false;
  readonly answerBatches: Batcher<NewAnswer, InsertAnswerResult> | undefined;
  readonly envelopeBatches: Batcher<NewEnvelope, InsertEnvelopeResult> | undefined;
  /**
   * Every request is authenticated by a lookup of its token's digest, a round trip of its own per request: the
   * largest share of a PostgreSQL relay's CPU per answer (issue 33: writes to the pool's sockets, 29% of the profile;
   * bench/README.md). The lookups asked for while earlier ones are on their way share one statement instead. Reads
   * only, outside any transaction, each issued after its request arrived: a token revoked before then is refused
   * exactly as by a lookup of its own.
   */
  readonly tokenLookups: TokenLookups;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: PostgresOptions,
  ) {
    const lookupBatches = { maxInFlight: 4, maxBatch: 500 };
    this.tokenLookups = {
      devices: new Batcher(
        (hashes) => this.byTokenHashes(SQL.devicesByTokenHashes, hashes, (row) => stripRevoked(toDevice(row))),
        (hash) => new PostgresTx(this.pool, undefined).deviceByTokenHash(hash),
        lookupBatches,
      ),
      installations: new Batcher(
        (hashes) => this.byTokenHashes(SQL.installationsByTokenHashes, hashes, toInstallation),
        (hash) => new PostgresTx(this.pool, undefined).installationByTokenHash(hash),
        lookupBatches,
      ),
    };
    const group = options.groupCommit ?? { maxInFlight: 4, maxBatch: 500 };
    if (group) {
      this.answerBatches = new Batcher(
        (answers) => this.insertAnswers(answers),
        (answer) => this.transaction((tx) => tx.insertAnswer(answer)),
        group,
      );
      this.envelopeBatches = new Batcher(
        (envelopes) => this.insertEnvelopes(envelopes),
        (envelope) => this.transaction((tx) => tx.insertEnvelope(envelope)),
        group,
      );
    }
  }

  storeAnswer(answer: NewAnswer): Promise<InsertAnswerResult> {
    return this.answerBatches ? this.answerBatches.submit(answer) : this.transaction((tx) => tx.insertAnswer(answer));
  }

  storeEnvelope(envelope: NewEnvelope): Promise<InsertEnvelopeResult> {
    return this.envelopeBatches
      ? this.envelopeBatches.submit(envelope)
      : this.transaction((tx) => tx.insertEnvelope(envelope));
  }

  /**
   * One batch of answers in one statement, committed before any outcome is given. A key already stored (or a second
   * answer with the same key in this batch) gets the stored body, read after the commit, so each request still gets
   * its own 201, 409 or duplicate. ON CONFLICT waits for a concurrent insert of the same key to commit or roll back.
   */
  private async insertAnswers(answers: NewAnswer[]): Promise<InsertAnswerResult[]> {
    const first = new Map<string, NewAnswer>();
    for (const answer of answers) if (!first.has(answerKey(answer))) first.set(answerKey(answer), answer);
    const rows = [...first.values()].sort(byKey);
    const { rows: inserted } = await this.pool.query(
      prepared(SQL.insertAnswers, [
        rows.map((row) => row.installationId),
        rows.map((row) => row.responseId),
        rows.map((row) => row.deviceId),
        rows.map((row) => row.body),
        rows.map((row) => row.receivedAt),
      ]),
    );
    const created = new Set(
      inserted.map((row: Row) =>
        answerKey({ installationId: String(row.installation_id), responseId: String(row.response_id) }),
      ),
    );
    const others = answers.filter(
      (answer) => !(created.has(answerKey(answer)) && first.get(answerKey(answer)) === answer),
    );
    const bodies = new Map<string, string>();
    if (others.length > 0) {
      const { rows: found } = await this.pool.query(
        prepared(SQL.answerBodies, [
          others.map((answer) => answer.installationId),
          others.map((answer) => answer.responseId),
        ]),
      );
      for (const row of found as Row[]) {
        bodies.set(
          answerKey({ installationId: String(row.installation_id), responseId: String(row.response_id) }),
          String(row.body),
        );
      }
    }
    return answers.map((answer) => {
      const key = answerKey(answer);
      if (created.has(key) && first.get(key) === answer) {
        this.committed({ kind: "answers", installationId: answer.installationId });
        return { created: true as const };
      }
      return { created: false as const, existingBody: String(bodies.get(key)) };
    });
  }

  /**
   * One batch of envelopes and their recipients in one statement, committed before any outcome is given. The first
   * envelope of each idempotency key in the batch is tried; one whose key was taken (before, or by an earlier
   * envelope of this batch) reads the stored one in a unit of its own, which is rare: a client's retry.
   */
  private async insertEnvelopes(envelopes: NewEnvelope[]): Promise<InsertEnvelopeResult[]> {
    const keys = new Set<string>();
    const rows = envelopes
      .filter((envelope) => {
        if (envelope.idempotencyKey === undefined) return true;
        const key = envelopeKey(envelope);
        if (keys.has(key)) return false;
        keys.add(key);
        return true;
      })
      .sort(byEnvelopeKey);
    const pairs = rows.flatMap((envelope) => envelope.recipients.map((deviceId) => [envelope.id, deviceId]));
    const { rows: inserted } = await this.pool.query(
      prepared(SQL.insertEnvelopes, [
        rows.map((envelope) => envelope.id),
        rows.map((envelope) => envelope.installationId),
        rows.map((envelope) => envelope.body),
        rows.map((envelope) => envelope.createdAt),
        rows.map((envelope) => envelope.idempotencyKey ?? null),
        pairs.map((pair) => pair[0]),
        pairs.map((pair) => pair[1]),
      ]),
    );
    const created = new Set(inserted.map((row: Row) => String(row.id)));
    return Promise.all(
      envelopes.map((envelope): Promise<InsertEnvelopeResult> => {
        if (!created.has(envelope.id)) return this.transaction((tx) => tx.insertEnvelope(envelope));
        for (const deviceId of envelope.recipients) this.committed({ kind: "envelopes", deviceId });
        return Promise.resolve({ created: true });
      }),
    );
  }

  /** One statement for a group of token digests; one outcome per digest, in order (a repeated digest too). */
  private async byTokenHashes<T>(sql: string, hashes: string[], convert: (row: Row) => T): Promise<(T | undefined)[]> {
    const { rows } = await this.pool.query(prepared(sql, [[...new Set(hashes)]]));
    const found = new Map((rows as Row[]).map((row) => [String(row.token_hash), row]));
    return hashes.map((hash) => {
      const row = found.get(hash);
      return row && convert(row);
    });
  }

  /** A change is committed: held polls here wake now, other processes by NOTIFY. */
  private committed(change: RowChange): void {
    this.emit(change);
    this.announce(change);
  }

  static async connect(url: string, options: PostgresOptions = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 20,
      // A database host that drops packets fails a request in 10 s instead of holding it until the client gives up.
      connectionTimeoutMillis: 10_000,
    });
    // An idle client's error (the server restarting) must not crash the relay; the next query reconnects.
    pool.on("error", () => undefined);
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    const store = new PostgresStore(pool, url, options);
    await store.listen();
    return store;
  }

  /** The pool's connections by state (metrics). */
  poolStats(): { total: number; idle: number; waiting: number; max: number } {
    return {
      total: this.pool.totalCount,
      idle: this.pool.idleCount,
      waiting: this.pool.waitingCount,
      max: this.options.max ?? 20,
    };
  }

  /** True while the LISTEN connection is up (tests, the operator's view). */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** One LISTEN connection; when it is lost, `resubscribe` brings it back. */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
    client.on("notification", (message) => {
      const [origin, kind, id] = (message.payload ?? "").split("|");
      if (origin === this.origin || !id) return;
      const change = changeOf(kind, id);
      if (change) this.emit(change);
    });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.options.logger?.warn("PostgreSQL wake-up connection (LISTEN) lost: re-subscribing");
      this.resubscribe();
    };
    // Before `listener` is set, a failure surfaces as the rejection below instead.
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
  }

  /**
   * Retries LISTEN with backoff (doubling from `retryFirstMs` up to `retryMaxMs`, with jitter) until it works,
   * however long the database is away. Then every held poll reads again: a commit announced by another process
   * while this one was not listening would otherwise wait for the poll's deadline.
   */
  private resubscribe(): void {
    if (this.closed || this.resubscribing) return;
    this.resubscribing = true;
    const first = this.options.retryFirstMs ?? 250;
    const max = this.options.retryMaxMs ?? 5000;
    const attempt = (failures: number) => {
      const delay = backoffMs(failures + 1, { baseMs: first, maxMs: max });
      setTimeout(() => {
        if (this.closed) {
          this.resubscribing = false;
          return;
        }
        this.listen().then(
          () => {
            this.resubscribing = false;
            if (this.closed) return;
            this.options.logger?.info(`PostgreSQL wake-ups re-subscribed after ${failures + 1} attempt(s)`);
            this.emit({ kind: "missed" });
          },
          () => attempt(failures + 1),
        );
      }, delay).unref();
    };
    attempt(0);
  }

  async reachable(): Promise<boolean> {
    try {
      await this.pool.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }

  isPosition(position: string): boolean {
    return /^\d{1,20}\.\d{1,19}$/.test(position);
  }

  async transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const changes: RowChange[] = [];
    try {
      await client.query("BEGIN");
      const result = await work(new PostgresTx(client, changes));
      await client.query("COMMIT");
      for (const change of changes) this.committed(change);
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * NOTIFY after commit, from a transaction of its own, batched: one NOTIFY transaction in flight per process, and
   * what commits meanwhile goes in the next one. Not inside the writing transaction: PostgreSQL serializes the commits
   * of transactions that NOTIFY (a global lock held until the commit record is flushed), which would undo group
   * commit for every answer. A NOTIFY transaction gets a transaction id like any other, so it commits with
   * `synchronous_commit` off: it then holds that lock for microseconds instead of a WAL flush. Its durability does
   * not matter: a lost NOTIFY only delays a held poll to its next re-check or deadline.
   */
  private announce(change: RowChange): void {
    this.toAnnounce.add(`${this.origin}|${changeText(change)}`);
    if (this.announceScheduled) return;
    this.announceScheduled = true;
    setImmediate(async () => {
      while (this.toAnnounce.size > 0 && !this.closed) await this.sendAnnouncements();
      this.announceScheduled = false;
    });
  }

  private async sendAnnouncements(): Promise<void> {
    const payloads = [...this.toAnnounce];
    this.toAnnounce.clear();
    if (this.closed || payloads.length === 0) return;
    // One statement in one round trip (it was BEGIN, SET LOCAL, NOTIFY and COMMIT on a client of its own: 6% of a
    // relay's CPU per answer on PostgreSQL in issue 33's profile, most of it socket writes).
    await this.pool.query(prepared(SQL.notify, [payloads])).catch(() => undefined);
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return work(new PostgresTx(this.pool, undefined, this.tokenLookups));
  }

  onChange(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  async close(): Promise<void> {
    await Promise.all([
      this.answerBatches?.idle(),
      this.envelopeBatches?.idle(),
      this.tokenLookups.devices.idle(),
      this.tokenLookups.installations.idle(),
    ]);
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
