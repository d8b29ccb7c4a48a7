/**
 * The relay's storage, behind one interface with two implementations (store/sqlite, store/postgres). Domain code
 * sees only this file: no SQL leaves the store.
 *
 * Positions are opaque strings made by the store: they order rows in the order a reader may safely serve them (see
 * docs/relay.md, "Cursors"). The domain wraps them into the cursors clients see.
 */

import type { RelayReceiptState, RelayReportedReceiptState } from "@notify/contracts/enums";

export interface Installation {
  id: string;
  ownerId: string;
  name: string | null;
  createdAt: number;
}

export interface Device {
  id: string;
  /** Null for a legacy direct link, which belongs to one installation instead of an owner. */
  ownerId: string | null;
  directInstallationId: string | null;
  name: string;
  /** The X25519 JWK as posted at claim time (JSON text). */
  publicKey: string;
  /** The Web Push subscription (JSON text), if any. */
  pushSubscription: string | null;
  createdAt: number;
}

/** What a one-time code is for: a phone to pair, or another broker to join the owner (issue 37, item 2). */
export type PairingPurpose = "device" | "join";

export interface Pairing {
  installationId: string;
  ownerId: string;
  direct: boolean;
  purpose: PairingPurpose;
  expiresAt: number;
}

export interface NewAnswer {
  installationId: string;
  responseId: string;
  deviceId: string;
  /** The stored answer body (canonical JSON text of the answer fields). */
  body: string;
  receivedAt: number;
}

export type InsertAnswerResult = { created: true } | { created: false; existingBody: string };

export interface StoredRow {
  position: string;
  body: string;
  at: number;
}

export interface EnvelopeRow extends StoredRow {
  envelopeId: string;
}

/**
 * A hop an envelope took on a device (docs/relay.md, "Receipts"): `fetched` the relay records itself when the
 * device's acknowledged cursor passes the envelope; `shown` and `opened` the device reports.
 */
export type ReceiptState = RelayReceiptState;
export type ReportedReceiptState = RelayReportedReceiptState;

/** One receipt in an installation's receipt feed. */
export interface ReceiptRow {
  position: string;
  envelopeId: string;
  /** The `Idempotency-Key` the envelope was posted with, if any: the broker's own name for it. */
  idempotencyKey: string | null;
  deviceId: string;
  state: ReceiptState;
  at: number;
}

/** What recording a device's receipt did: stored, already stored, or no such envelope sealed to that device. */
export type RecordReceiptResult = { outcome: "recorded" | "repeat"; at: number } | { outcome: "unknown" };

export interface NewEnvelope {
  id: string;
  installationId: string;
  body: string;
  createdAt: number;
  recipients: readonly string[];
  /** The client's `Idempotency-Key`: unique per installation while the envelope is kept. */
  idempotencyKey?: string | undefined;
}

/** A second envelope with an installation's idempotency key is not stored: the first one's id and body come back. */
export type InsertEnvelopeResult = { created: true } | { created: false; existingId: string; existingBody: string };

export interface PruneResult {
  answers: number;
  envelopes: number;
  pairings: number;
}

export interface InstallationSummary extends Installation {
  devices: number;
}

export interface DeviceSummary extends Device {
  revokedAt: number | null;
}

/** What deleting an installation removed (`notify relay unenroll`, docs/relay.md). */
export interface DeletedInstallation {
  /** The devices deleted with it: their tokens are dead at once. */
  deviceIds: string[];
  answers: number;
  envelopes: number;
  pairings: number;
  /** Whether its owner went too (no other installation shares it). */
  owner: boolean;
}

/** One unit of work: every call inside `transaction` commits together or not at all. */
export interface StoreTx {
  createOwner(id: string, createdAt: number): Promise<void>;
  createInstallation(installation: Installation & { tokenHash: string }): Promise<void>;
  installationByTokenHash(tokenHash: string): Promise<Installation | undefined>;
  installationById(id: string): Promise<Installation | undefined>;
  listInstallations(): Promise<InstallationSummary[]>;
  /**
   * Deletes an installation and everything keyed by it: its answers, envelopes (with their recipients' rows),
   * pairing codes and directly linked devices. Its owner's devices and the owner go too unless another installation
   * shares the owner (whose phones must keep working). Each deleted device is announced as `revoked` at commit.
   * Undefined when there is no such installation.
   */
  deleteInstallation(id: string): Promise<DeletedInstallation | undefined>;

  createPairing(pairing: Pairing & { codeHash: string; createdAt: number }): Promise<void>;
  /** Deletes and returns the pairing of `purpose` if it exists and has not expired: a code works once. */
  takePairing(codeHash: string, now: number, purpose: PairingPurpose): Promise<Pairing | undefined>;
  /** The installations of an owner, oldest first (`notify relay machines`). */
  installationsOf(ownerId: string): Promise<Installation[]>;
  /** How many of an owner's join codes are unused and unexpired at `now`, and when the first of them expires. */
  openJoinCodes(ownerId: string, now: number): Promise<{ count: number; firstExpiry: number | null }>;

  createDevice(device: Device & { tokenHash: string }): Promise<void>;
  /** A device that is not revoked. */
  deviceByTokenHash(tokenHash: string): Promise<Device | undefined>;
  deviceById(id: string): Promise<Device | undefined>;
  /** Active devices of an owner, plus those directly linked to `installationId`. */
  devicesFor(ownerId: string, installationId: string): Promise<Device[]>;
  /** Every device, revoked ones too (operator listing). */
  listDevices(): Promise<DeviceSummary[]>;
  /** Announced (`revoked`) at commit when it revoked something. */
  revokeDevice(id: string, now: number): Promise<boolean>;
  setPushSubscription(deviceId: string, subscription: string): Promise<void>;
  /** Clears the subscription if it is still the one that failed (a device may have re-subscribed meanwhile). */
  dropPushSubscription(deviceId: string, subscription: string): Promise<void>;

  /** Unique per (installation_id, response_id): the second insert returns the first one's body. */
  insertAnswer(answer: NewAnswer): Promise<InsertAnswerResult>;
  /** Rows after `after` (or from the start) received at or after `floor`, in position order. */
  answersAfter(installationId: string, after: string | null, floor: number, limit: number): Promise<StoredRow[]>;
  /** Marks every answer up to `upTo` as acknowledged at `now` (once; later acks do not move the mark). */
  ackAnswers(installationId: string, upTo: string, now: number): Promise<void>;

  /** Unique per (installation_id, idempotency key) when a key is given: a repeat stores nothing (no recipients). */
  insertEnvelope(envelope: NewEnvelope): Promise<InsertEnvelopeResult>;
  /** The envelope stored under an installation's idempotency key, while it is kept. */
  envelopeByIdempotencyKey(installationId: string, key: string): Promise<{ id: string; body: string } | undefined>;
  envelopesAfter(deviceId: string, after: string | null, floor: number, limit: number): Promise<EnvelopeRow[]>;
  /**
   * Marks the device's envelopes up to `upTo` acknowledged at `now` and records a `fetched` receipt for each one this
   * acknowledges first (announced to its installation's receipt feed).
   */
  ackEnvelopes(deviceId: string, upTo: string, now: number): Promise<void>;

  /**
   * Records the device's receipt for an envelope sealed to it (and `fetched` with it when the device's cursor has not
   * passed it yet: it has the envelope). Once per (envelope, device, state): a repeat keeps the first time.
   */
  recordReceipt(
    envelopeId: string,
    deviceId: string,
    state: ReportedReceiptState,
    now: number,
  ): Promise<RecordReceiptResult>;
  /** An installation's receipts after `after` (or from the start) recorded at or after `floor`, in position order. */
  receiptsAfter(installationId: string, after: string | null, floor: number, limit: number): Promise<ReceiptRow[]>;

  /**
   * Deletes at most `batch` rows of each kind: answers past `answerCutoff` or acknowledged before `ackCutoff`,
   * envelopes likewise once every recipient acknowledged them, and expired pairings.
   */
  prune(options: { now: number; ageCutoff: number; ackCutoff: number; batch: number }): Promise<PruneResult>;
}

/**
 * What changed, so long-polls on any relay process wake up. `revoked`: a device's token is dead, so its held poll
 * ends with 401 at once. `missed`: announcements from other processes may have been lost (the wake-up channel was
 * down and is back), so every held poll reads again.
 */
export type Change =
  | { kind: "answers"; installationId: string }
  | { kind: "envelopes"; deviceId: string }
  | { kind: "receipts"; installationId: string }
  | { kind: "revoked"; deviceId: string }
  | { kind: "missed" };

export interface RelayStore {
  readonly backend: "sqlite" | "postgres";
  /** True when `position` is one this store could have made (cursors are client input). */
  isPosition(position: string): boolean;
  /** A unit of work: commits when `work` resolves, rolls back when it throws. Changes are announced after commit. */
  transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Stores one answer (unique per (installation_id, response_id): a second one returns the first one's body),
   * committed when the promise resolves. Concurrent calls may share one commit (group commit); each gets its own
   * outcome. Announced like a transaction's insert.
   */
  storeAnswer(answer: NewAnswer): Promise<InsertAnswerResult>;
  /**
   * Stores one envelope for its recipients (unless its idempotency key is taken: the first one's id and body come
   * back), committed when the promise resolves; batched like `storeAnswer`, each call with its own outcome.
   */
  storeEnvelope(envelope: NewEnvelope): Promise<InsertEnvelopeResult>;
  /** Reads outside a transaction: they see committed rows only. */
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Subscribes to committed changes from every relay process on this store (inserted answers and envelopes, and
   * revoked devices, announce themselves at commit), so long-polls wake up or end.
   */
  onChange(listener: (change: Change) => void): () => void;
  /** Whether the database answers a trivial query now (GET /healthz). */
  reachable(): Promise<boolean>;
  close(): Promise<void>;
}
