import { invalid } from "../domain/errors.js";

/**
 * Characters are Unicode code points, as JSON Schema's maxLength counts them (the ARC contract's schemas), so an
 * emoji is one character everywhere.
 */
export function characterCount(value: string): number {
  if (value.length <= 1) return value.length;
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * A small reader for JSON request bodies. It collects every problem and throws one 400 naming all of them, so a
 * client fixes its request in one round trip. Unknown fields are errors: a misspelt optional field must not be
 * silently dropped.
 */
export class FieldReader {
  private readonly problems: string[] = [];
  private readonly seen = new Set<string>();
  private readonly body: Record<string, unknown>;

  constructor(body: unknown, what = "request body") {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalid(`${what} must be a JSON object`);
    }
    this.body = body as Record<string, unknown>;
  }

  private take(name: string): unknown {
    this.seen.add(name);
    return Object.hasOwn(this.body, name) ? this.body[name] : undefined;
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  /** A string of `min`-`max` characters (UTF-16 code units, as JavaScript counts them). `null` counts as absent. */
  string(name: string, rule: { min?: number; max: number; required?: boolean; trim?: boolean }): string | undefined {
    const raw = this.take(name);
    if (raw === undefined || raw === null) {
      if (rule.required) this.problems.push(`${name} is required`);
      return undefined;
    }
    if (typeof raw !== "string") {
      this.problems.push(`${name} must be a string`);
      return undefined;
    }
    const value = rule.trim ? raw.trim() : raw;
    const min = rule.min ?? 1;
    // Lone surrogates would be stored as U+FFFD by SQLite, so a later read would differ from what was accepted.
    if (!value.isWellFormed()) {
      this.problems.push(`${name} must be valid Unicode text`);
      return undefined;
    }
    // UTF-16 length bounds the code point count from above and (halved) from below: count only near the limits.
    const length = value.length > rule.max || value.length < 2 * min ? characterCount(value) : value.length;
    if (length < min || length > rule.max) {
      this.problems.push(`${name} must be ${min}-${rule.max} characters`);
      return undefined;
    }
    return value;
  }

  integer(name: string, rule: { min: number; max?: number; required?: boolean }): number | undefined {
    const raw = this.take(name);
    if (raw === undefined || raw === null) {
      if (rule.required) this.problems.push(`${name} is required`);
      return undefined;
    }
    if (typeof raw !== "number" || !Number.isSafeInteger(raw)) {
      this.problems.push(`${name} must be an integer`);
      return undefined;
    }
    if (raw < rule.min || (rule.max !== undefined && raw > rule.max)) {
      this.problems.push(
        rule.max === undefined ? `${name} must be >= ${rule.min}` : `${name} must be ${rule.min}-${rule.max}`,
      );
      return undefined;
    }
    return raw;
  }

  oneOf<T extends string>(name: string, values: readonly T[], required = false): T | undefined {
    const raw = this.take(name);
    if (raw === undefined || raw === null) {
      if (required) this.problems.push(`${name} is required`);
      return undefined;
    }
    if (typeof raw !== "string" || !(values as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${values.join(", ")}`);
      return undefined;
    }
    return raw as T;
  }

  /** Any JSON value; the caller checks it. */
  raw(name: string): unknown {
    return this.take(name);
  }

  /** Throws one 400 with every problem, including fields the caller never asked for. */
  finish(): void {
    const unknown = Object.keys(this.body).filter((name) => !this.seen.has(name));
    for (const name of unknown) this.problems.push(`unknown field: ${name}`);
    if (this.problems.length > 0) throw invalid(this.problems.join("; "));
  }
}
