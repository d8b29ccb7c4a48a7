import { randomUUID } from "node:crypto";
import pg from "pg";
import type { RelayLogger } from "../../log.js";
import type {
  Change,
  Device,
  DeviceSummary,
  EnvelopeRow,
  Installation,
  InstallationSummary,
  NewAnswer,
  NewEnvelope,
  Pairing,
  PruneResult,
  RelayStore,
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
}
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

/** A position is `<txid>.<seq>`; the start of a feed is `0.0`. */
const splitPosition = (position: string | null): [string, string] => {
  if (position === null) return ["0", "0"];
  const [txid = "0", seq = "0"] = position.split(".");
  return [txid, seq];
};

class PostgresTx implements StoreTx {
  constructor(
    private readonly db: Queryable,
    private readonly changes: RowChange[] | undefined,
  ) {}

  private async rows(sql: string, values: unknown[]): Promise<Row[]> {
    return (await this.db.query(sql, values)).rows as Row[];
  }

  private async run(sql: string, values: unknown[]): Promise<number> {
    if (!this.changes) throw new Error("write outside a transaction");
    return (await this.db.query(sql, values)).rowCount ?? 0;
  }

  async createOwner(id: string, createdAt: number): Promise<void> {
    await this.run(SQL.insertOwner, [id, createdAt]);
  }

  async createInstallation(installation: Installation & { tokenHash: string }): Promise<void> {
    const { id, ownerId, name, tokenHash, createdAt } = installation;
    await this.run(SQL.insertInstallation, [id, ownerId, name, tokenHash, createdAt]);
  }

  async installationByTokenHash(tokenHash: string): Promise<Installation | undefined> {
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

  async createPairing(pairing: Pairing & { codeHash: string; createdAt: number }): Promise<void> {
    const { codeHash, installationId, ownerId, direct, createdAt, expiresAt } = pairing;
    await this.run(SQL.insertPairing, [codeHash, installationId, ownerId, direct, createdAt, expiresAt]);
  }

  async takePairing(codeHash: string, now: number): Promise<Pairing | undefined> {
    if (!this.changes) throw new Error("write outside a transaction");
    const [row] = await this.rows(SQL.takePairing, [codeHash, now]);
    if (!row) return undefined;
    return {
      installationId: String(row.installation_id),
      ownerId: String(row.owner_id),
      direct: row.direct === true,
      expiresAt: Number(row.expires_at),
    };
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
    return (await this.run(SQL.revokeDevice, [now, id])) > 0;
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

  async insertEnvelope(envelope: NewEnvelope): Promise<void> {
    if (!this.changes) throw new Error("write outside a transaction");
    const [row] = await this.rows(SQL.insertEnvelope, [
      envelope.id,
      envelope.installationId,
      envelope.body,
      envelope.createdAt,
    ]);
    await this.run(SQL.insertRecipients, [envelope.recipients, row?.seq]);
    for (const deviceId of envelope.recipients) this.changes.push({ kind: "envelopes", deviceId });
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
    await this.run(SQL.ackEnvelopes, [now, deviceId, txid, seq]);
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

const changeText = (change: RowChange): string =>
  change.kind === "answers" ? `a|${change.installationId}` : `e|${change.deviceId}`;

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

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: PostgresOptions,
  ) {}

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
      this.emit(kind === "a" ? { kind: "answers", installationId: id } : { kind: "envelopes", deviceId: id });
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
      const delay = Math.min(first * 2 ** failures, max) * (0.75 + Math.random() * 0.5);
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
      for (const change of changes) {
        this.emit(change);
        this.announce(change);
      }
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * NOTIFY after commit, from a transaction of its own, batched per event-loop turn. Not inside the writing
   * transaction: PostgreSQL serializes the commits of transactions that NOTIFY (a global lock held through the WAL
   * flush), which would undo group commit for every answer. A NOTIFY-only transaction writes no WAL, so that lock
   * is held for microseconds. A lost NOTIFY only delays a held poll to its next re-check or deadline.
   */
  private announce(change: RowChange): void {
    this.toAnnounce.add(`${this.origin}|${changeText(change)}`);
    if (this.announceScheduled) return;
    this.announceScheduled = true;
    setImmediate(() => {
      this.announceScheduled = false;
      const payloads = [...this.toAnnounce];
      this.toAnnounce.clear();
      if (this.closed || payloads.length === 0) return;
      this.pool.query(SQL.notify, [payloads]).catch(() => undefined);
    });
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return work(new PostgresTx(this.pool, undefined));
  }

  onChange(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
