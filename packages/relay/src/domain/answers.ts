import type { RelayAnswerRecorded } from "@notify/contracts/relay-api";
import type { Device, Installation } from "../store/types.js";
import { type CheckedAnswer, checkAnswer, storedAnswerBody } from "./answer-check.js";
import type { Cancellation } from "./change-hub.js";
import { isoTime } from "./clock.js";
import type { DomainDeps } from "./deps.js";
import { reaches } from "./devices.js";
import { RelayError } from "./errors.js";

/**
 * Installations never change owner and are never deleted, so a found one is remembered (bounded): an answer then
 * costs no lookup of its installation. Unknown ids are not remembered (one may be enrolled a moment later).
 */
async function installationById(deps: DomainDeps, id: string): Promise<Installation | undefined> {
  const knownInstallations = deps.knownInstallations;
  const known = knownInstallations.get(id);
  if (known) return known;
  const found = await deps.store.read((tx) => tx.installationById(id));
  if (found) {
    if (knownInstallations.size >= 10_000) knownInstallations.clear();
    knownInstallations.set(id, found);
  }
  return found;
}

/** The contract's answer body (a type only: the relay loads no schema library at run time). */
export type SubmitOutcome = RelayAnswerRecorded;

/**
 * POST /v1/interaction-responses, checks 2 to 9 (check 1 and the media type and size checks are the HTTP edge's,
 * before the body is parsed). An answer to an already settled interaction is still stored: the broker decides.
 */
export async function submitAnswer(deps: DomainDeps, device: Device, body: unknown): Promise<SubmitOutcome> {
  const answer: CheckedAnswer = checkAnswer(body, device.id);
  const installation = answer.installation_id === "" ? undefined : await installationById(deps, answer.installation_id);
  // 7. The device shares the installation's owner or holds the legacy direct link.
  if (!installation || !reaches(installation, device)) {
    throw new RelayError("forbidden", "this device is not paired with that installation");
  }
  const stored = storedAnswerBody(answer);
  // 9. Unique per (installation_id, response_id). Committed (possibly with concurrent answers) before this returns.
  const result = await deps.store.storeAnswer({
    installationId: installation.id,
    responseId: answer.response_id,
    deviceId: device.id,
    body: stored,
    receivedAt: deps.clock.now(),
  });
  if (result.created) return { status: "accepted", response_id: answer.response_id };
  if (result.existingBody === stored) return { status: "duplicate", response_id: answer.response_id };
  throw new RelayError("conflict", "response_id was already used for a different answer");
}

/** GET /v1/interaction-responses: each element is the stored answer body plus `received_at`. */
export async function listAnswers(
  deps: DomainDeps,
  installation: Installation,
  query: { installationId?: string | undefined; since?: string | undefined; wait: number },
  signal?: Cancellation,
) {
  if (query.installationId !== undefined && query.installationId !== installation.id) {
    throw new RelayError("forbidden", "forbidden");
  }
  const store = deps.store;
  const page = await deps.feed.page(
    {
      key: `a:${installation.id}`,
      fetch: (after, floor, limit) => store.read((tx) => tx.answersAfter(installation.id, after, floor, limit)),
      ack: (upTo, now) => store.transaction((tx) => tx.ackAnswers(installation.id, upTo, now)),
    },
    query.since,
    query.wait,
    signal,
  );
  return {
    responses: page.rows.map((row) => ({ ...(JSON.parse(row.body) as object), received_at: isoTime(row.at) })),
    next_cursor: page.nextCursor,
  };
}
