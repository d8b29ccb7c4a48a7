import type { Json } from "./json.js";

/** One fuzzed request body: the raw text sent, what was done, and whether the broker must refuse it outright. */
export interface Mutant {
  label: string;
  text: string;
  /** Refused before any route runs: 400 for a shape problem, 413 for size. */
  mustRefuse?: 400 | 413;
}

/** `{"a":{"a":...}}` nested `depth` levels. */
export function nestedText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

type Path = (string | number)[];

/** Every path to a value inside `body` (objects and arrays included), depth first. */
function paths(value: Json, prefix: Path = []): Path[] {
  if (value === null || typeof value !== "object") return [prefix];
  const children = Array.isArray(value)
    ? value.flatMap((item, index) => paths(item, [...prefix, index]))
    : Object.entries(value).flatMap(([key, item]) => paths(item, [...prefix, key]));
  return prefix.length === 0 ? children : [prefix, ...children];
}

const SENTINEL = "__FUZZ_SENTINEL__";

/** `body` with the value at `path` replaced by raw JSON text. */
function replacedText(body: Json, path: Path, raw: string): string {
  const copy = structuredClone(body);
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step];
  node[path[path.length - 1] as string | number] = SENTINEL;
  return JSON.stringify(copy).replace(JSON.stringify(SENTINEL), raw);
}

/** Raw JSON texts put in place of a value, with whether the shape check must refuse them. */
const REPLACEMENTS: { label: string; raw: (current: Json) => string | undefined; mustRefuse?: 400 }[] = [
  { label: "nested 3,000 deep", raw: () => nestedText(3_000), mustRefuse: 400 },
  {
    label: "lone high surrogate",
    raw: (current) => (typeof current === "string" ? '"a\\ud800b"' : undefined),
    mustRefuse: 400,
  },
  { label: "lone low surrogate", raw: () => '"\\udfff"', mustRefuse: 400 },
  { label: "NUL inside", raw: (current) => (typeof current === "string" ? '"a\\u0000b"' : '"\\u0000"') },
  { label: "huge number", raw: () => "1e308" },
  { label: "overflowing number", raw: () => "1e999" },
  { label: "negative huge", raw: () => "-1e308" },
  { label: "fraction", raw: () => "1.5" },
  { label: "past safe integer", raw: () => "9007199254740993" },
  { label: "negative", raw: () => "-1" },
  { label: "null", raw: () => "null" },
  { label: "true", raw: () => "true" },
  { label: "empty string", raw: () => '""' },
  { label: "long string", raw: () => JSON.stringify("x".repeat(5_000)) },
  { label: "empty array", raw: () => "[]" },
  { label: "empty object", raw: () => "{}" },
  { label: "array of objects", raw: () => '[{"a":1},{"b":[2]}]' },
  { label: "object with __proto__", raw: () => '{"__proto__":{"polluted":1}}' },
];

/** Every mutant of a valid body: each replacement at each path, unknown and duplicate keys, and the whole body. */
export function bodyMutants(body: Json | undefined, maxBytes: number): Mutant[] {
  const mutants: Mutant[] = [
    { label: "empty body", text: "" },
    { label: "null body", text: "null" },
    { label: "array body", text: "[]" },
    { label: "string body", text: '"text"' },
    { label: "number body", text: "12" },
    { label: "malformed JSON", text: '{"a":', mustRefuse: 400 },
    { label: "trailing garbage", text: '{"a":1} x', mustRefuse: 400 },
    { label: "whole body nested", text: nestedText(5_000), mustRefuse: 400 },
    { label: "lone surrogate key", text: '{"\\ud800":1}', mustRefuse: 400 },
    { label: "oversize", text: JSON.stringify({ pad: "x".repeat(maxBytes + 16) }), mustRefuse: 413 },
  ];
  if (body === undefined) return mutants;
  const base = JSON.stringify(body);
  if (!Array.isArray(body)) {
    mutants.push({ label: "unknown top-level field", text: `${base.slice(0, -1)},"zz_unknown":1}` });
    const [firstKey] = Object.keys(body);
    if (firstKey !== undefined) {
      // JSON.parse keeps the last of two equal keys: a second value of another type follows the valid one.
      mutants.push({
        label: `duplicate key ${firstKey}`,
        text: `${base.slice(0, -1)},${JSON.stringify(firstKey)}:[1,{"x":2}]}`,
      });
    }
  }
  for (const path of paths(body)) {
    if (path.length === 0) continue;
    const where = path.join(".");
    let current: Json = body;
    for (const step of path) current = current[step];
    for (const replacement of REPLACEMENTS) {
      const raw = replacement.raw(current);
      if (raw === undefined) continue;
      mutants.push({
        label: `${where}: ${replacement.label}`,
        text: replacedText(body, path, raw),
        ...(replacement.mustRefuse ? { mustRefuse: replacement.mustRefuse } : {}),
      });
    }
    if (current !== null && typeof current === "object" && !Array.isArray(current)) {
      mutants.push({
        label: `${where}: unknown field`,
        text: replacedText(body, path, JSON.stringify({ ...current, zz_unknown: 1 })),
      });
    }
  }
  return mutants;
}

/** Odd values for each query parameter, and a parameter given twice. */
export function queryMutants(query: Record<string, string> | undefined): string[] {
  const odd = ["", "x", "-1", "0", "1.5", "1e999", "%ED%A0%80", "%00", "true%00", "9".repeat(400)];
  const strings: string[] = ["?", "?unknown=1", "?%ED%A0%80=1", "?a=%"];
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const bad of odd) strings.push(`?${name}=${bad}`);
    strings.push(`?${name}=${encodeURIComponent(value)}&${name}=${encodeURIComponent(value)}`);
  }
  return strings;
}

/** Path ids that exist nowhere, or cannot be decoded. */
export const BAD_IDS = ["nope", "%ED%A0%80", "%00", "..%2F..%2Fetc", "a".repeat(600), "%", "ntf_%F0%9F%9A%80"];
