import type { RelayStoredAnswer } from "@notify/contracts/relay-api";
import { exceedsChars, RELAY_ANSWER_ID_FIELDS, RELAY_ANSWER_LIMITS } from "@notify/contracts/relay-limits";
import { RELAY_CONTRACT_VERSION } from "@notify/contracts/relay-version";
import { RelayError } from "./errors.js";

export { RELAY_CONTRACT_VERSION };

/**
 * The answer body a phone posts (docs/relay.md, "The answer body"), with exactly one of choice_id and text: the
 * contract's stored answer without the relay's `received_at`. The relay checks it by hand rather than with the
 * contract's zod schema: zod would be the relay's only use of it and costs about 17 MB of RSS at start
 * (docs/relay.md, "Answer checks"), and the contract's check order decides the status, not a schema's.
 */
export type CheckedAnswer = Omit<RelayStoredAnswer, "received_at">;

const { idMax, choiceIdMax, textMax } = RELAY_ANSWER_LIMITS;
const present = (value: unknown): boolean => value !== undefined && value !== null;
const isText = (value: unknown): value is string => typeof value === "string";

/**
 * Checks 2 to 6 of POST /v1/interaction-responses, in the documented order
 * (docs/relay.md, "`POST /v1/interaction-responses` (device token)"), so a body failing two checks gets the earlier
 * one's status (check 1, the token, runs before the body is read; check 7 needs the store). The relay checks shape
 * only: digest, nonce and expiry are the broker's to re-check. Unknown fields are not answer fields: they are dropped,
 * never stored or served.
 */
export function checkAnswer(body: unknown, deviceId: string): CheckedAnswer {
  const fields = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<
    string,
    unknown
  >;
  // 2. contract_version is "1".
  if (fields.contract_version !== RELAY_CONTRACT_VERSION) {
    throw new RelayError("unsupported_contract_version", 'contract_version must be "1"');
  }
  // 3. The four identifying fields are present (as non-empty strings).
  for (const name of ["response_id", "interaction_id", "request_digest", "nonce"] as const) {
    const value = fields[name];
    if (!isText(value) || value.length === 0) throw new RelayError("invalid_request", `${name} is required`);
  }
  // 4. Exactly one of choice_id and text.
  if (present(fields.choice_id) === present(fields.text)) {
    throw new RelayError("invalid_request", "exactly one of choice_id and text is required");
  }
  // 5. Bounds: the contract's own numbers and way of counting (code points), so this check and `RelayAnswer` cannot
  // drift apart.
  for (const name of RELAY_ANSWER_ID_FIELDS) {
    const value = fields[name];
    // device_id is check 6's: it must equal the authenticated device's id, which is within the bound. A missing or
    // empty installation_id fails check 7 (403).
    if (name !== "device_id" && isText(value) && exceedsChars(value, idMax)) {
      throw new RelayError("invalid_request", `${name} must be 1-${idMax} chars`);
    }
  }
  if (present(fields.choice_id)) {
    const choice = fields.choice_id;
    if (!isText(choice) || choice.length < 1 || exceedsChars(choice, choiceIdMax)) {
      throw new RelayError("invalid_request", `choice_id must be 1-${choiceIdMax} chars`);
    }
  } else if (!isText(fields.text) || exceedsChars(fields.text, textMax)) {
    throw new RelayError("invalid_request", `text must be at most ${textMax} chars`);
  }
  if (present(fields.installation_id) && !isText(fields.installation_id)) {
    throw new RelayError("invalid_request", "installation_id must be a string");
  }
  // 6. device_id equals the authenticated device.
  if (fields.device_id !== deviceId) {
    throw new RelayError("forbidden", "device_id is not the authenticated device");
  }
  // Check 7 (the installation) is the caller's; a missing installation_id fails it with 403.
  const answer: CheckedAnswer = {
    contract_version: RELAY_CONTRACT_VERSION,
    response_id: fields.response_id as string,
    interaction_id: fields.interaction_id as string,
    request_digest: fields.request_digest as string,
    nonce: fields.nonce as string,
    installation_id: (fields.installation_id as string | undefined) ?? "",
    device_id: deviceId,
  };
  if (present(fields.choice_id)) answer.choice_id = fields.choice_id as string;
  else answer.text = fields.text as string;
  return answer;
}

/**
 * The stored form: the answer fields in a fixed order, so "byte-identical answer fields" (the 409 duplicate rule)
 * is a string comparison.
 */
export function storedAnswerBody(answer: CheckedAnswer): string {
  const ordered: Record<string, string> = {
    contract_version: answer.contract_version,
    response_id: answer.response_id,
    interaction_id: answer.interaction_id,
    request_digest: answer.request_digest,
    nonce: answer.nonce,
  };
  if (answer.choice_id !== undefined) ordered.choice_id = answer.choice_id;
  if (answer.text !== undefined) ordered.text = answer.text;
  ordered.installation_id = answer.installation_id;
  ordered.device_id = answer.device_id;
  return JSON.stringify(ordered);
}
