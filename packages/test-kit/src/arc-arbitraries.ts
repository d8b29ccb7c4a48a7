/**
 * fast-check arbitraries for ARC 0.2 (docs/arc.md), shared by the contracts property tests and the broker's
 * POST /v1/events property tests: VALID events of every type, and single-field mutations that break the schema.
 *
 * Lengths count Unicode code points, as the validator (zod 4) and JSON Schema do: a surrogate pair is one character.
 * Strings mix ASCII (controls included), BMP, astral characters and multi-code-point graphemes, and are always well
 * formed (a lone surrogate does not survive SQLite's UTF-8, so round-trip checks could not hold).
 */
import {
  type ARC_EVENT_TYPES,
  ARC_OUTCOMES,
  ARC_REQUEST_KINDS,
  CHOICE_ID_PATTERN,
  EXTENSION_KEY_PATTERN,
  NOTIFICATION_TYPE_PATTERN,
  PRIORITIES,
} from "@notify/contracts/enums";
import fc from "fast-check";

/** The broker tests' ManualClock start. */
export const NOW_MS = Date.parse("2026-01-01T00:00:00.000Z");

const SPECIALS = [
  "é",
  "e\u0301",
  "😀",
  "👩‍💻",
  "中",
  " ",
  "\t",
  "\n",
  "\u00a0",
  "\u2028",
  "\u0000",
  '"',
  "\\",
  "/",
  "<",
];

const char = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIALS) },
);

/** Cuts `value` to at most `max` code points, then pads it to `min` with "a". */
export function fitLength(value: string, min: number, max: number): string {
  const points = [...value];
  if (points.length > max) points.length = max;
  while (points.length < min) points.push("a");
  return points.join("");
}

/** A string of `min`-`max` code points: short ones, any length in range, and exactly at both bounds. */
export function text(min: number, max: number): fc.Arbitrary<string> {
  // Long strings repeat a random chunk (cheap to generate and to shrink) and are cut to the exact length.
  const ofLength = (length: number) =>
    fc
      .string({ unit: char, minLength: 1, maxLength: 32 })
      .map((chunk) => fitLength(chunk.repeat(Math.ceil(length / chunk.length) || 1), length, length));
  return fc
    .oneof(
      { weight: 8, arbitrary: fc.string({ unit: char, maxLength: Math.min(max, 24) }) },
      { weight: 1, arbitrary: fc.integer({ min, max }).chain(ofLength) },
      { weight: 2, arbitrary: fc.constantFrom(...new Set([min, max])).chain(ofLength) },
    )
    .map((value) => fitLength(value, min, max));
}

/** request.key: 1-100 code units with a non-whitespace character. */
export const conditionKey = text(1, 100).map((key) => (/\S/.test(key) ? key : `k${key.slice(1)}`));

/** An RFC 3339 timestamp (as zod's iso datetime with offset accepts it) for an instant in [minMs, maxMs]. */
export function timestamp(minMs: number, maxMs: number): fc.Arbitrary<string> {
  return fc
    .record({
      ms: fc.integer({ min: minMs, max: maxMs }),
      fraction: fc.oneof(fc.constant(""), fc.stringMatching(/^\.[0-9]{1,9}$/)),
      offsetMinutes: fc.oneof(fc.constant(null), fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 })),
    })
    .map(({ ms, fraction, offsetMinutes }) => {
      const local = new Date(Math.floor(ms / 1000) * 1000 + (offsetMinutes ?? 0) * 60_000).toISOString().slice(0, 19);
      if (offsetMinutes === null) return `${local}${fraction}Z`;
      const sign = offsetMinutes < 0 ? "-" : "+";
      const abs = Math.abs(offsetMinutes);
      const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
      return `${local}${fraction}${zone}`;
    });
}

const YEAR_0 = Date.parse("0000-01-02T00:00:00Z");
const YEAR_9999 = Date.parse("9999-12-30T00:00:00Z");
export const anyTimestamp = timestamp(YEAR_0, YEAR_9999);
/** Safely after NOW_MS whatever the offset and fraction. */
export const futureTimestamp = timestamp(NOW_MS + 2 * 86_400_000, YEAR_9999);

export const choiceId = fc.oneof(
  fc.stringMatching(CHOICE_ID_PATTERN),
  fc.stringMatching(/^[A-Za-z0-9_-]{64}$/),
  fc.constantFrom("allow", "deny", "-", "_", "0"),
);

export const choice = fc.record(
  { id: choiceId, label: text(1, 200), detail: text(1, 500) },
  { requiredKeys: ["id", "label"] },
);

export const choices = fc.uniqueArray(choice, { minLength: 2, maxLength: 12, selector: (entry) => entry.id });

export function answerSpec(expiresAt: fc.Arbitrary<string>) {
  return fc.oneof(
    fc.record({ kind: fc.constant("permission" as const), choices, expires_at: expiresAt }),
    fc.record({ kind: fc.constant("single_choice" as const), choices, expires_at: expiresAt }),
    fc.record(
      {
        kind: fc.constant("text" as const),
        text_max_length: fc.oneof(fc.integer({ min: 1, max: 2000 }), fc.constantFrom(1, 2000)),
        expires_at: expiresAt,
      },
      { requiredKeys: ["kind", "expires_at"] },
    ),
  );
}

export const sender = fc.record(
  { id: text(1, 100), name: text(1, 160), version: text(0, 100), instance_id: text(0, 100) },
  { requiredKeys: ["id"] },
);

export const context = fc.record(
  {
    session_id: text(0, 100),
    correlation_id: text(0, 200),
    project: text(0, 200),
    cwd: text(0, 1024),
    pid: fc.oneof(fc.nat(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER)),
    turn_id: text(0, 200),
    native_request_id: text(0, 200),
  },
  { requiredKeys: [] },
);

/** The contract's lists (issue 34: each enum once): the events drawn are the ones the schemas declare. */
export { ARC_OUTCOMES as OUTCOMES, ARC_REQUEST_KINDS as REQUEST_KINDS, PRIORITIES };

const vendorKey = fc
  .oneof(fc.stringMatching(EXTENSION_KEY_PATTERN), fc.constantFrom("x-acme", "x-a", `x-${"z".repeat(64)}`))
  .filter((key) => key !== "x-notify");

const notificationType = fc.oneof(
  fc.stringMatching(NOTIFICATION_TYPE_PATTERN),
  fc.constantFrom("info", "input_required", "deploy_gate"),
);

/** fastify's secure JSON parser refuses these keys anywhere in a body (400); the broker tests avoid them. */
const PROTOTYPE_KEYS = /"(__proto__|constructor|prototype)":/;

function extensions(forBroker: boolean) {
  const value = forBroker
    ? fc.jsonValue({ maxDepth: 2 }).filter((json) => !PROTOTYPE_KEYS.test(JSON.stringify(json)))
    : fc.jsonValue({ maxDepth: 2 });
  return fc
    .record(
      {
        notify: fc.record({ notification_type: notificationType }, { requiredKeys: [] }),
        vendors: fc.dictionary(vendorKey, value, { maxKeys: 3 }),
      },
      { requiredKeys: ["vendors"] },
    )
    .map(({ notify, vendors }) => (notify === undefined ? { ...vendors } : { ...vendors, "x-notify": notify }));
}

export interface ArbitraryOptions {
  /**
   * Events the broker must accept as they are: an answerable request's message fits the 2000-character prompt,
   * its `expires_at` lies after NOW_MS, and no extension value holds a key fastify's JSON parser refuses.
   */
  forBroker?: boolean;
}

function envelopeFields(options: ArbitraryOptions) {
  return {
    arc_version: fc.constant("0.2" as const),
    event_id: text(1, 512),
    occurred_at: anyTimestamp,
    sender,
    context,
    extensions: extensions(options.forBroker ?? false),
  };
}
const ENVELOPE_REQUIRED = ["arc_version", "event_id", "event_type", "occurred_at", "sender", "request"] as const;

function requestBody(options: ArbitraryOptions, keyRequired: boolean) {
  const fields = {
    key: conditionKey,
    kind: fc.constantFrom(...ARC_REQUEST_KINDS),
    title: text(1, 200),
    message: text(1, 4000),
    priority: fc.constantFrom(...PRIORITIES),
    response: answerSpec(options.forBroker ? futureTimestamp : anyTimestamp),
  };
  const required: ("key" | "kind" | "message")[] = keyRequired ? ["key", "kind", "message"] : ["kind", "message"];
  return fc.record(fields, { requiredKeys: required }).map((request) =>
    // An answerable request's message is its prompt (docs/arc.md): the broker takes at most 2000 characters.
    options.forBroker && request.response !== undefined
      ? { ...request, message: fitLength(request.message, 1, 2000) }
      : request,
  );
}

export type EventType = (typeof ARC_EVENT_TYPES)[number];
export type Json = Record<string, unknown>;

export function requestCreated(options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  return fc.record(
    { ...envelopeFields(options), event_type: fc.constant("request.created"), request: requestBody(options, false) },
    { requiredKeys: [...ENVELOPE_REQUIRED] },
  );
}

export function requestUpdated(options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  return fc.record(
    { ...envelopeFields(options), event_type: fc.constant("request.updated"), request: requestBody(options, true) },
    { requiredKeys: [...ENVELOPE_REQUIRED] },
  );
}

export function requestResolved(options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  return fc.record(
    {
      ...envelopeFields(options),
      event_type: fc.constant("request.resolved"),
      request: fc.record({ key: conditionKey, outcome: fc.constantFrom(...ARC_OUTCOMES) }, { requiredKeys: ["key"] }),
    },
    { requiredKeys: [...ENVELOPE_REQUIRED] },
  );
}

const answerBase = {
  response_id: text(1, 128),
  digest: fc.stringMatching(/^[0-9a-f]{64}$/),
  nonce: text(1, 128),
  source: fc.oneof(fc.stringMatching(CHOICE_ID_PATTERN), fc.constantFrom("relay", "desktop", "cli")),
  device_id: text(1, 128),
};
const ANSWER_REQUIRED = ["response_id", "digest"] as const;
export const submittedResponse = fc.oneof(
  fc.record({ ...answerBase, choice_id: choiceId }, { requiredKeys: [...ANSWER_REQUIRED, "choice_id"] }),
  fc.record({ ...answerBase, text: text(1, 2000) }, { requiredKeys: [...ANSWER_REQUIRED, "text"] }),
);

export function responseSubmitted(options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  return fc.record(
    {
      ...envelopeFields(options),
      event_type: fc.constant("response.submitted"),
      request: fc.record({ key: conditionKey }),
      response: submittedResponse,
    },
    { requiredKeys: [...ENVELOPE_REQUIRED, "response"] },
  );
}

/** A valid event of any of the four types. */
export function anyEvent(options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  return fc.oneof(
    requestCreated(options),
    requestUpdated(options),
    responseSubmitted(options),
    requestResolved(options),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Single-field mutations that break the schema.

type Path = (string | number)[];

export interface Mutation {
  /** Category and path, for failure messages. */
  name: string;
  /**
   * False when JSON Schema cannot express the rule (choice-id uniqueness); the validator alone rejects those.
   */
  expressible: boolean;
  apply(event: Json): unknown;
}

function lookup(root: unknown, path: Path): unknown {
  let node = root;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

function parentOf(root: unknown, path: Path): Record<string | number, unknown> | undefined {
  const parent = lookup(root, path.slice(0, -1));
  return parent !== null && typeof parent === "object" ? (parent as Record<string | number, unknown>) : undefined;
}

const has = (root: unknown, path: Path): boolean => lookup(root, path) !== undefined;
const show = (path: Path): string =>
  `$${path.map((segment) => (typeof segment === "number" ? `[${segment}]` : `.${segment}`)).join("")}`;

function setting(category: string, path: Path, value: unknown): Mutation {
  return {
    name: `${category} ${show(path)} = ${JSON.stringify(value)?.slice(0, 40)}`,
    expressible: true,
    apply(event) {
      const copy = structuredClone(event);
      const parent = parentOf(copy, path);
      const last = path[path.length - 1] as string | number;
      if (parent) parent[last] = value;
      return copy;
    },
  };
}

function dropping(path: Path): Mutation {
  return {
    name: `drop ${show(path)}`,
    expressible: true,
    apply(event) {
      const copy = structuredClone(event);
      const parent = parentOf(copy, path);
      if (parent) delete parent[path[path.length - 1] as string | number];
      return copy;
    },
  };
}

/** Limits of every bounded string (docs/arc.md, "Limits"), by path. */
const STRING_LIMITS: [Path, number, number][] = [
  [["event_id"], 1, 512],
  [["sender", "id"], 1, 100],
  [["sender", "name"], 1, 160],
  [["sender", "version"], 0, 100],
  [["sender", "instance_id"], 0, 100],
  [["context", "session_id"], 0, 100],
  [["context", "correlation_id"], 0, 200],
  [["context", "project"], 0, 200],
  [["context", "cwd"], 0, 1024],
  [["context", "turn_id"], 0, 200],
  [["context", "native_request_id"], 0, 200],
  [["request", "key"], 1, 100],
  [["request", "title"], 1, 200],
  [["request", "message"], 1, 4000],
  [["request", "response", "choices", 0, "label"], 1, 200],
  [["request", "response", "choices", 1, "detail"], 1, 500],
  [["response", "response_id"], 1, 128],
  [["response", "nonce"], 1, 128],
  [["response", "text"], 1, 2000],
  [["response", "device_id"], 1, 128],
];

/** Every applicable single-field mutation of a valid event; each must make it invalid. */
export function mutationsOf(event: Json): Mutation[] {
  const type = event.event_type as EventType;
  const isRequest = type === "request.created" || type === "request.updated";
  const out: Mutation[] = [];

  // Drop a required field.
  const required: Path[] = [
    ["arc_version"],
    ["event_id"],
    ["event_type"],
    ["occurred_at"],
    ["sender"],
    ["sender", "id"],
    ["request"],
  ];
  if (isRequest) required.push(["request", "kind"], ["request", "message"]);
  if (type !== "request.created") required.push(["request", "key"]);
  if (type === "response.submitted") {
    required.push(["response"], ["response", "response_id"], ["response", "digest"]);
    required.push(has(event, ["response", "text"]) ? ["response", "text"] : ["response", "choice_id"]);
  }
  const spec = lookup(event, ["request", "response"]) as Json | undefined;
  if (spec) {
    required.push(["request", "response", "kind"], ["request", "response", "expires_at"]);
    if (spec.kind !== "text") {
      required.push(["request", "response", "choices"]);
      required.push(["request", "response", "choices", 0, "id"], ["request", "response", "choices", 1, "label"]);
    }
  }
  for (const path of required) out.push(dropping(path));

  // Wrong type, for fields that are present.
  const typed: [Path, unknown][] = [
    [["arc_version"], 0.2],
    [["event_id"], 42],
    [["occurred_at"], Date.parse("2026-01-01T00:00:00Z")],
    [["sender"], "codex"],
    [["sender", "id"], ["codex"]],
    [["sender", "name"], null],
    [["context"], []],
    [["context", "pid"], "123"],
    [["context", "pid"], 1.5],
    [["context", "pid"], -1],
    [["context", "cwd"], false],
    [["request"], null],
    [["request", "key"], 7],
    [["request", "message"], { text: "hi" }],
    [["request", "title"], null],
    [["request", "response"], true],
    [["request", "response", "choices"], { allow: "Allow" }],
    [["request", "response", "choices", 0], "allow"],
    [["request", "response", "text_max_length"], "500"],
    [["request", "response", "text_max_length"], 0],
    [["request", "response", "text_max_length"], 2001],
    [["request", "response", "text_max_length"], 2.5],
    [["extensions"], ["x-acme"]],
    [["extensions", "x-notify"], "deploy"],
    [["extensions", "x-notify", "notification_type"], 3],
    [["response"], "allow"],
    [["response", "digest"], null],
    [["response", "choice_id"], 1],
    [["response", "text"], 1],
  ];
  for (const [path, value] of typed) if (has(event, path)) out.push(setting("wrong type", path, value));

  // Strings over (and under) their bounds, for fields whose parent is present.
  for (const [path, min, max] of STRING_LIMITS) {
    if (!parentOf(event, path) || (path.includes("choices") && !has(event, path.slice(0, -1)))) continue;
    if (path[0] === "response" && path[1] === "text" && !has(event, path)) continue;
    out.push(setting("over-long", path, "a".repeat(max + 1)));
    // max + 1 code points, each a surrogate pair: over the bound however characters are counted.
    out.push(setting("over-long astral", path, "😀".repeat(max + 1)));
    if (min === 1) out.push(setting("empty", path, ""));
  }

  // Extra core fields, and fields a type forbids.
  const extras: Path[] = [["unexpected"], ["sender", "unexpected"], ["request", "unexpected"]];
  if (has(event, ["context"])) extras.push(["context", "unexpected"]);
  if (spec) extras.push(["request", "response", "unexpected"]);
  if (spec && spec.kind !== "text") extras.push(["request", "response", "choices", 0, "unexpected"]);
  if (type === "response.submitted") extras.push(["response", "unexpected"]);
  if (has(event, ["extensions", "x-notify"])) extras.push(["extensions", "x-notify", "unexpected"]);
  for (const path of extras) out.push(setting("extra field", path, "x"));
  out.push(setting("extra field", ["context"], { unexpected: 1 }));
  if (isRequest) out.push(setting("forbidden field", ["request", "outcome"], "answered"));
  if (type !== "response.submitted") {
    out.push(setting("forbidden field", ["response"], { response_id: "r", digest: "0".repeat(64), choice_id: "a" }));
  }
  if (type === "request.resolved") {
    out.push(setting("forbidden field", ["request", "kind"], "information"));
    out.push(setting("forbidden field", ["request", "message"], "done"));
    out.push(setting("forbidden field", ["request", "priority"], "low"));
  }
  if (type === "response.submitted") out.push(setting("forbidden field", ["request", "kind"], "question"));
  if (spec?.kind === "text") {
    out.push(
      setting(
        "forbidden field",
        ["request", "response", "choices"],
        [
          { id: "a", label: "A" },
          { id: "b", label: "B" },
        ],
      ),
    );
  }
  if (spec && spec.kind !== "text")
    out.push(setting("forbidden field", ["request", "response", "text_max_length"], 10));
  if (type === "response.submitted") {
    out.push(
      setting(
        "both choice_id and text",
        has(event, ["response", "text"]) ? ["response", "choice_id"] : ["response", "text"],
        has(event, ["response", "text"]) ? "allow" : "yes",
      ),
    );
  }

  // Bad enum values.
  out.push(setting("bad enum", ["arc_version"], "0.1"));
  out.push(setting("bad enum", ["event_type"], "request.deleted"));
  if (isRequest) {
    out.push(setting("bad enum", ["request", "kind"], "alert"));
    out.push(setting("bad enum", ["request", "priority"], "urgent"));
  }
  if (type === "request.resolved") out.push(setting("bad enum", ["request", "outcome"], "done"));
  if (spec) out.push(setting("bad enum", ["request", "response", "kind"], "multi_choice"));

  // Bad patterns.
  out.push(setting("bad pattern", ["occurred_at"], "2026-01-01 00:00:00"));
  out.push(setting("bad pattern", ["occurred_at"], "2026-02-30T00:00:00Z"));
  out.push(setting("bad pattern", ["occurred_at"], "2026-01-01T00:00:00"));
  if (type !== "request.created" || has(event, ["request", "key"])) {
    out.push(setting("bad pattern", ["request", "key"], " \t "));
  }
  if (spec) {
    out.push(setting("bad pattern", ["request", "response", "expires_at"], "tomorrow"));
    if (spec.kind !== "text") {
      out.push(setting("bad pattern", ["request", "response", "choices", 0, "id"], "a b"));
      out.push(setting("bad pattern", ["request", "response", "choices", 0, "id"], "c".repeat(65)));
      out.push(setting("choice count", ["request", "response", "choices"], [{ id: "only", label: "Only" }]));
      out.push(
        setting(
          "choice count",
          ["request", "response", "choices"],
          Array.from({ length: 13 }, (_, index) => ({ id: `c${index}`, label: `C${index}` })),
        ),
      );
      const list = spec.choices as Json[];
      out.push({
        name: "duplicate choice id",
        expressible: false,
        apply(original) {
          const copy = structuredClone(original);
          const copied = lookup(copy, ["request", "response", "choices"]) as Json[];
          copied[1] = { ...(copied[1] as Json), id: (list[0] as Json).id };
          return copy;
        },
      });
    }
  }
  out.push(setting("bad pattern", ["extensions"], { vendor: {} }));
  out.push(setting("bad pattern", ["extensions"], { "X-Acme": {} }));
  out.push(setting("bad pattern", ["extensions"], { "x-": {} }));
  out.push(setting("bad pattern", ["extensions"], { "x-notify": { notification_type: "Deploy-Gate" } }));
  if (type === "response.submitted") {
    out.push(setting("bad pattern", ["response", "digest"], "A".repeat(64)));
    out.push(setting("bad pattern", ["response", "digest"], "0".repeat(63)));
    out.push(setting("bad pattern", ["response", "source"], "a b"));
    if (has(event, ["response", "choice_id"])) out.push(setting("bad pattern", ["response", "choice_id"], "a/b"));
  }
  return out;
}

/** A valid event with one of its schema-breaking mutations applied. */
export function mutated(events: fc.Arbitrary<Json>) {
  return events.chain((event) =>
    fc.constantFrom(...mutationsOf(event)).map((mutation) => ({
      event,
      mutation: mutation.name,
      expressible: mutation.expressible,
      value: mutation.apply(event),
    })),
  );
}

/**
 * A copy of `event` with the value of one key of one object or array inside it (chosen by `pick`, any depth)
 * replaced by `replacement`: arbitrary damage for "never a crash" properties.
 */
export function withOneValueReplaced(event: Json, replacement: unknown, pick: number): Json {
  const copy = structuredClone(event) as Json;
  const holders: Json[] = [];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    holders.push(node as Json);
    for (const child of Object.values(node as Json)) walk(child);
  };
  walk(copy);
  const holder = holders[pick % holders.length] as Json;
  const keys = Object.keys(holder);
  if (keys.length > 0) holder[keys[pick % keys.length] as string] = replacement;
  return copy;
}
