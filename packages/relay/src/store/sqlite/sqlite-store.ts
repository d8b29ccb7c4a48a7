import { closeSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { secureDataDir, tighten } from "../../config/settings.js";
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
const text = (value: unknown): string => String(value);
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

const toInstallation = (row: Row): Installation => ({
  id: text(row.id),
  ownerId: text(row.owner_id),
  name: nullableText(row.name),
  createdAt: Number(row.created_at),
});

const toDevice = (row: Row): DeviceSummary => ({
  id: text(row.id),
  ownerId: nullableText(row.owner_id),
  directInstallationId: nullableText(row.direct_installation_id),
  name: text(row.name),
  publicKey: text(row.public_key),
  pushSubscription: nullableText(row.push_subscription),
  createdAt: Number(row.created_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
});

const stripRevoked = ({ revokedAt: _revoked, ...device }: DeviceSummary): Device => device;

interface Unit {
  work: (tx: StoreTx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** At most this many units share one commit, so one commit never holds the write lock for long. */
const MAX_GROUP = 256;

/** One connection's prepared statements, made on first use. */
class Statements {
  private readonly cache = new Map<string, StatementSync>();
  constructor(readonly db: DatabaseSync) {}
  get(name: keyof typeof SQL): StatementSync {
    let statement = this.cache.get(name);
    if (!statement) {
      statement = this.db.prepare(SQL[name]);
      this.cache.set(name, statement);
    }
    return statement;
  }
}

/** StoreTx over one connection. Every call is synchronous underneath; the promises only match the interface. */
class SqliteTx implements StoreTx {
  constructor(
    private readonly sql: Statements,
    private readonly changes: Change[] | undefined,
    /** Where token lookups read (see SqliteStore.read); the transaction's own connection by default. */
    private readonly tokens: Statements = sql,
  ) {}

  private writing(): Change[] {
    if (!this.changes) throw new Error("write outside a transaction");
    return this.changes;
  }

  async createOwner(id: string, createdAt: number): Promise<void> {
    this.writing();
    this.sql.get("insertOwner").run(id, createdAt);
  }

  async createInstallation(installation: Installation & { tokenHash: string }): Promise<void> {
    this.writing();
    this.sql.get("insertInstallation").run({ ...installation });
  }

  async installationByTokenHash(tokenHash: string): Promise<Installation | undefined> {
    const row = this.tokens.get("installationByTokenHash").get(tokenHash) as Row | undefined;
    return row && toInstallation(row);
  }

  async installationById(id: string): Promise<Installation | undefined> {
    const row = this.sql.get("installationById").get(id) as Row | undefined;
    return row && toInstallation(row);
  }

  async listInstallations(): Promise<InstallationSummary[]> {
    return (this.sql.get("listInstallations").all() as Row[]).map((row) => ({
      ...toInstallation(row),
      devices: Number(row.devices),
    }));
  }

  async deleteInstallation(id: string): Promise<DeletedInstallation | undefined> {
    const changes = this.writing();
    const installation = await this.installationById(id);
    if (!installation) return undefined;
    const ownerId = installation.ownerId;
    const others = Number((this.sql.get("otherInstallationsOfOwner").get(ownerId, id) as Row).n);
    const leaving = { id, ownerId, ownerToo: others === 0 ? 1 : 0 };
    this.sql.get("deleteLeavingRecipients").run(leaving);
    const deviceIds = (this.sql.get("deleteLeavingDevices").all(leaving) as Row[]).map((row) => text(row.id));
    const deleted: DeletedInstallation = {
      deviceIds,
      answers: Number(this.sql.get("deleteInstallationAnswers").run(id).changes),
      envelopes: Number(this.sql.get("deleteInstallationEnvelopes").run(id).changes),
      pairings: Number(this.sql.get("deleteInstallationPairings").run(id).changes),
      owner: others === 0,
    };
    this.sql.get("deleteInstallation").run(id);
    if (others === 0) this.sql.get("deleteOwner").run(ownerId);
    for (const deviceId of deviceIds) changes.push({ kind: "revoked", deviceId });
    return deleted;
  }

  async createPairing(pairing: Pairing & { codeHash: string; createdAt: number }): Promise<void> {
    this.writing();
    this.sql.get("insertPairing").run({ ...pairing, direct: pairing.direct ? 1 : 0 });
  }

  async takePairing(codeHash: string, now: number, purpose: PairingPurpose): Promise<Pairing | undefined> {
    this.writing();
    const row = this.sql.get("takePairing").get(codeHash, now, purpose) as Row | undefined;
    if (!row) return undefined;
    return {
      installationId: text(row.installation_id),
      ownerId: text(row.owner_id),
      direct: Number(row.direct) === 1,
      purpose: text(row.purpose) as PairingPurpose,
      expiresAt: Number(row.expires_at),
    };
  }

  async installationsOf(ownerId: string): Promise<Installation[]> {
    return (this.sql.get("installationsOf").all(ownerId) as Row[]).map(toInstallation);
  }

  async openJoinCodes(ownerId: string, now: number): Promise<{ count: number; firstExpiry: number | null }> {
    const row = this.sql.get("openJoinCodes").get(ownerId, now) as Row;
    return { count: Number(row.n), firstExpiry: row.first === null ? null : Number(row.first) };
  }

  async createDevice(device: Device & { tokenHash: string }): Promise<void> {
    this.writing();
    this.sql.get("insertDevice").run({ ...device });
  }

  async deviceByTokenHash(tokenHash: string): Promise<Device | undefined> {
    const row = this.tokens.get("deviceByTokenHash").get(tokenHash) as Row | undefined;
    return row && stripRevoked(toDevice(row));
  }

  async deviceById(id: string): Promise<Device | undefined> {
    const row = this.sql.get("deviceById").get(id) as Row | undefined;
    if (!row) return undefined;
    const device = toDevice(row);
    return device.revokedAt === null ? stripRevoked(device) : undefined;
  }

  async devicesFor(ownerId: string, installationId: string): Promise<Device[]> {
    return (this.sql.get("devicesFor").all(ownerId, installationId) as Row[]).map((row) => stripRevoked(toDevice(row)));
  }

  async listDevices(): Promise<DeviceSummary[]> {
    return (this.sql.get("listDevices").all() as Row[]).map(toDevice);
  }

  async revokeDevice(id: string, now: number): Promise<boolean> {
    const changes = this.writing();
    const revoked = Number(this.sql.get("revokeDevice").run(now, id).changes) > 0;
    if (revoked) changes.push({ kind: "revoked", deviceId: id });
    return revoked;
  }

  async setPushSubscription(deviceId: string, subscription: string): Promise<void> {
    this.writing();
    this.sql.get("setPushSubscription").run(subscription, deviceId);
  }

  async dropPushSubscription(deviceId: string, subscription: string): Promise<void> {
    this.writing();
    this.sql.get("dropPushSubscription").run(deviceId, subscription);
  }

  async insertAnswer(answer: NewAnswer) {
    const changes = this.writing();
    const inserted = Number(this.sql.get("insertAnswer").run({ ...answer }).changes) > 0;
    if (inserted) {
      changes.push({ kind: "answers", installationId: answer.installationId });
      return { created: true as const };
    }
    const row = this.sql.get("answerBody").get(answer.installationId, answer.responseId) as Row;
    return { created: false as const, existingBody: text(row.body) };
  }

  async answersAfter(installationId: string, after: string | null, floor: number, limit: number): Promise<StoredRow[]> {
    const rows = this.sql.get("answersAfter").all(installationId, after === null ? 0 : Number(after), floor, limit);
    return (rows as Row[]).map((row) => ({ position: text(row.seq), body: text(row.body), at: Number(row.at) }));
  }

  async ackAnswers(installationId: string, upTo: string, now: number): Promise<void> {
    this.writing();
    this.sql.get("ackAnswers").run(now, installationId, Number(upTo));
  }

  async insertEnvelope(envelope: NewEnvelope): Promise<InsertEnvelopeResult> {
    const changes = this.writing();
    const key = envelope.idempotencyKey ?? null;
    const result = this.sql
      .get("insertEnvelope")
      .run(envelope.id, envelope.installationId, envelope.body, envelope.createdAt, key);
    if (Number(result.changes) === 0 && key !== null) {
      const row = this.sql.get("envelopeByIdempotencyKey").get(envelope.installationId, key) as Row;
      return { created: false, existingId: text(row.id), existingBody: text(row.body) };
    }
    const seq = Number(result.lastInsertRowid);
    for (const deviceId of envelope.recipients) {
      this.sql.get("insertRecipient").run(deviceId, seq);
      changes.push({ kind: "envelopes", deviceId });
    }
    return { created: true };
  }

  async envelopeByIdempotencyKey(installationId: string, key: string) {
    const row = this.sql.get("envelopeByIdempotencyKey").get(installationId, key) as Row | undefined;
    return row && { id: text(row.id), body: text(row.body) };
  }

  async envelopesAfter(deviceId: string, after: string | null, floor: number, limit: number): Promise<EnvelopeRow[]> {
    const rows = this.sql.get("envelopesAfter").all(deviceId, after === null ? 0 : Number(after), floor, limit);
    return (rows as Row[]).map((row) => ({
      position: text(row.seq),
      envelopeId: text(row.id),
      body: text(row.body),
      at: Number(row.at),
    }));
  }

  async ackEnvelopes(deviceId: string, upTo: string, now: number): Promise<void> {
    const changes = this.writing();
    const fetched = this.sql.get("fetchedReceipts").all({ now, deviceId, upTo: Number(upTo) }) as Row[];
    for (const installationId of new Set(fetched.map((row) => text(row.installation_id)))) {
      changes.push({ kind: "receipts", installationId });
    }
    this.sql.get("ackEnvelopes").run(now, deviceId, Number(upTo));
  }

  async recordReceipt(
    envelopeId: string,
    deviceId: string,
    state: ReportedReceiptState,
    now: number,
  ): Promise<RecordReceiptResult> {
    const changes = this.writing();
    const sealed = this.sql.get("sealedTo").get(deviceId, envelopeId) as Row | undefined;
    if (!sealed) return { outcome: "unknown" };
    const installationId = text(sealed.installation_id);
    const seq = Number(sealed.seq);
    const insert = (what: ReceiptState) =>
      Number(this.sql.get("insertReceipt").run(installationId, seq, deviceId, what, now).changes) > 0;
    insert("fetched");
    if (!insert(state)) {
      return { outcome: "repeat", at: Number((this.sql.get("receiptAt").get(seq, deviceId, state) as Row).at) };
    }
    changes.push({ kind: "receipts", installationId });
    return { outcome: "recorded", at: now };
  }

  async receiptsAfter(
    installationId: string,
    after: string | null,
    floor: number,
    limit: number,
  ): Promise<ReceiptRow[]> {
    const rows = this.sql.get("receiptsAfter").all(installationId, after === null ? 0 : Number(after), floor, limit);
    return (rows as Row[]).map((row) => ({
      position: text(row.seq),
      envelopeId: text(row.id),
      idempotencyKey: nullableText(row.idempotency_key),
      deviceId: text(row.device_id),
      state: text(row.state) as ReceiptState,
      at: Number(row.at),
    }));
  }

  async prune(options: { now: number; ageCutoff: number; ackCutoff: number; batch: number }) {
    this.writing();
    const window = { ageCutoff: options.ageCutoff, ackCutoff: options.ackCutoff, batch: options.batch };
    return {
      answers: Number(this.sql.get("pruneAnswers").run(window).changes),
      envelopes: Number(this.sql.get("pruneEnvelopes").run(window).changes),
      pairings: Number(this.sql.get("prunePairings").run(options.now, options.batch).changes),
    };
  }
}

function open(path: string, readOnly: boolean): DatabaseSync {
  const db = new DatabaseSync(path, { readOnly, timeout: 5000 });
  // WAL: readers never block the writer. synchronous=NORMAL: a commit survives a killed process (the WAL is in the
  // OS page cache); only a power cut can lose the last commits, which docs/relay.md states.
  if (!readOnly) db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * SQLite store: one writer connection whose units of work run one at a time (never interleaved), grouped into one
 * commit per event-loop turn, and one read-only connection that sees committed rows only. Because
 * writers are serialized, `seq` order is commit order and a cursor on `seq` cannot skip a late commit.
 */
export class SqliteStore implements RelayStore {
  readonly backend = "sqlite" as const;
  private readonly writer: Statements;
  private readonly reader: Statements;
  private queue: Promise<unknown> = Promise.resolve();
  private pending: Unit[] = [];
  private scheduled = false;
  private readonly listeners = new Set<(change: Change) => void>();

  constructor(readonly path: string) {
    if (path !== ":memory:") {
      // relay.db holds answers and nonces: 0600 in a 0700 directory whatever the umask. SQLite gives -wal and -shm
      // the database file's mode, so the file is made first; files an older relay left wider are tightened.
      secureDataDir(dirname(path));
      closeSync(openSync(path, "a", 0o600));
      for (const suffix of ["", "-wal", "-shm", "-journal"]) tighten(`${path}${suffix}`);
    }
    const writer = open(path, false);
    migrate(writer);
    if (path !== ":memory:") for (const suffix of ["-wal", "-shm"]) tighten(`${path}${suffix}`);
    this.writer = new Statements(writer);
    // An in-memory database is private to its connection, so it reads through the writer.
    this.reader = path === ":memory:" ? this.writer : new Statements(open(path, true));
  }

  isPosition(position: string): boolean {
    return /^\d{1,15}$/.test(position);
  }

  transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve, reject } as Unit);
      if (!this.scheduled) {
        this.scheduled = true;
        // Units asked for during one event-loop turn share one commit (group commit): the I/O phase has read
        // every ready request by the time setImmediate runs.
        setImmediate(() => {
          this.queue = this.queue.then(() => this.flush());
        });
      }
    });
  }

  /**
   * Runs the pending units in one SQLite transaction, each inside its own savepoint, so a unit that throws rolls
   * back alone. Every unit's promise settles only after the COMMIT: a caller never reports what is not durable.
   */
  private async flush(): Promise<void> {
    this.scheduled = false;
    const db = this.writer.db;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_GROUP);
      const outcomes: { unit: Unit; ok: boolean; value: unknown; changes: Change[] }[] = [];
      db.exec("BEGIN IMMEDIATE");
      try {
        for (const unit of batch) {
          const changes: Change[] = [];
          db.exec("SAVEPOINT unit");
          try {
            const value = await unit.work(new SqliteTx(this.writer, changes));
            db.exec("RELEASE unit");
            outcomes.push({ unit, ok: true, value, changes });
          } catch (error) {
            db.exec("ROLLBACK TO unit");
            db.exec("RELEASE unit");
            outcomes.push({ unit, ok: false, value: error, changes: [] });
          }
        }
        db.exec("COMMIT");
      } catch (error) {
        if (db.isTransaction) db.exec("ROLLBACK");
        for (const unit of batch) unit.reject(error);
        continue;
      }
      for (const outcome of outcomes) {
        if (!outcome.ok) {
          outcome.unit.reject(outcome.value);
          continue;
        }
        for (const change of outcome.changes) this.emit(change);
        outcome.unit.resolve(outcome.value);
      }
    }
  }

  /** SQLite already shares one commit among every unit of an event-loop turn (`flush`). */
  storeAnswer(answer: NewAnswer): Promise<InsertAnswerResult> {
    return this.transaction((tx) => tx.insertAnswer(answer));
  }

  storeEnvelope(envelope: NewEnvelope): Promise<InsertEnvelopeResult> {
    return this.transaction((tx) => tx.insertEnvelope(envelope));
  }

  /**
   * Reads on the read-only connection, which sees committed rows only (the feeds' cursor safety rests on it), except
   * the bearer lookups by token digest, which read on the writer. A read transaction that starts after another
   * connection's commit drops that connection's whole page cache, and with a commit every event-loop turn the
   * reader re-read the devices' index and table pages for every request: 10.9% of a SQLite relay's CPU profile
   * under bench:relay (issue 33). The writer's cache survives its own commits. What the writer may see beyond the
   * reader is its own open group transaction: a device revoked there is refused a little earlier, and a token
   * created there is unknown to anyone until its commit (a claim answers after committing).
   */
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return work(new SqliteTx(this.reader, undefined, this.writer));
  }

  onChange(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  async reachable(): Promise<boolean> {
    try {
      this.reader.db.prepare("SELECT 1").get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    while (this.scheduled || this.pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
    await this.queue;
    if (this.reader !== this.writer) this.reader.db.close();
    this.writer.db.close();
  }
}
