/**
 * An MCP elicitation as Notify asks it (docs/hooks.md, "MCP elicitation"): Claude Code's `Elicitation` hook hands
 * the hook a server's request, a message and a flat form (string, number, integer, boolean and enum fields) or a URL
 * to open. Notify opens one question per field and one for the decision (accept, decline, cancel), each bound to a
 * `form` context that describes the whole form: chats ask field by field, the web page and the phone group the
 * questions of one form (same `form` id) into one card. An answer to a field is checked against the field before it
 * is accepted (`checkFieldAnswer`, used by the broker on every surface's answer and by the page and the phone before
 * they send). Zod-free and DOM-free, shared by the broker, the web page and the phone.
 */

/** The types a form field can have; `enum` is a string field with a list of values. */
export const FORM_FIELD_TYPES = ["string", "number", "integer", "boolean", "enum"] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

/** The string formats MCP elicitation names, checked as a person would expect. */
export const FORM_STRING_FORMATS = ["email", "uri", "date", "date-time"] as const;
export type FormStringFormat = (typeof FORM_STRING_FORMATS)[number];

/** The choice ids of a form's decision question: MCP's three actions, as Claude Code's hook output names them. */
export const FORM_DECISIONS = ["accept", "decline", "cancel"] as const;
export type FormDecision = (typeof FORM_DECISIONS)[number];

/** What an elicitation asks for: fields to fill, or a URL to open. */
export const FORM_MODES = ["form", "url"] as const;
export type FormMode = (typeof FORM_MODES)[number];

/** The choice ids of a boolean field's question. */
export const BOOLEAN_CHOICES = { yes: true, no: false } as const;

/** Bounds of a form context, in characters or entries. */
export const FORM_LIMITS = {
  fields: 20,
  form: 100,
  name: 100,
  title: 200,
  description: 1000,
  message: 2000,
  server: 200,
  url: 8192,
  options: 100,
  option: 200,
  /** A number field's bounds and a string field's lengths are finite and at most this. */
  bound: 1e15,
};

/** An enum field's options at most this many become a choice question (12 choices); more take a typed value. */
export const FORM_CHOICE_OPTIONS = 12;

export interface FormOption {
  value: string;
  label: string;
}

export interface FormField {
  /** The property's name: the key of its value in the content sent back. */
  name: string;
  /** What the person reads (the schema's `title`, else the name). */
  title: string;
  description?: string;
  type: FormFieldType;
  required: boolean;
  /** Prefilled on the page and the phone; sent for an optional field left unanswered. */
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  min_length?: number;
  max_length?: number;
  format?: FormStringFormat;
  /** An enum field's values, with what the person reads for each. */
  options?: FormOption[];
}

/** One question of an elicitation: the whole form, and which part of it this question asks. */
export interface FormContext {
  kind: "form";
  /** The same for every question of one elicitation. */
  form: string;
  /** The MCP server that asks. */
  server: string;
  mode: FormMode;
  message: string;
  /** URL mode: the page to open. */
  url?: string;
  fields: FormField[];
  /** This question asks for this field; absent on the decision question. */
  field?: string;
  truncated: boolean;
  bytes: number;
}

type Checked<T> = { value: T } | { error: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const chars = (text: string): number => Array.from(text).length;

function text(
  raw: Record<string, unknown>,
  name: string,
  max: number,
  where: string,
  required = false,
): { value: string | undefined } | { error: string } {
  const value = raw[name];
  if (value === undefined && !required) return { value: undefined };
  if (typeof value !== "string" || (required && value === "")) {
    return { error: `${where}.${name}: expected a${required ? " non-empty" : ""} string` };
  }
  if (chars(value) > max) return { error: `${where}.${name}: at most ${max} characters` };
  return { value };
}

const finite = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= FORM_LIMITS.bound;

function checkField(raw: unknown, where: string): Checked<FormField> {
  if (!isRecord(raw)) return { error: `${where}: expected an object` };
  const allowed = [
    "name",
    "title",
    "description",
    "type",
    "required",
    "default",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "format",
    "options",
  ];
  const extra = Object.keys(raw).find((key) => !allowed.includes(key));
  if (extra !== undefined) return { error: `${where}.${extra}: unknown field` };
  const name = text(raw, "name", FORM_LIMITS.name, where, true);
  if ("error" in name) return name;
  const title = text(raw, "title", FORM_LIMITS.title, where, true);
  if ("error" in title) return title;
  const description = text(raw, "description", FORM_LIMITS.description, where);
  if ("error" in description) return description;
  if (!(FORM_FIELD_TYPES as readonly unknown[]).includes(raw.type)) {
    return { error: `${where}.type: expected one of ${FORM_FIELD_TYPES.join(", ")}` };
  }
  if (typeof raw.required !== "boolean") return { error: `${where}.required: expected a boolean` };
  const field: FormField = {
    name: name.value as string,
    title: title.value as string,
    type: raw.type as FormFieldType,
    required: raw.required,
  };
  if (description.value !== undefined) field.description = description.value;
  for (const bound of ["minimum", "maximum", "min_length", "max_length"] as const) {
    if (raw[bound] === undefined) continue;
    if (!finite(raw[bound])) return { error: `${where}.${bound}: expected a finite number` };
    field[bound] = raw[bound] as number;
  }
  if (raw.format !== undefined) {
    if (!(FORM_STRING_FORMATS as readonly unknown[]).includes(raw.format)) {
      return { error: `${where}.format: expected one of ${FORM_STRING_FORMATS.join(", ")}` };
    }
    field.format = raw.format as FormStringFormat;
  }
  if (raw.options !== undefined || field.type === "enum") {
    if (field.type !== "enum") return { error: `${where}.options: only for an enum field` };
    if (!Array.isArray(raw.options) || raw.options.length < 1 || raw.options.length > FORM_LIMITS.options) {
      return { error: `${where}.options: expected 1-${FORM_LIMITS.options} options` };
    }
    const options: FormOption[] = [];
    for (const [index, option] of raw.options.entries()) {
      const at = `${where}.options[${index}]`;
      if (!isRecord(option) || Object.keys(option).some((key) => key !== "value" && key !== "label")) {
        return { error: `${at}: expected {value, label}` };
      }
      const value = text(option, "value", FORM_LIMITS.option, at, true);
      if ("error" in value) return value;
      const label = text(option, "label", FORM_LIMITS.option, at, true);
      if ("error" in label) return label;
      if (options.some((other) => other.value === value.value)) return { error: `${at}.value: duplicate value` };
      options.push({ value: value.value as string, label: label.value as string });
    }
    field.options = options;
  }
  if (raw.default !== undefined) {
    const fits = checkFieldValue(field, raw.default);
    if (!fits.ok) return { error: `${where}.default: ${fits.error}` };
    field.default = raw.default as string | number | boolean;
  }
  return { value: field };
}

/** Checks a posted form context (POST /v1/contexts): known fields, types, limits, a known `field`. */
export function checkFormContext(raw: Record<string, unknown>): Checked<Omit<FormContext, "bytes">> {
  const allowed = ["kind", "form", "server", "mode", "message", "url", "fields", "field", "truncated"];
  const extra = Object.keys(raw).find((key) => !allowed.includes(key));
  if (extra !== undefined) return { error: `$.${extra}: unknown field` };
  const form = text(raw, "form", FORM_LIMITS.form, "$", true);
  if ("error" in form) return form;
  const server = text(raw, "server", FORM_LIMITS.server, "$", true);
  if ("error" in server) return server;
  const message = text(raw, "message", FORM_LIMITS.message, "$", true);
  if ("error" in message) return message;
  if (!(FORM_MODES as readonly unknown[]).includes(raw.mode)) {
    return { error: `$.mode: expected one of ${FORM_MODES.join(", ")}` };
  }
  const url = text(raw, "url", FORM_LIMITS.url, "$");
  if ("error" in url) return url;
  if (raw.mode === "url" && url.value === undefined) return { error: "$.url: required for mode url" };
  if (!Array.isArray(raw.fields)) return { error: "$.fields: expected an array" };
  if (raw.fields.length > FORM_LIMITS.fields) return { error: `$.fields: at most ${FORM_LIMITS.fields} fields` };
  const fields: FormField[] = [];
  for (const [index, entry] of raw.fields.entries()) {
    const checked = checkField(entry, `$.fields[${index}]`);
    if ("error" in checked) return checked;
    if (fields.some((other) => other.name === checked.value.name)) {
      return { error: `$.fields[${index}].name: duplicate name` };
    }
    fields.push(checked.value);
  }
  const context: Omit<FormContext, "bytes"> = {
    kind: "form",
    form: form.value as string,
    server: server.value as string,
    mode: raw.mode as FormMode,
    message: message.value as string,
    fields,
    truncated: raw.truncated === true,
  };
  if (url.value !== undefined) context.url = url.value;
  if (raw.field !== undefined) {
    if (typeof raw.field !== "string" || !fields.some((field) => field.name === raw.field)) {
      return { error: "$.field: expected the name of one of the fields" };
    }
    context.field = raw.field;
  }
  return { value: context };
}

/** The field this question of a form asks for, or undefined for the decision question (or another context). */
export function formFieldOf(context: { kind: string } | undefined): FormField | undefined {
  if (context?.kind !== "form") return undefined;
  const form = context as FormContext;
  return form.field === undefined ? undefined : form.fields.find((field) => field.name === form.field);
}

/** Whether a field is asked as a choice question (a boolean, an enum of a few options) rather than typed. */
export const isChoiceField = (field: FormField): boolean =>
  field.type === "boolean" || (field.type === "enum" && (field.options?.length ?? 0) <= FORM_CHOICE_OPTIONS);

/** The choices of a choice field's question: `yes`/`no`, or `option_1`... in the options' order. */
export function fieldChoices(field: FormField): { id: string; label: string }[] {
  if (field.type === "boolean")
    return [
      { id: "yes", label: "Yes" },
      { id: "no", label: "No" },
    ];
  return (field.options ?? []).map((option, index) => ({ id: `option_${index + 1}`, label: option.label }));
}

/**
 * What a field's input starts with on a card (the web page's and the phone's): its default as the input holds it, a
 * choice id for a choice field (`yes`/`no`, `option_N`), else the default as text; empty without one.
 */
export function fieldInitialValue(field: FormField): string {
  if (field.default === undefined) return "";
  if (field.type === "boolean") return field.default === true ? "yes" : "no";
  if (isChoiceField(field)) {
    const index = (field.options ?? []).findIndex((option) => option.value === field.default);
    return fieldChoices(field)[index]?.id ?? "";
  }
  return String(field.default);
}

/** The HTML input type for a typed field: `number`, or text of a format browsers know (`email`, `url`, `date`). */
export function fieldInputType(field: FormField): "number" | "email" | "url" | "date" | "text" {
  if (field.type === "number" || field.type === "integer") return "number";
  switch (field.format) {
    case "email":
      return "email";
    case "uri":
      return "url";
    case "date":
      return "date";
    default:
      return "text";
  }
}

export type FieldValue = string | number | boolean;
export type FieldCheck = { ok: true; value: FieldValue } | { ok: false; error: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function formatProblem(format: FormStringFormat, value: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(value) ? undefined : "an email address";
    case "uri":
      try {
        new URL(value);
        return undefined;
      } catch {
        return "a URL (such as https://example.com)";
      }
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : "a date (YYYY-MM-DD)";
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : "a date and time (YYYY-MM-DDTHH:MM:SSZ)";
    default: {
      const exhaustive: never = format;
      return exhaustive;
    }
  }
}

/** Whether `value` (already typed: a default, or what a person's answer reads as) fits the field. */
export function checkFieldValue(field: FormField, value: unknown): FieldCheck {
  const name = field.title;
  switch (field.type) {
    case "boolean":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, error: `${name} must be yes or no` };
    case "enum": {
      const options = field.options ?? [];
      return typeof value === "string" && options.some((option) => option.value === value)
        ? { ok: true, value }
        : { ok: false, error: `${name} must be one of: ${options.map((option) => option.label).join(", ")}` };
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return { ok: false, error: `${name} must be a ${field.type === "integer" ? "whole number" : "number"}` };
      }
      if (field.type === "integer" && !Number.isInteger(value)) {
        return { ok: false, error: `${name} must be a whole number` };
      }
      if (field.minimum !== undefined && value < field.minimum) {
        return { ok: false, error: `${name} must be at least ${field.minimum}` };
      }
      if (field.maximum !== undefined && value > field.maximum) {
        return { ok: false, error: `${name} must be at most ${field.maximum}` };
      }
      return { ok: true, value };
    }
    case "string": {
      if (typeof value !== "string") return { ok: false, error: `${name} must be text` };
      const length = chars(value);
      if (field.min_length !== undefined && length < field.min_length) {
        return { ok: false, error: `${name} must be at least ${field.min_length} characters` };
      }
      if (field.max_length !== undefined && length > field.max_length) {
        return { ok: false, error: `${name} must be at most ${field.max_length} characters` };
      }
      const problem = field.format === undefined ? undefined : formatProblem(field.format, value);
      return problem === undefined ? { ok: true, value } : { ok: false, error: `${name} must be ${problem}` };
    }
    default: {
      const exhaustive: never = field.type;
      return exhaustive;
    }
  }
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A person's answer to a field's question read as the field's value and checked: a choice (`yes`/`no`,
 * `option_N`) or typed text (a number, a string, an enum's value or label when it has too many options for
 * buttons). The error names the field and what it takes, for the surface that sent the answer.
 */
export function checkFieldAnswer(field: FormField, answer: { choice_id?: string; text?: string }): FieldCheck {
  if (answer.choice_id !== undefined) {
    if (field.type === "boolean" && Object.hasOwn(BOOLEAN_CHOICES, answer.choice_id)) {
      return { ok: true, value: BOOLEAN_CHOICES[answer.choice_id as keyof typeof BOOLEAN_CHOICES] };
    }
    const match = /^option_(\d+)$/.exec(answer.choice_id);
    const option = match && field.type === "enum" ? field.options?.[Number(match[1]) - 1] : undefined;
    return option ? { ok: true, value: option.value } : { ok: false, error: `${field.title}: unknown choice` };
  }
  const typed = (answer.text ?? "").trim();
  switch (field.type) {
    case "number":
    case "integer":
      return NUMBER.test(typed)
        ? checkFieldValue(field, Number(typed))
        : { ok: false, error: `${field.title} must be a ${field.type === "integer" ? "whole number" : "number"}` };
    case "boolean": {
      const word = typed.toLowerCase();
      const value = ["yes", "y", "true"].includes(word) ? true : ["no", "n", "false"].includes(word) ? false : word;
      return checkFieldValue(field, value);
    }
    case "enum": {
      const option = field.options?.find(
        (entry) => entry.value === typed || entry.label.toLowerCase() === typed.toLowerCase(),
      );
      return checkFieldValue(field, option?.value ?? typed);
    }
    case "string":
      // A string keeps what was typed, spaces included.
      return checkFieldValue(field, answer.text ?? "");
    default: {
      const exhaustive: never = field.type;
      return exhaustive;
    }
  }
}

/** What a field takes, in a few words, for a prompt or a placeholder: "a whole number from 1 to 120". */
export function fieldHint(field: FormField): string {
  const range = (low?: number, high?: number, unit = ""): string =>
    low !== undefined && high !== undefined
      ? ` from ${low} to ${high}${unit}`
      : low !== undefined
        ? ` of at least ${low}${unit}`
        : high !== undefined
          ? ` of at most ${high}${unit}`
          : "";
  switch (field.type) {
    case "boolean":
      return "yes or no";
    case "enum":
      return `one of: ${(field.options ?? []).map((option) => option.label).join(", ")}`;
    case "integer":
      return `a whole number${range(field.minimum, field.maximum)}`;
    case "number":
      return `a number${range(field.minimum, field.maximum)}`;
    case "string": {
      const what = field.format === undefined ? "text" : (formatProblem(field.format, "") ?? "text");
      return `${what}${range(field.min_length, field.max_length, " characters")}`;
    }
    default: {
      const exhaustive: never = field.type;
      return exhaustive;
    }
  }
}
