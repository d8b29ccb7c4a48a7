/**
 * Where the values of some members sit in a JSON text: `field` (top level) or `parent.field` (one level down), as
 * [start, end) offsets, so a caller can replace a value without touching any other byte. The text must already
 * have parsed as JSON (this scanner does not validate).
 */
export interface ValueSpan {
  start: number;
  end: number;
  isString: boolean;
}

export function jsonValueSpans(text: string, wanted: ReadonlySet<string>): Map<string, ValueSpan> {
  const spans = new Map<string, ValueSpan>();
  let at = 0;
  const skip = (): void => {
    while (at < text.length && /\s/.test(text[at] as string)) at++;
  };
  const scanString = (): void => {
    at++; // opening quote
    while (at < text.length && text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    at++; // closing quote
  };
  const value = (path: string | undefined, depth: number): void => {
    skip();
    const start = at;
    const first = text[at];
    if (first === "{") {
      at++;
      skip();
      while (text[at] !== "}") {
        const keyStart = at;
        scanString();
        const key = JSON.parse(text.slice(keyStart, at)) as string;
        skip();
        at++; // colon
        // A key holding a dot is never part of a path: a top-level key named "tokens.refresh_token" is not the
        // nested tokens.refresh_token.
        const dotted = key.includes(".");
        value(
          dotted ? undefined : depth === 0 ? key : depth === 1 && path !== undefined ? `${path}.${key}` : undefined,
          depth + 1,
        );
        skip();
        if (text[at] === ",") {
          at++;
          skip();
        }
      }
      at++;
    } else if (first === "[") {
      at++;
      skip();
      while (text[at] !== "]") {
        value(undefined, depth + 1);
        skip();
        if (text[at] === ",") at++;
        skip();
      }
      at++;
    } else if (first === '"') {
      scanString();
    } else {
      while (at < text.length && !/[\s,}\]]/.test(text[at] as string)) at++;
    }
    // A repeated key: JSON.parse keeps the last one, and so does this.
    if (path !== undefined && wanted.has(path)) spans.set(path, { start, end: at, isString: first === '"' });
  };
  value(undefined, 0);
  return spans;
}
