import * as z from "zod";
import { CHOICE_ID_PATTERN, INTERACTION_KINDS } from "../enums.js";
import { FORM_FIELD_TYPES, FORM_LIMITS, FORM_MODES, FORM_STRING_FORMATS } from "../form-context.js";
import {
  FILE_CHANGE_STATUSES,
  TOOL_CONTEXT_KINDS,
  TOOL_CONTEXT_LIMITS,
  TURN_MAX_MESSAGES,
  TURN_MESSAGE_MAX_CHARS,
  TURN_ROLES,
} from "../item-context.js";

/**
 * Relay contract version 1 (docs/relay.md, "The relay contract (version 1)"): the answer body a phone posts and the
 * plaintext of an interaction request.
 */
import { RELAY_ANSWER_LIMITS } from "./limits.js";
import { RELAY_CONTEXT_MAX_BYTES, RELAY_MACHINE_MAX_CHARS } from "./payloads.js";
import { RELAY_CONTRACT_VERSION } from "./version.js";

export { RELAY_CONTRACT_VERSION };

const { idMax, choiceIdMax, textMax } = RELAY_ANSWER_LIMITS;
const answerId = z.string().min(1).max(idMax);

/** POST {relay}/v1/interaction-responses body. Exactly one of choice_id and text. Bounds: limits.ts. */
const answerBase = {
  contract_version: z.literal(RELAY_CONTRACT_VERSION),
  response_id: answerId,
  interaction_id: answerId,
  request_digest: answerId,
  nonce: answerId,
  installation_id: answerId,
  device_id: answerId,
};
export const RelayAnswer = z.union([
  z.strictObject({ ...answerBase, choice_id: z.string().min(1).max(choiceIdMax) }),
  z.strictObject({ ...answerBase, text: z.string().max(textMax) }),
]);

const nullableText = z.string().nullable().optional();

export const RelayChoice = z.strictObject({
  id: z.string().regex(CHOICE_ID_PATTERN),
  label: z.string().min(1).max(200),
  detail: z.string().min(1).max(500).optional(),
});

/** Plaintext inside the sealed envelope (`payload_kind` = `interaction-request`). */
export const RelayInteractionRequest = z.strictObject({
  payload_kind: z.literal("interaction-request"),
  contract_version: z.literal(RELAY_CONTRACT_VERSION),
  interaction: z.strictObject({
    id: z.string().min(1),
    key: nullableText,
    agent: nullableText,
    agent_instance: nullableText,
    project: nullableText,
    session_id: nullableText,
    kind: z.enum(INTERACTION_KINDS),
    prompt: z.string().min(1).max(2000),
    choices: z.array(RelayChoice).max(12).optional(),
    text_max_length: z.int().min(1).max(2000),
    status: z.literal("pending"),
    request_digest: z.string().regex(/^[0-9a-f]{64}$/),
    nonce: z.string().min(1).max(128),
    created_at: z.iso.datetime({ offset: true }),
    expires_at: z.iso.datetime({ offset: true }),
    context: z
      .union([
        z.strictObject({
          kind: z.literal("turn"),
          duration_ms: z.int().min(0).optional(),
          messages: z
            .array(z.strictObject({ role: z.enum(TURN_ROLES), text: z.string().min(1).max(TURN_MESSAGE_MAX_CHARS) }))
            .max(TURN_MAX_MESSAGES),
          truncated: z.boolean(),
          bytes: z.int().min(0).max(RELAY_CONTEXT_MAX_BYTES),
        }),
        z.strictObject({
          kind: z.enum(TOOL_CONTEXT_KINDS),
          files: z
            .array(
              z.strictObject({
                path: z.string().min(1).max(TOOL_CONTEXT_LIMITS.path),
                status: z.enum(FILE_CHANGE_STATUSES),
                added: z.int().min(0),
                removed: z.int().min(0),
                diff: z.string(),
                changed_on_disk: z.boolean().optional(),
                cut_lines: z.int().min(1).optional(),
              }),
            )
            .max(TOOL_CONTEXT_LIMITS.files)
            .optional(),
          command: z.string().optional(),
          cwd: z.string().max(TOOL_CONTEXT_LIMITS.cwd).optional(),
          reason: z.string().max(TOOL_CONTEXT_LIMITS.reason).optional(),
          url: z.string().max(TOOL_CONTEXT_LIMITS.url).optional(),
          json: z.string().optional(),
          truncated: z.boolean(),
          bytes: z.int().min(0).max(RELAY_CONTEXT_MAX_BYTES),
        }),
        z.strictObject({
          kind: z.literal("form"),
          form: z.string().min(1).max(FORM_LIMITS.form),
          server: z.string().min(1).max(FORM_LIMITS.server),
          mode: z.enum(FORM_MODES),
          message: z.string().min(1).max(FORM_LIMITS.message),
          url: z.string().max(FORM_LIMITS.url).optional(),
          fields: z
            .array(
              z.strictObject({
                name: z.string().min(1).max(FORM_LIMITS.name),
                title: z.string().min(1).max(FORM_LIMITS.title),
                description: z.string().max(FORM_LIMITS.description).optional(),
                type: z.enum(FORM_FIELD_TYPES),
                required: z.boolean(),
                // A string, a number or a boolean (checked by the broker against the field when it was posted).
                default: z
                  .unknown()
                  .refine((value) => ["string", "number", "boolean"].includes(typeof value))
                  .optional(),
                minimum: z.number().optional(),
                maximum: z.number().optional(),
                min_length: z.number().optional(),
                max_length: z.number().optional(),
                format: z.enum(FORM_STRING_FORMATS).optional(),
                options: z
                  .array(
                    z.strictObject({
                      value: z.string().min(1).max(FORM_LIMITS.option),
                      label: z.string().min(1).max(FORM_LIMITS.option),
                    }),
                  )
                  .max(FORM_LIMITS.options)
                  .optional(),
              }),
            )
            .max(FORM_LIMITS.fields),
          field: z.string().max(FORM_LIMITS.name).optional(),
          truncated: z.boolean(),
          bytes: z.int().min(0).max(RELAY_CONTEXT_MAX_BYTES),
        }),
      ])
      .optional(),
    machine: z.string().min(1).max(RELAY_MACHINE_MAX_CHARS).optional(),
  }),
});

export type RelayAnswer = z.infer<typeof RelayAnswer>;
export type RelayInteractionRequest = z.infer<typeof RelayInteractionRequest>;
