import { randomHex } from "@notify/contracts/ids";
import type { Device, Installation } from "../store/types.js";
import type { Cancellation } from "./change-hub.js";
import { isoTime } from "./clock.js";
import type { DomainDeps } from "./deps.js";
import { reaches } from "./devices.js";
import { RelayError } from "./errors.js";

export const ENVELOPE_VERSION = "1";
const MAX_RECIPIENTS = 100;

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;

/**
 * The envelope's outer shape only: the relay cannot read the JWE and does not try. One recipient per device, named
 * by `kid` (docs/relay.md, "`POST /v1/envelopes` (installation token)").
 */
function recipientsOf(body: unknown, installation: Installation): { envelope: object; kids: string[] } {
  const bad = (why: string) => new RelayError("invalid_request", why);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw bad("body must be an object");
  const { envelope_version, sender_id, jwe } = body as Record<string, unknown>;
  if (envelope_version !== ENVELOPE_VERSION) throw bad('envelope_version must be "1"');
  if (!isText(sender_id)) throw bad("sender_id is required");
  if (sender_id !== installation.id) throw new RelayError("forbidden", "sender_id is not this installation");
  if (typeof jwe !== "object" || jwe === null || Array.isArray(jwe))
    throw bad("jwe must be a JWE in General JSON Serialization");
  const { recipients, ciphertext, iv, tag, protected: protectedHeader } = jwe as Record<string, unknown>;
  if (!isText(ciphertext) || !isText(iv) || !isText(tag) || !isText(protectedHeader)) {
    throw bad("jwe must carry protected, iv, ciphertext and tag");
  }
  if (!Array.isArray(recipients) || recipients.length === 0 || recipients.length > MAX_RECIPIENTS) {
    throw bad(`jwe.recipients must hold 1-${MAX_RECIPIENTS} entries`);
  }
  const kids: string[] = [];
  for (const recipient of recipients) {
    const kid = (recipient as { header?: { kid?: unknown } } | null)?.header?.kid;
    if (!isText(kid)) throw bad("every jwe recipient needs header.kid (the device_id)");
    if (!kids.includes(kid)) kids.push(kid);
  }
  return { envelope: { envelope_version, sender_id, jwe }, kids };
}

/**
 * A repeat of a stored envelope's idempotency key: the same envelope (its stored form, the outer fields in a fixed
 * order) gets the first one's id again, a different one is refused.
 */
function replayed(existing: { id: string; body: string }, text: string) {
  if (existing.body !== text) {
    throw new RelayError("conflict", "Idempotency-Key was already used for a different envelope");
  }
  return { envelope_id: existing.id };
}

/**
 * POST /v1/envelopes: stored for the recipients that are this owner's active devices (a device revoked since the
 * broker sealed is skipped, another owner's device never receives anything), then each recipient with a push
 * subscription gets a content-free wake-up after commit (none for `wake` false: `Notify-Push: none`). With an idempotency key (the `Idempotency-Key` header), a
 * retry of a stored envelope stores nothing and wakes nobody: it gets the first `envelope_id` (docs/relay.md).
 */
export async function postEnvelope(
  deps: DomainDeps,
  installation: Installation,
  body: unknown,
  idempotencyKey?: string,
  wake = true,
) {
  const { envelope, kids } = recipientsOf(body, installation);
  const envelopeId = `env_${randomHex(12)}`;
  const text = JSON.stringify(envelope);
  // The recipients are read before the (batched) insert: a device revoked in between gets a row it can never fetch
  // (its token no longer authenticates), as with PostgreSQL's READ COMMITTED inside one transaction.
  const recipients = (await deps.store.read((tx) => tx.devicesFor(installation.ownerId, installation.id))).filter(
    (device) => kids.includes(device.id) && reaches(installation, device),
  );
  if (recipients.length === 0) {
    // A retry of an envelope stored before its recipients went is still that envelope.
    const existing =
      idempotencyKey === undefined
        ? undefined
        : await deps.store.read((tx) => tx.envelopeByIdempotencyKey(installation.id, idempotencyKey));
    if (existing) return replayed(existing, text);
    throw new RelayError("invalid_request", "no recipient is an active paired device");
  }
  const stored = await deps.store.storeEnvelope({
    id: envelopeId,
    installationId: installation.id,
    body: text,
    createdAt: deps.clock.now(),
    recipients: recipients.map((device) => device.id),
    idempotencyKey,
  });
  if (!stored.created) return replayed({ id: stored.existingId, body: stored.existingBody }, text);
  for (const device of recipients) {
    if (wake && device.pushSubscription) {
      deps.push?.wake(device.id, device.pushSubscription, { envelope_id: envelopeId, version: ENVELOPE_VERSION });
    }
  }
  return { envelope_id: envelopeId };
}

/** GET /v1/envelopes: the device's envelopes, same cursor rules as answers. */
export async function listEnvelopes(
  deps: DomainDeps,
  device: Device,
  query: { since?: string | undefined; wait: number },
  signal?: Cancellation,
) {
  const store = deps.store;
  const page = await deps.feed.page(
    {
      key: `e:${device.id}`,
      fetch: (after, floor, limit) => store.read((tx) => tx.envelopesAfter(device.id, after, floor, limit)),
      ack: (upTo, now) => store.transaction((tx) => tx.ackEnvelopes(device.id, upTo, now)),
    },
    query.since,
    query.wait,
    signal,
  );
  return {
    envelopes: page.rows.map((row) => ({
      envelope_id: row.envelopeId,
      envelope: JSON.parse(row.body) as unknown,
      created_at: isoTime(row.at),
    })),
    next_cursor: page.nextCursor,
  };
}
