import {
  checkFieldAnswer,
  type FieldValue,
  FORM_LIMITS,
  FORM_STRING_FORMATS,
  type FormContext,
  type FormDecision,
  type FormField,
  type FormMode,
  type FormOption,
  type FormStringFormat,
  fieldChoices,
  fieldHint,
  isChoiceField,
} from "@notify/contracts/form-context";
import type { InteractionDto } from "../interactions/types.js";
import { cut } from "./prompt.js";

/**
 * MCP elicitation through Claude Code's `Elicitation` hook (issue 36, item 4; docs/hooks.md, "MCP elicitation").
 * Claude Code 2.1.330 runs the hook when an MCP server asks the person for input, before its own dialog, with
 * `{hook_event_name: "Elicitation", mcp_server_name, message, mode (FORM_MODES), requested_schema}` (url mode adds
 * `url` and `elicitation_id`), and takes `{hookSpecificOutput: {hookEventName: "Elicitation", action, content?}}`:
 * `accept` with the content, `decline` or `cancel`. It does not check the content against the schema, so Notify
 * does (each field's answer, in the broker, before it is accepted). Nothing printed: Claude Code asks in the terminal
 * (`-p`: cancelled).
 *
 * A form becomes one question per field (a boolean or an enum of at most 12 values: a choice; a number or a string:
 * a text, checked) and a last question with the decision (accept, decline, cancel); a URL request only the decision.
 * Every question carries the whole form as its context, which is how the web page and the phone show one card and
 * how the broker checks a field's answer. No I/O here.
 */

export const ELICITATION = "Elicitation";

/** What the hook's input says of one elicitation. */
export interface Elicitation {
  server: string;
  message: string;
  mode: FormMode;
  url?: string;
  /** URL mode's id (Claude Code passes the server's); the hook's key uses it when present. */
  id?: string;
  fields: FormField[];
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const nonBlank = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined;

const finite = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= FORM_LIMITS.bound ? value : undefined;

/** An enum's values and what the person reads for each: `enum` (+ `enumNames`), or `oneOf`/`anyOf` of `const`s. */
function enumOptions(property: Record<string, unknown>): FormOption[] | undefined {
  const names = Array.isArray(property.enumNames) ? property.enumNames : [];
  if (Array.isArray(property.enum)) {
    const options = property.enum.map((value, index) => {
      const label = nonBlank(names[index]) ?? value;
      return typeof value === "string" && value !== "" ? { value, label: String(label) } : undefined;
    });
    return options.every((option) => option !== undefined) ? (options as FormOption[]) : undefined;
  }
  const list = Array.isArray(property.oneOf) ? property.oneOf : Array.isArray(property.anyOf) ? property.anyOf : [];
  if (list.length === 0) return undefined;
  const options = list.map((entry) => {
    const record = asRecord(entry);
    const value = record?.const;
    return typeof value === "string" && value !== "" ? { value, label: nonBlank(record?.title) ?? value } : undefined;
  });
  return options.every((option) => option !== undefined) ? (options as FormOption[]) : undefined;
}

const UNSAFE_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** One property of the requested schema as a field, or undefined when Notify cannot ask it faithfully. */
function fieldOf(name: string, raw: unknown, required: boolean): FormField | undefined {
  const property = asRecord(raw);
  if (property === undefined || name === "" || Array.from(name).length > FORM_LIMITS.name) return undefined;
  // A name the content object would not keep as its own key (`__proto__`) or that shadows one: not asked.
  if (UNSAFE_NAMES.has(name)) return undefined;
  const title = cut(nonBlank(property.title) ?? name, FORM_LIMITS.title);
  const description = nonBlank(property.description);
  const field: FormField = { name, title, type: "string", required };
  if (description !== undefined) field.description = cut(description, FORM_LIMITS.description);
  const options = enumOptions(property);
  if (options !== undefined) {
    if (property.type !== undefined && property.type !== "string") return undefined;
    if (options.length === 0 || options.length > FORM_LIMITS.options) return undefined;
    // Duplicate values could not be told apart by the answer.
    if (new Set(options.map((option) => option.value)).size !== options.length) return undefined;
    field.type = "enum";
    field.options = options.map((option) => ({
      value: option.value,
      label: cut(option.label, FORM_LIMITS.option),
    }));
    if (field.options.some((option) => Array.from(option.value).length > FORM_LIMITS.option)) return undefined;
  } else if (property.type === "boolean") {
    field.type = "boolean";
  } else if (property.type === "number" || property.type === "integer") {
    field.type = property.type;
    const minimum = finite(property.minimum);
    const maximum = finite(property.maximum);
    if (minimum !== undefined) field.minimum = minimum;
    if (maximum !== undefined) field.maximum = maximum;
  } else if (property.type === "string") {
    const min = finite(property.minLength);
    const max = finite(property.maxLength);
    if (min !== undefined) field.min_length = min;
    if (max !== undefined) field.max_length = max;
    if (property.format !== undefined) {
      if (!(FORM_STRING_FORMATS as readonly unknown[]).includes(property.format)) return undefined;
      field.format = property.format as FormStringFormat;
    }
  } else {
    // Arrays (multi-select), objects, anything else: not a flat form Notify can ask.
    return undefined;
  }
  // A default that does not fit its own field is left out (the person types a value).
  if (property.default !== undefined && checkDefault(field, property.default)) {
    field.default = property.default as FieldValue;
  }
  return field;
}

function checkDefault(field: FormField, value: unknown): boolean {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return false;
  if (field.type === "enum") return typeof value === "string" && (field.options ?? []).some((o) => o.value === value);
  if (field.type === "boolean") return typeof value === "boolean";
  const answer = checkFieldAnswer(field, { text: String(value) });
  return answer.ok && typeof answer.value === typeof value;
}

/**
 * The elicitation in a hook's input, or undefined when Notify cannot ask it faithfully (no message, a schema that is
 * not a flat object of the supported types, too many fields): the hook then prints nothing and Claude Code asks in
 * the terminal as usual.
 */
export function elicitationOf(raw: Record<string, unknown>): Elicitation | undefined {
  const server = nonBlank(raw.mcp_server_name);
  const message = nonBlank(raw.message);
  if (server === undefined || message === undefined) return undefined;
  const mode = raw.mode === "url" ? "url" : raw.mode === undefined || raw.mode === "form" ? "form" : undefined;
  if (mode === undefined) return undefined;
  const elicitation: Elicitation = {
    server: cut(server, FORM_LIMITS.server),
    message: cut(message, FORM_LIMITS.message),
    mode,
    fields: [],
  };
  const id = nonBlank(raw.elicitation_id);
  if (id !== undefined) elicitation.id = id;
  if (mode === "url") {
    const url = nonBlank(raw.url);
    if (url === undefined || Array.from(url).length > FORM_LIMITS.url) return undefined;
    elicitation.url = url;
    return elicitation;
  }
  const schema = asRecord(raw.requested_schema);
  if (schema === undefined || (schema.type !== undefined && schema.type !== "object")) return undefined;
  const properties = asRecord(schema.properties) ?? {};
  const names = Object.keys(properties);
  if (names.length > FORM_LIMITS.fields) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const name of names) {
    const field = fieldOf(name, properties[name], required.has(name));
    if (field === undefined) return undefined;
    elicitation.fields.push(field);
  }
  return elicitation;
}

/** One question of the elicitation: its key's suffix, what the ARC request says, and its context. */
export interface FormQuestion {
  /** The field it asks for; undefined for the decision. */
  field?: FormField;
  title: string;
  message: string;
  response:
    | { kind: "single_choice"; choices: { id: string; label: string; detail?: string }[] }
    | { kind: "text"; text_max_length: number };
  context: Omit<FormContext, "bytes" | "truncated">;
}

const DECISION_CHOICES: { id: FormDecision; label: string; detail: string }[] = [
  { id: "accept", label: "Accept", detail: "Send the answers to the server" },
  { id: "decline", label: "Decline", detail: "Send nothing; the server goes on without" },
  { id: "cancel", label: "Cancel", detail: "Stop what the server was doing" },
];
const URL_DECISION_CHOICES: { id: FormDecision; label: string; detail: string }[] = [
  { id: "accept", label: "Open it", detail: "Tell the server you will open the page" },
  { id: "decline", label: "Decline", detail: "Do not open it; the server goes on without" },
  { id: "cancel", label: "Cancel", detail: "Stop what the server was doing" },
];

/**
 * The questions for `elicitation`, in the order a chat shows them: every field, then the decision. `form` names the
 * elicitation (the same in every question's context); `who` and `where` the agent and the project, for the titles.
 */
export function formQuestions(elicitation: Elicitation, form: string, who: string, where: string): FormQuestion[] {
  const base: Omit<FormContext, "bytes" | "truncated"> = {
    kind: "form",
    form,
    server: elicitation.server,
    mode: elicitation.mode,
    message: elicitation.message,
    fields: elicitation.fields,
    ...(elicitation.url !== undefined ? { url: elicitation.url } : {}),
  };
  const count = elicitation.fields.length;
  const questions: FormQuestion[] = elicitation.fields.map((field, index) => {
    const needed = field.required ? "required" : "optional";
    const preset = field.default !== undefined ? `; left empty: ${String(field.default)}` : "";
    const lines = [
      `${field.title} (${needed}; ${fieldHint(field)}${preset})`,
      ...(field.description !== undefined ? [field.description] : []),
      "",
      `For: ${elicitation.message}`,
    ];
    return {
      field,
      title: cut(`${elicitation.server} asks ${who}${where}: field ${index + 1} of ${count}`, 200),
      message: cut(lines.join("\n"), 2000),
      response: isChoiceField(field)
        ? { kind: "single_choice", choices: fieldChoices(field) }
        : { kind: "text", text_max_length: 2000 },
      context: { ...base, field: field.name },
    };
  });
  const summary =
    elicitation.mode === "url"
      ? `${elicitation.message}\n\nOpen: ${elicitation.url}`
      : count === 0
        ? elicitation.message
        : `${elicitation.message}\n\nAccept sends the ${count === 1 ? "field" : `${count} fields`} answered above.`;
  questions.push({
    title: cut(`${elicitation.server} (MCP) asks ${who}${where}`, 200),
    message: cut(summary, 2000),
    response: {
      kind: "single_choice",
      choices: elicitation.mode === "url" ? URL_DECISION_CHOICES : DECISION_CHOICES,
    },
    context: base,
  });
  return questions;
}

/** A settled field question's value, checked again (the broker checked it when it took the answer). */
export function fieldValue(field: FormField, settled: InteractionDto): FieldValue | undefined {
  if (settled.status !== "answered" || settled.response === undefined) return undefined;
  const { choice_id, text } = settled.response;
  const checked = checkFieldAnswer(field, {
    ...(choice_id !== undefined ? { choice_id } : {}),
    ...(text !== undefined ? { text } : {}),
  });
  return checked.ok ? checked.value : undefined;
}

/** Claude Code's Elicitation hook output. */
export function elicitationOutput(action: FormDecision, content?: Record<string, FieldValue>): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: ELICITATION,
      action,
      ...(action === "accept" && content !== undefined ? { content } : {}),
    },
  });
}
