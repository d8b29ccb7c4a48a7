import * as z from "zod";
import {
  EXTENSION_KEY_PATTERN,
  RequestCreatedEvent,
  RequestResolvedEvent,
  RequestUpdatedEvent,
  ResponseSubmittedEvent,
} from "./arc/schemas.js";
import { RelayAnswer, RelayInteractionRequest } from "./relay/schemas.js";

const SCHEMA_BASE = "https://notify.local/schemas";

type JsonObject = Record<string, unknown>;

function emit(schema: z.ZodType, id: string, title: string): JsonObject {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as JsonObject;
  return { $schema: json.$schema, $id: `${SCHEMA_BASE}/${id}`, title, ...json };
}

/** zod cannot say "keys must match a pattern" on an object with known keys; JSON Schema can (propertyNames). */
function patchExtensions(schema: JsonObject): JsonObject {
  const properties = schema.properties as Record<string, JsonObject> | undefined;
  const extensions = properties?.extensions;
  if (extensions) extensions.propertyNames = { pattern: EXTENSION_KEY_PATTERN.source };
  return schema;
}

/** Every JSON Schema file of the contracts, by file name. `npm run schemas -w @notify/contracts` writes them. */
export function contractSchemas(): Record<string, JsonObject> {
  return {
    "arc-0.2-request.created.schema.json": patchExtensions(
      emit(RequestCreatedEvent, "arc-0.2-request.created.schema.json", "ARC 0.2 request.created"),
    ),
    "arc-0.2-request.updated.schema.json": patchExtensions(
      emit(RequestUpdatedEvent, "arc-0.2-request.updated.schema.json", "ARC 0.2 request.updated"),
    ),
    "arc-0.2-response.submitted.schema.json": patchExtensions(
      emit(ResponseSubmittedEvent, "arc-0.2-response.submitted.schema.json", "ARC 0.2 response.submitted"),
    ),
    "arc-0.2-request.resolved.schema.json": patchExtensions(
      emit(RequestResolvedEvent, "arc-0.2-request.resolved.schema.json", "ARC 0.2 request.resolved"),
    ),
    "relay-1-answer.schema.json": emit(RelayAnswer, "relay-1-answer.schema.json", "Relay contract 1: answer body"),
    "relay-1-interaction-request.schema.json": emit(
      RelayInteractionRequest,
      "relay-1-interaction-request.schema.json",
      "Relay contract 1: interaction-request payload",
    ),
  };
}
