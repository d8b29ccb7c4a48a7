import { CHOICE_ID_PATTERN } from "@notify/contracts/enums";
import { invalid } from "../domain/errors.js";
import { parseBoolean, parseLimit, parseText, type Query, queryValue } from "../notifications/validate.js";
import { FieldReader } from "../validation/fields.js";
import {
  type Choice,
  DEFAULT_PERMISSION_CHOICES,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  type InteractionFilter,
  type InteractionInput,
  type InteractionStatus,
  type RespondInput,
} from "./types.js";

/**
 * The contract's pattern (issue 34: each pattern once); an answer's `source` has a choice id's shape
 * (docs/arc.md, "Limits").
 */
export { CHOICE_ID_PATTERN };
export const SOURCE_PATTERN = CHOICE_ID_PATTERN;

/** CreateInteractionRequest (docs/api.md, "POST /v1/interactions/request"). */
export function parseCreateInteraction(body: unknown): InteractionInput {
  const fields = new FieldReader(body);
  const key = fields.string("key", { max: 100 });
  const agent = fields.string("agent", { max: 100, trim: true });
  const agentInstance = fields.string("agent_instance", { max: 100 });
  const project = fields.string("project", { max: 200, trim: true });
  const sessionId = fields.string("session_id", { max: 100 });
  const turnId = fields.string("turn_id", { max: 200 });
  const nativeRequestId = fields.string("native_request_id", { max: 200 });
  const kind = fields.oneOf("kind", INTERACTION_KINDS) ?? "permission";
  const prompt = fields.string("prompt", { max: 2000, required: true });
  const textMaxLength = fields.integer("text_max_length", { min: 1, max: 2000 }) ?? 500;
  const ttlSeconds = fields.integer("ttl_seconds", { min: 30, max: 3600 }) ?? 600;
  const rawChoices = fields.raw("choices");
  let choices: Choice[] = [];
  if (kind === "text") {
    if (rawChoices !== undefined && rawChoices !== null && !(Array.isArray(rawChoices) && rawChoices.length === 0)) {
      fields.problem("choices are not allowed for kind text");
    }
  } else if ((rawChoices === undefined || rawChoices === null) && kind === "permission") {
    choices = DEFAULT_PERMISSION_CHOICES.map((choice) => ({ ...choice }));
  } else {
    choices = parseChoices(rawChoices, fields);
  }
  fields.finish();

  const input: InteractionInput = {
    agent: agent ?? "unknown",
    kind,
    prompt: prompt as string,
    choices,
    text_max_length: textMaxLength,
    ttl_seconds: ttlSeconds,
  };
  if (key !== undefined) input.key = key;
  if (agentInstance !== undefined) input.agent_instance = agentInstance;
  if (project !== undefined) input.project = project;
  if (sessionId !== undefined) input.session_id = sessionId;
  if (turnId !== undefined) input.turn_id = turnId;
  if (nativeRequestId !== undefined) input.native_request_id = nativeRequestId;
  return input;
}

function parseChoices(raw: unknown, fields: FieldReader): Choice[] {
  if (!Array.isArray(raw)) {
    fields.problem("choices is required for choice kinds and must be an array");
    return [];
  }
  if (raw.length < 2 || raw.length > 12) {
    fields.problem("choices must have 2-12 entries");
    return [];
  }
  const choices: Choice[] = [];
  const ids = new Set<string>();
  raw.forEach((entry, index) => {
    let choiceFields: FieldReader;
    try {
      choiceFields = new FieldReader(entry, `choices[${index}]`);
    } catch {
      fields.problem(`choices[${index}] must be an object`);
      return;
    }
    const id = choiceFields.string("id", { max: 64, required: true });
    const label = choiceFields.string("label", { max: 200, required: true });
    const detail = choiceFields.string("detail", { max: 500 });
    try {
      choiceFields.finish();
    } catch (error) {
      fields.problem(`choices[${index}]: ${(error as Error).message}`);
      return;
    }
    if (id === undefined || label === undefined) return;
    if (!CHOICE_ID_PATTERN.test(id)) {
      fields.problem(`choices[${index}].id must match ${CHOICE_ID_PATTERN.source}`);
      return;
    }
    if (ids.has(id)) {
      fields.problem(`choices[${index}].id duplicates another choice`);
      return;
    }
    ids.add(id);
    choices.push(detail === undefined ? { id, label } : { id, label, detail });
  });
  return choices;
}

/**
 * RespondInteractionRequest (docs/api.md, "POST /v1/interactions/{id}/respond"). Only the structure is checked here;
 * digest, nonce, state and shape against the interaction are the service's ordered checks.
 */
export function parseRespond(body: unknown): RespondInput {
  const fields = new FieldReader(body);
  const responseId = fields.string("response_id", { max: 128, required: true });
  const requestDigest = fields.string("request_digest", { max: 64, required: true });
  const nonce = fields.string("nonce", { max: 128, required: true });
  const choiceId = fields.string("choice_id", { max: 64 });
  const text = fields.string("text", { min: 0, max: 2000 });
  const source = fields.string("source", { max: 64 });
  if (source !== undefined && !SOURCE_PATTERN.test(source))
    fields.problem(`source must match ${SOURCE_PATTERN.source}`);
  const deviceId = fields.string("device_id", { max: 128 });
  fields.finish();
  const input: RespondInput = {
    response_id: responseId as string,
    request_digest: requestDigest as string,
    nonce: nonce as string,
    source: source ?? "api",
  };
  if (choiceId !== undefined) input.choice_id = choiceId;
  if (text !== undefined) input.text = text;
  if (deviceId !== undefined) input.device_id = deviceId;
  return input;
}

/** GET /v1/interactions query (docs/api.md, "GET /v1/interactions"). */
export function parseInteractionFilter(query: Query): InteractionFilter {
  const filter: InteractionFilter = { limit: parseLimit(query) };
  const pending = parseBoolean(query, "pending");
  if (pending !== undefined) filter.pending = pending;
  const status = parseText(query, "status");
  if (status !== undefined) {
    if (!(INTERACTION_STATUSES as readonly string[]).includes(status)) {
      throw invalid(`status must be one of ${INTERACTION_STATUSES.join(", ")}`);
    }
    filter.status = status as InteractionStatus;
  }
  const agent = parseText(query, "agent");
  if (agent !== undefined) filter.agent = agent;
  const project = parseText(query, "project");
  if (project !== undefined) filter.project = project;
  const session = parseText(query, "session");
  if (session !== undefined) filter.session = session;
  return filter;
}

/** Wait `timeout` in seconds: clamped to 1-300, default 60; anything unparsable is the default. */
export function parseWaitTimeout(query: Query): number {
  const raw = query.timeout;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === "") return 60;
  const seconds = Number(value);
  if (!Number.isFinite(seconds)) return 60;
  return Math.min(300, Math.max(1, seconds));
}

/**
 * `abandon=cancel` on POST /v1/interactions/request and GET .../wait (docs/mcp.md, "When the asker dies"): an opt-in
 * of Notify's own (docs/api.md, "POST /v1/interactions/request") that withdraws the interaction once nobody has waited
 * on it for a few seconds. Absent, an interaction behaves as the plain API says; any other value is refused, so a typo
 * does not silently leave a question to its TTL.
 */
export function parseAbandon(query: Query): boolean {
  const value = queryValue(query, "abandon");
  if (value === undefined) return false;
  if (value !== "cancel") throw invalid("abandon must be cancel");
  return true;
}
