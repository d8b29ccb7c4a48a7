/**
 * Text from the network (device and installation names come from pairing requests and enrollments) shown on the
 * operator's terminal. Control characters (C0 with CR, LF and TAB, DEL, C1) would move the cursor, clear the screen
 * or ring the bell, and bidi controls would reorder what is shown ("exe.txt" read as "txt.exe"): each is written as
 * a visible escape instead, and a backslash doubled, so what is printed tells exactly what is stored.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\" };

export function visible(text: string): string {
  return text.replace(HIDDEN, (char) => {
    const named = NAMED[char];
    if (named) return named;
    const code = char.charCodeAt(0);
    return code <= 0x9f
      ? `\\x${code.toString(16).toUpperCase().padStart(2, "0")}`
      : `\\u{${code.toString(16).toUpperCase()}}`;
  });
}

/** JSON for the terminal: the same value, with DEL, C1 and bidi controls written as \u escapes (JSON has C0). */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
