import { jsonShapeProblem } from "@notify/contracts/json-shape";
import { invalid } from "../domain/errors.js";
import { FieldReader } from "../validation/fields.js";
import { isTypeId, normalizeTypeId } from "./type-ids.js";
import {
  NOTIFICATION_STATUSES,
  type NotificationFilter,
  type NotificationInput,
  type NotificationStatus,
  PRIORITIES,
} from "./types.js";

export const METADATA_MAX_BYTES = 8192;

/** CreateNotificationRequest (docs/api.md, "POST /v1/notifications"). */
export function parseCreateNotification(body: unknown): NotificationInput {
  const fields = new FieldReader(body);
  const title = fields.string("title", { max: 200, required: true });
  const message = fields.string("message", { max: 4000, required: true });
  const type = fields.string("type", { max: 64 });
  if (type !== undefined && !isTypeId(type)) {
    fields.problem(
      "type must be a built-in type ID or 1-64 lowercase letters, digits or underscores starting with a letter",
    );
  }
  const priority = fields.oneOf("priority", PRIORITIES);
  const agent = fields.string("agent", { max: 100, trim: true });
  const agentInstance = fields.string("agentInstance", { max: 100 });
  const project = fields.string("project", { max: 200, trim: true });
  const key = fields.string("key", { max: 100 });
  const cwd = fields.string("cwd", { max: 1024 });
  const pid = fields.integer("pid", { min: 0 });
  const metadata = parseMetadata(fields.raw("metadata"), fields);
  fields.finish();

  const input: NotificationInput = {
    title: title as string,
    message: message as string,
    type: type ?? "info",
    agent: agent ?? "unknown",
  };
  if (priority !== undefined) input.priority = priority;
  if (agentInstance !== undefined) input.agentInstance = agentInstance;
  if (project !== undefined) input.project = project;
  if (key !== undefined) input.key = key;
  if (cwd !== undefined) input.cwd = cwd;
  if (pid !== undefined) input.pid = pid;
  if (metadata !== undefined) input.metadata = metadata;
  return input;
}

function parseMetadata(raw: unknown, fields: FieldReader): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    fields.problem("metadata must be an object");
    return undefined;
  }
  // Checked before serializing: JSON.stringify of a deeply nested value overflows the stack (the HTTP edge refuses
  // such bodies already; this keeps the service safe for any other caller).
  const shape = jsonShapeProblem(raw);
  if (shape) {
    fields.problem(
      shape.startsWith("the request body ") ? shape.replace("the request body", "metadata") : `metadata.${shape}`,
    );
    return undefined;
  }
  const serialized = JSON.stringify(raw);
  if (Buffer.byteLength(serialized, "utf8") > METADATA_MAX_BYTES) {
    fields.problem(`metadata must serialize to at most ${METADATA_MAX_BYTES} bytes`);
    return undefined;
  }
  return raw as Record<string, unknown>;
}

/** PATCH body `{status}`. */
export function parseStatusChange(body: unknown): NotificationStatus {
  const fields = new FieldReader(body);
  const status = fields.oneOf("status", NOTIFICATION_STATUSES, true);
  fields.finish();
  return status as NotificationStatus;
}

export type Query = Record<string, string | string[] | undefined>;

/** One value of a query parameter; a repeated parameter is an error rather than a guess. */
export function queryValue(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw invalid(`${name} must be given once`);
  return value;
}

export function parseBoolean(query: Query, name: string): boolean | undefined {
  const value = queryValue(query, name);
  if (value === undefined || value === "") return undefined;
  const lowered = value.toLowerCase();
  if (lowered === "true" || lowered === "1") return true;
  if (lowered === "false" || lowered === "0") return false;
  throw invalid(`${name} must be true or false`);
}

export function parseLimit(query: Query): number {
  const value = queryValue(query, "limit");
  if (value === undefined || value === "") return 100;
  if (!/^\d+$/.test(value)) throw invalid("limit must be an integer 1-500");
  const limit = Number(value);
  if (limit < 1 || limit > 500) throw invalid("limit must be an integer 1-500");
  return limit;
}

/** Trimmed text filter; empty means "no filter". */
export function parseText(query: Query, name: string): string | undefined {
  const value = queryValue(query, name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** GET /v1/notifications query (docs/api.md, "GET /v1/notifications"). */
export function parseNotificationFilter(query: Query): NotificationFilter {
  const filter: NotificationFilter = { limit: parseLimit(query) };
  const unresolved = parseBoolean(query, "unresolved");
  if (unresolved !== undefined) filter.unresolved = unresolved;
  const type = parseText(query, "type");
  if (type !== undefined) filter.type = normalizeTypeId(type);
  const status = parseText(query, "status");
  if (status !== undefined) {
    if (!(NOTIFICATION_STATUSES as readonly string[]).includes(status)) {
      throw invalid(`status must be one of ${NOTIFICATION_STATUSES.join(", ")}`);
    }
    filter.status = status as NotificationStatus;
  }
  const project = parseText(query, "project");
  if (project !== undefined) filter.project = project;
  const agent = parseText(query, "agent");
  if (agent !== undefined) filter.agent = agent;
  return filter;
}
