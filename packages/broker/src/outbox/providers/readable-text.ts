import { bidiToken, showBidiControls } from "@notify/contracts/text";
import { messageOf } from "./text-limits.js";

/** C0 controls but tab and newline, DEL, and C1: Unicode's "Cc" characters that are not line layout. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text from an agent or a chat user as a person reads it off the machine: in a chat app (Telegram, Slack) or a
 * notification (Discord, ntfy, Gotify, Pushover, email). Every bidi control becomes its visible token, `<U+202E>`,
 * as on the web page, the phone and toasts (`@notify/contracts/text`); CR LF and a lone CR become a line break; every
 * other control character (C0 but tab and newline, DEL, C1) becomes a token of the same form, `<U+001B>`, so an
 * escape sequence, a NUL or a backspace can neither hide text nor reach a client that acts on it. Plain ASCII
 * tokens, so escaping for a markup (Telegram HTML or MarkdownV2, Slack mrkdwn) comes after, as for any text. Applying
 * it twice changes nothing. docs/security.md, "Bidi controls".
 */
export function readableText(text: string): string {
  return showBidiControls(text.replace(/\r\n?/g, "\n")).replace(CONTROLS, bidiToken);
}

/**
 * The title and the message (messageOf: undefined when left out or blank) of a payload, readable: what the adapters
 * a person reads send. The webhook sends the payload as stored, for a program.
 */
export function readableParts(payload: { title: string; message?: string }): {
  title: string;
  message: string | undefined;
} {
  const message = messageOf(payload);
  return { title: readableText(payload.title), message: message === undefined ? undefined : readableText(message) };
}
