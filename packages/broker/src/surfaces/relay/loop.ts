import type { RelayStoredAnswer } from "@notify/contracts/relay-api";
import { cappedServerDelayMs, retryAfterMs } from "@notify/contracts/retry";
import { DomainError } from "../../domain/errors.js";
import type { RespondInput } from "../../interactions/types.js";
import { relaySettings } from "../../relay/relay-adapter.js";
import { relayRequest, relayUrl } from "../../relay/relay-http.js";
import type { SurfaceLoopContext } from "../supervisor.js";

/** What one poll run ended with, for tests and `notify relay status`. */
export interface PollStats {
  polls: number;
  accepted: number;
  replayed: number;
  refused: number;
  failures: number;
  lastCode?: string;
}

/**
 * The answer fields the broker reads from one element of `responses` (the contract's stored answer body); a row
 * without `installation_id` is taken as this installation's.
 */
type RelayAnswerRow = Omit<RelayStoredAnswer, "contract_version" | "received_at" | "installation_id"> &
  Partial<Pick<RelayStoredAnswer, "installation_id">>;

function answerRow(value: unknown): RelayAnswerRow | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const row = value as Record<string, unknown>;
  for (const field of ["response_id", "interaction_id", "request_digest", "nonce", "device_id"]) {
    if (typeof row[field] !== "string" || row[field] === "") return undefined;
  }
  if (row.choice_id !== undefined && typeof row.choice_id !== "string") return undefined;
  if (row.text !== undefined && typeof row.text !== "string") return undefined;
  return row as unknown as RelayAnswerRow;
}

/**
 * The relay answer poll (docs/relay.md, "The answer poll"): one continuous, low-frequency loop per enabled
 * relay provider. Each answer is settled through the respond rules with `source` = `relay` and its `device_id`
 * (a repeat replays, a different second answer is refused); only then is the page's cursor stored and sent back,
 * so a crash in between replays the page and settles nothing twice. 401/403 stop the loop with the cursor kept
 * until the profile is saved again; 5xx, 429 and network failures back off (bounded) and retry.
 */
export async function relayLoop(context: SurfaceLoopContext): Promise<void> {
  const { profile, signal, cursors, timings } = context;
  const stats = context.keepStats<PollStats>({ polls: 0, accepted: 0, replayed: 0, refused: 0, failures: 0 });
  const stop = cursors.get(profile.id).stopped;
  // Stopped by a 401/403 for this very profile version: wait until the owner saves it again (a new token).
  if (stop && stop.profileVersion === profile.updatedAt) return;
  if (stop) cursors.saveStop(profile.id, null, context.clock.now());
  const relay = relaySettings(profile.settings);
  let useWait = true;
  let failures = 0;
  while (!signal.aborted) {
    let token: string;
    try {
      token = context.outbound.openSecrets(profile.id).installationToken ?? "";
    } catch {
      token = "";
    }
    if (token === "") {
      stats.lastCode = "provider_secrets_unreadable";
      failures++;
      await context.sleep(context.backoff(failures));
      continue;
    }
    const cursor = cursors.get(profile.id).cursor;
    const query = new URLSearchParams({ installation_id: relay.installationId });
    if (cursor !== undefined) query.set("since", cursor);
    if (useWait) query.set("wait", String(timings.waitSeconds));
    const startedMs = Date.now();
    stats.polls++;
    const reply = await relayRequest({
      url: relayUrl(relay.url, `/v1/interaction-responses?${query}`),
      token,
      signal,
      timeoutMs: (timings.waitSeconds + 15) * 1000,
    });
    if (signal.aborted) return;
    if (reply.ok) {
      const page = reply.body as { responses?: unknown; next_cursor?: unknown };
      if (!Array.isArray(page?.responses) || typeof page.next_cursor !== "string") {
        stats.lastCode = "relay_bad_reply";
        failures++;
        await context.sleep(context.backoff(failures));
        continue;
      }
      failures = 0;
      delete stats.lastCode;
      for (const row of page.responses) settle(context, row, relay.installationId, stats);
      // Acknowledge only now: the answers above are settled (each in its own committed transaction).
      if (page.next_cursor !== cursor) cursors.saveCursor(profile.id, page.next_cursor, context.clock.now());
      if (page.responses.length === 0 && Date.now() - startedMs < timings.idleMs) {
        await context.sleep(timings.idleMs);
      }
      continue;
    }
    stats.lastCode = reply.code;
    if (reply.status === 401 || reply.status === 403) {
      cursors.saveStop(profile.id, { status: reply.status, profileVersion: profile.updatedAt }, context.clock.now());
      context.logger.warn(
        `relay poll for provider ${profile.name} stopped: HTTP ${reply.status} (cursor kept; save the provider again to resume)`,
      );
      return;
    }
    if (reply.status === 400 && useWait) {
      // A relay without long polls: plain polls at the idle interval.
      useWait = false;
      continue;
    }
    failures++;
    stats.failures++;
    // The relay's Retry-After, when longer than the backoff, up to the cap every server-named delay has (a value
    // past the timer limit would otherwise fire at once: a hot loop).
    const requested = reply.headers ? retryAfterMs(reply.headers, Date.now()) : undefined;
    await context.sleep(Math.max(context.backoff(failures), cappedServerDelayMs(requested, timings.maxServerDelayMs)));
  }
}

/**
 * One answer through the respond rules (docs/relay.md, "The answer poll": source relay); refusals are counted, never
 * thrown.
 */
function settle(context: SurfaceLoopContext, value: unknown, installationId: string, stats: PollStats): void {
  const row = answerRow(value);
  if (!row || (row.installation_id !== undefined && row.installation_id !== installationId)) {
    stats.refused++;
    return;
  }
  const answer: RespondInput = {
    response_id: row.response_id,
    request_digest: row.request_digest,
    nonce: row.nonce,
    source: "relay",
    device_id: row.device_id,
  };
  if (row.choice_id !== undefined) answer.choice_id = row.choice_id;
  if (row.text !== undefined) answer.text = row.text;
  try {
    const before = context.interactions.find(row.interaction_id);
    const settled = context.interactions.answer(row.interaction_id, answer);
    if (before?.status === "answered" && settled.response?.response_id === row.response_id) stats.replayed++;
    else stats.accepted++;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // Not found, already answered differently, closed, stale digest or nonce, wrong shape: the broker decides
    // (docs/relay.md, "Retention"), and the relay keeps the row until retention. No answer text or nonce is logged.
    stats.refused++;
    context.logger.info(`relay answer for ${row.interaction_id} refused: HTTP ${error.status}`);
  }
}
