/**
 * The way a text file is written: a UTF-8 byte order mark first or not, CRLF or LF line ends. Notify writes what it
 * adds the same way, so the owner's file keeps its style (and an agent that reads a BOM only as the first character
 * still reads it).
 */
export interface TextStyle {
  bom: boolean;
  newline: "\n" | "\r\n";
}

const BOM = "\uFEFF";

export function textStyle(text: string | undefined): TextStyle {
  const body = text ?? "";
  return { bom: body.startsWith(BOM), newline: body.includes("\r\n") ? "\r\n" : "\n" };
}

/** The text without its byte order mark (what a parser takes). */
export const withoutBom = (text: string): string => (text.startsWith(BOM) ? text.slice(BOM.length) : text);

/** LF-ended text (as JSON.stringify writes it) in `style`. */
export const inStyle = (text: string, style: TextStyle): string =>
  (style.bom ? BOM : "") + (style.newline === "\r\n" ? text.replaceAll(/\r?\n/g, "\r\n") : text);
