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
