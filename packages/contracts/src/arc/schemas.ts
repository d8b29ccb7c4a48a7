import * as z from "zod";

/**
 * ARC 0.2 (docs/arc.md). One zod schema per part; `toJsonSchema` in ../json-schema.ts emits the 2020-12 files and the
 * TypeScript types below come from the same source (`z.infer`). Unknown core fields are rejected everywhere
 * (strict objects); only `extensions` admits unknown, correctly namespaced keys.
 */

// Kept in a module of its own so the producer client loads without zod (a hook process starts per agent event).
import {
  ARC_EVENT_TYPES,
  ARC_OUTCOMES,
  ARC_REQUEST_KINDS,
  CHOICE_ID_PATTERN,
  EXTENSION_KEY_PATTERN,
  NOTIFICATION_TYPE_PATTERN,
  PRIORITIES,
} from "../enums.js";
import { ITEM_CONTEXT_ID_PATTERN } from "../item-context.js";
import { ARC_VERSION } from "./version.js";

export { ARC_EVENT_TYPES, ARC_VERSION, CHOICE_ID_PATTERN, EXTENSION_KEY_PATTERN, NOTIFICATION_TYPE_PATTERN };

const text = (max: number, min = 1) => z.string().min(min).max(max);
const timestamp = z.iso.datetime({ offset: true });

export const Sender = z.strictObject({
  id: text(100),
  name: text(160).optional(),
  version: text(100, 0).optional(),
  instance_id: text(100, 0).optional(),
});

export const Context = z.strictObject({
  session_id: text(100, 0).optional(),
  correlation_id: text(200, 0).optional(),
  project: text(200, 0).optional(),
  cwd: text(1024, 0).optional(),
  pid: z.int().min(0).optional(),
  turn_id: text(200, 0).optional(),
  native_request_id: text(200, 0).optional(),
});

/** 1-100 characters with at least one non-whitespace character. */
export const ConditionKey = text(100).regex(/\S/, "must contain a non-whitespace character");

export const RequestKinds = ARC_REQUEST_KINDS;
export const RequestKind = z.enum(RequestKinds);
export const Priority = z.enum(PRIORITIES);
export const Outcome = z.enum(ARC_OUTCOMES);

export const Choice = z.strictObject({
  id: z.string().regex(CHOICE_ID_PATTERN),
  label: text(200),
  detail: text(500).optional(),
});

/** Choices must be unique by id (not expressible in JSON Schema; the validator checks it). */
const Choices = z
  .array(Choice)
  .min(2)
  .max(12)
  .superRefine((choices, context) => {
    const seen = new Set<string>();
    choices.forEach((choice, index) => {
      if (seen.has(choice.id)) {
        context.addIssue({ code: "custom", path: [index, "id"], message: "choice ids must be unique" });
      }
      seen.add(choice.id);
    });
  });

/** request.response, the answer specification; its presence makes the request answerable. */
export const AnswerSpec = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("permission"), choices: Choices, expires_at: timestamp }),
  z.strictObject({ kind: z.literal("single_choice"), choices: Choices, expires_at: timestamp }),
  z.strictObject({
    kind: z.literal("text"),
    text_max_length: z.int().min(1).max(2000).optional(),
    expires_at: timestamp,
  }),
]);

/** The request object of request.created and request.updated. */
const requestBody = {
  kind: RequestKind,
  title: text(200).optional(),
  message: text(4000),
  priority: Priority.optional(),
  response: AnswerSpec.optional(),
};
export const CreatedRequest = z.strictObject({ key: ConditionKey.optional(), ...requestBody });
export const UpdatedRequest = z.strictObject({ key: ConditionKey, ...requestBody });
export const ResolvedRequest = z.strictObject({ key: ConditionKey, outcome: Outcome.optional() });
export const AnswerRequest = z.strictObject({ key: ConditionKey });

/** Top-level `response` of response.submitted: exactly one of choice_id and text. */
const answerBase = {
  response_id: text(128),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  nonce: text(128).optional(),
  source: z.string().regex(CHOICE_ID_PATTERN).optional(),
  device_id: text(128).optional(),
};
export const SubmittedResponse = z.union([
  z.strictObject({ ...answerBase, choice_id: z.string().regex(CHOICE_ID_PATTERN) }),
  z.strictObject({ ...answerBase, text: text(2000) }),
]);

export const XNotify = z.strictObject({ notification_type: z.string().regex(NOTIFICATION_TYPE_PATTERN).optional() });

/** A question's context posted before it (docs/api.md, "Item context"), named by its id. */
export const XNotifyContext = z.strictObject({ id: z.string().regex(ITEM_CONTEXT_ID_PATTERN) });

/** `x-<vendor>` keys only; `x-notify` and `x-notify-context` are closed, other vendors' contents are ignored. */
export const Extensions = z
  .object({ "x-notify": XNotify.optional(), "x-notify-context": XNotifyContext.optional() })
  .catchall(z.unknown())
  .superRefine((extensions, context) => {
    for (const key of Object.keys(extensions)) {
      if (!EXTENSION_KEY_PATTERN.test(key)) {
        context.addIssue({
          code: "custom",
          path: [key],
          message: `extension key must match ${EXTENSION_KEY_PATTERN.source}`,
        });
      }
    }
  });

const envelope = {
  arc_version: z.literal(ARC_VERSION),
  event_id: text(512),
  occurred_at: timestamp,
  sender: Sender,
  context: Context.optional(),
  extensions: Extensions.optional(),
};

export const RequestCreatedEvent = z.strictObject({
  ...envelope,
  event_type: z.literal("request.created"),
  request: CreatedRequest,
});
export const RequestUpdatedEvent = z.strictObject({
  ...envelope,
  event_type: z.literal("request.updated"),
  request: UpdatedRequest,
});
export const ResponseSubmittedEvent = z.strictObject({
  ...envelope,
  event_type: z.literal("response.submitted"),
  request: AnswerRequest,
  response: SubmittedResponse,
});
export const RequestResolvedEvent = z.strictObject({
  ...envelope,
  event_type: z.literal("request.resolved"),
  request: ResolvedRequest,
});

export const ArcEvent = z.discriminatedUnion("event_type", [
  RequestCreatedEvent,
  RequestUpdatedEvent,
  ResponseSubmittedEvent,
  RequestResolvedEvent,
]);

export type ArcEvent = z.infer<typeof ArcEvent>;
export type ArcEventType = ArcEvent["event_type"];
export type RequestCreatedEvent = z.infer<typeof RequestCreatedEvent>;
export type RequestUpdatedEvent = z.infer<typeof RequestUpdatedEvent>;
export type ResponseSubmittedEvent = z.infer<typeof ResponseSubmittedEvent>;
export type RequestResolvedEvent = z.infer<typeof RequestResolvedEvent>;
export type ArcSender = z.infer<typeof Sender>;
export type ArcContext = z.infer<typeof Context>;
export type ArcAnswerSpec = z.infer<typeof AnswerSpec>;
export type ArcRequestKind = z.infer<typeof RequestKind>;
export type ArcSubmittedResponse = z.infer<typeof SubmittedResponse>;
