/**
 * Shape checks on a parsed JSON body that the schema layer cannot make safely: numbers too large to write back
 * (1e999 parses to Infinity), how deep it nests (every recursive
 * walk after parsing, JSON.stringify and RFC 8785 canonicalization among them, overflows the stack somewhere past a
 * few thousand levels) and whether every string is well-formed Unicode (a lone surrogate, sent as a `\ud800`
 * escape, survives JSON.parse but cannot be canonicalized, hashed or stored as sent). One iterative walk, so the
 * check itself has no depth limit.
 */

/** Default nesting limit for request bodies (objects and arrays count; scalars do not). */
export const MAX_JSON_DEPTH = 64;

export interface JsonShapeOptions {
  /** Deepest nesting allowed; the top-level object or array is depth 1. */
  maxDepth?: number;
  /** Refuse strings (values and keys) that are not well-formed UTF-16 (lone surrogates). Default true. */
  wellFormed?: boolean;
  /** Refuse strings holding U+0000 (PostgreSQL text and jsonb cannot store it). Default false. */
  noNul?: boolean;
}

/** The first problem with a parsed JSON value, as a client-facing message, or undefined when it is acceptable. */
export function jsonShapeProblem(value: unknown, options: JsonShapeOptions = {}): string | undefined {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const wellFormed = options.wellFormed ?? true;
  const noNul = options.noNul ?? false;
  const stringProblem = (text: string, where: string): string | undefined => {
    if (wellFormed && !text.isWellFormed()) return loneSurrogate(where);
    if (noNul && text.includes("\u0000")) return `${where} must not contain a NUL character`;
    return undefined;
  };
  if (typeof value === "string") return stringProblem(value, "the body");
  if (typeof value === "number") return Number.isFinite(value) ? undefined : tooLarge("the body");
  if (value === null || typeof value !== "object") return undefined;
  // Each entry: a container, its depth, and its path ("" for the body itself) for the message.
  const stack: [unknown, number, string][] = [[value, 1, ""]];
  while (stack.length > 0) {
    const [node, depth, path] = stack.pop() as [unknown, number, string];
    if (depth > maxDepth) return `the request body nests deeper than ${maxDepth} levels`;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index];
        if (typeof item === "string") {
          const problem = stringProblem(item, `${path}[${index}]`);
          if (problem) return problem;
        } else if (typeof item === "number") {
          if (!Number.isFinite(item)) return tooLarge(`${path}[${index}]`);
        } else if (item !== null && typeof item === "object") stack.push([item, depth + 1, `${path}[${index}]`]);
      }
      continue;
    }
    for (const key in node as Record<string, unknown>) {
      const keyPath = path === "" ? key : `${path}.${key}`;
      const keyProblem = stringProblem(key, `a key in ${path === "" ? "the body" : path}`);
      if (keyProblem) return keyProblem;
      const item = (node as Record<string, unknown>)[key];
      if (typeof item === "string") {
        const problem = stringProblem(item, keyPath);
        if (problem) return problem;
      } else if (typeof item === "number") {
        if (!Number.isFinite(item)) return tooLarge(keyPath);
      } else if (item !== null && typeof item === "object") stack.push([item, depth + 1, keyPath]);
    }
  }
  return undefined;
}

// JSON.parse turns 1e999 into Infinity, which no JSON serializer (nor RFC 8785) can write back.
const tooLarge = (where: string): string => `${where} is a number too large to represent`;

const loneSurrogate = (where: string): string => `${where} must be valid Unicode (it holds a lone surrogate)`;
