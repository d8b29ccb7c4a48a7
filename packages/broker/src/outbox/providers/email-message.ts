/**
 * An RFC 5322 plain-text message: headers, a quoted-printable UTF-8 body (RFC 2045 section 6.7), and a Subject in
 * RFC 2047 encoded words when it is not plain ASCII. Lines end in CRLF and stay under 78 characters except a long
 * ASCII Subject (at most ~210, under the 998 hard limit).
 */

export interface MailMessage {
  from: string;
  to: readonly string[];
  subject: string;
  body: string;
  date: Date;
  messageId: string;
}

export function formatMessage(message: MailMessage): string {
  const headers = [
    `Date: ${rfc5322Date(message.date)}`,
    `From: ${message.from}`,
    `To: ${message.to.join(", ")}`,
    `Subject: ${encodeSubject(message.subject)}`,
    `Message-ID: <${message.messageId}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: quoted-printable",
    // RFC 3834: machine-generated, so auto-responders stay quiet.
    "Auto-Submitted: auto-generated",
  ];
  return `${headers.join("\r\n")}\r\n\r\n${quotedPrintable(message.body)}\r\n`;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** RFC 5322 section 3.3 in UTC: `Wed, 04 Mar 2026 10:00:00 +0000`. */
export function rfc5322Date(date: Date): string {
  const two = (value: number) => String(value).padStart(2, "0");
  return (
    `${DAYS[date.getUTCDay()]}, ${two(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}

/** Plain ASCII as it is; anything else as `=?UTF-8?B?...?=` words of at most 75 characters, folded. */
export function encodeSubject(subject: string): string {
  // A control character (a newline above all) would end the header: header injection.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  const clean = subject.replace(/[\u0000-\u001f\u007f]+/g, " ");
  if (/^[\x20-\x7e]*$/.test(clean)) return clean;
  const words: string[] = [];
  let chunk = "";
  for (const point of clean) {
    // 45 bytes of UTF-8 are 60 characters of base64; with `=?UTF-8?B?` and `?=` a word is 72 characters.
    if (Buffer.byteLength(chunk + point, "utf8") > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += point;
  }
  if (chunk !== "") words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word, "utf8").toString("base64")}?=`).join("\r\n ");
}

/** Quoted-printable of the UTF-8 bytes; line breaks become CRLF, soft breaks keep lines at 76 characters. */
export function quotedPrintable(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const bytes = Buffer.from(line, "utf8");
      let encoded = "";
      let current = "";
      bytes.forEach((byte, index) => {
        const last = index === bytes.length - 1;
        const literal = (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last);
        const token = literal ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
        if (current.length + token.length > 75) {
          encoded += `${current}=\r\n`;
          current = "";
        }
        current += token;
      });
      return encoded + current;
    })
    .join("\r\n");
}
