/**
 * Text from agents shown to a person: bidirectional controls made visible. Zod-free and DOM-free, so the web page,
 * the phone and the broker's toasts share it (docs/security.md, "Bidi controls").
 *
 * A right-to-left override (U+202E) makes "invoice\u202Etxt.exe" read as "invoiceexe.txt"; an isolate or a mark can
 * reorder a shell command the same way. Each such character is shown as a visible token, e.g. `<U+202E>`, and the
 * text around it keeps its logical order.
 */

/** The controls that reorder text: embeddings, overrides, isolates, their terminators and the three marks. */
export const BIDI_CONTROL_NAMES: Readonly<Record<string, string>> = {
  "\u061C": "Arabic letter mark",
  "\u200E": "left-to-right mark",
  "\u200F": "right-to-left mark",
  "\u202A": "left-to-right embedding",
  "\u202B": "right-to-left embedding",
  "\u202C": "pop directional formatting",
  "\u202D": "left-to-right override",
  "\u202E": "right-to-left override",
  "\u2066": "left-to-right isolate",
  "\u2067": "right-to-left isolate",
  "\u2068": "first strong isolate",
  "\u2069": "pop directional isolate",
};

const BIDI_CONTROL = "[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]";
/** Global, for replace (which starts at 0); matchAll gets a fresh copy, never one with a lastIndex left over. */
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL, "g");
/** Non-global, for test: a global regex would keep lastIndex between calls. */
const ONE_BIDI_CONTROL = new RegExp(BIDI_CONTROL);

/** A run of plain text, or one bidi control with its visible token (`<U+202E>`) and its name. */
export type TextPart = { text: string } | { control: string; token: string; name: string };

/** `<U+202E>` for U+202E. */
export function bidiToken(control: string): string {
  return `<U+${(control.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`;
}

export function hasBidiControls(text: string): boolean {
  return ONE_BIDI_CONTROL.test(text);
}

/** The text cut at each bidi control, for a page that styles the tokens; a text without any is one part. */
export function bidiParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let start = 0;
  for (const match of text.matchAll(new RegExp(BIDI_CONTROLS))) {
    if (match.index > start) parts.push({ text: text.slice(start, match.index) });
    const control = match[0];
    parts.push({ control, token: bidiToken(control), name: BIDI_CONTROL_NAMES[control] ?? "bidi control" });
    start = match.index + control.length;
  }
  if (start < text.length || parts.length === 0) parts.push({ text: text.slice(start) });
  return parts;
}

/** Plain text with every bidi control replaced by its token: for toasts, option labels and titles. */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, bidiToken);
}

/** What a terminal acts on: C0, DEL, C1, the bidi controls, U+2028/9. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const TERMINAL_ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of those: DEL, C1, the bidi controls, U+2028/9. */
const JSON_ACTIVE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED_CONTROLS: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Agent or network text written to a terminal (the `notify` and `notify-relay` CLIs' human output). A terminal acts
 * on control characters: ESC starts a sequence that clears the screen, recolours it or sets the window title, CR
 * returns to the start of the line so later text covers earlier text, BEL rings. Each C0 control, DEL and each C1
 * control is written as a visible escape (`\n`, `\r`, `\t`, else `\x1B`), each bidi control and the line and
 * paragraph separators (U+2028/9) as the token the web page shows (`<U+202E>`), so what the person approves reads
 * in the order it is stored. Backslashes stay single: a shell command or a path reads as the agent wrote it.
 *
 * `lines`: a block of text (a prompt or a message shown whole) keeps its line feeds and tabs, and a CR right before
 * a line feed (a CRLF line end, which moves nothing). A table cell or a header line leaves `lines` off, so it stays
 * one line.
 */
export function terminalText(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(TERMINAL_ACTIVE, (char, offset: number) => {
    if (options.lines && (char === "\n" || char === "\t" || (char === "\r" && text[offset + 1] === "\n"))) {
      return char;
    }
    const named = NAMED_CONTROLS[char];
    if (named !== undefined) return named;
    const code = char.charCodeAt(0);
    return code <= 0x9f ? `\\x${code.toString(16).toUpperCase().padStart(2, "0")}` : bidiToken(char);
  });
}

/**
 * JSON for a terminal (`--json`): the value exactly, JSON.stringify's two-space form, with DEL, the C1 controls, the
 * bidi controls and U+2028/9 written as `\u` escapes. JSON.stringify escapes C0 already; these it writes raw, and a
 * terminal would act on them. A parser reads the same value back, and text without them is byte for byte what
 * JSON.stringify gives.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    JSON_ACTIVE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
