import { isIP, type Socket, connect as tcpConnect } from "node:net";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import type { DeliveryResult } from "../types.js";
import { networkCode } from "./http.js";

/**
 * A minimal SMTP submission client (RFC 5321) for one message: greeting, EHLO (HELO when EHLO is refused),
 * STARTTLS (RFC 3207) or implicit TLS (RFC 8314), AUTH PLAIN (RFC 4616) or LOGIN, MAIL FROM, RCPT TO for each
 * recipient, DATA with dot-stuffing, QUIT. No pipelining, no CHUNKING: one command, one reply.
 *
 * Results are a fixed code only: `smtp_<reply code>` (4xx retried, 5xx final), or a network code. Reply text, which
 * can echo an address or a credential, is never kept.
 */
export interface SmtpSend {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465). */
  secure: boolean;
  /** Upgrade with STARTTLS before anything else; the send fails when the server does not offer it. */
  startTls: boolean;
  /** Extra trusted CA certificates (PEM), for a server with a private CA. */
  ca?: string;
  heloName: string;
  auth?: { username: string; password: string };
  from: string;
  to: readonly string[];
  /** The message: headers and body, CRLF line ends, not yet dot-stuffed. */
  message: string;
  signal: AbortSignal;
}

/** The one way a step fails: the result to return, with nothing from the server in it. */
class SmtpFailure extends Error {
  constructor(readonly result: DeliveryResult) {
    super("smtp failure");
  }
}

const fail = (code: string, retryable: boolean): SmtpFailure => new SmtpFailure({ ok: false, retryable, code });

interface Reply {
  code: number;
  lines: string[];
}

/** A reply line longer than this, or a reply of more lines, is a broken or hostile server. */
const MAX_BUFFER = 64 * 1024;
const MAX_REPLY_LINES = 200;

/** Reads CRLF-terminated reply lines from whichever socket is current (the plain one, then the TLS one). */
class ReplyReader {
  private buffer = "";
  private readonly lines: string[] = [];
  private waiter: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private failure: unknown;
  private socket: Socket | undefined;
  private readonly onData = (chunk: Buffer) => {
    this.buffer += chunk.toString("utf8");
    for (let end = this.buffer.indexOf("\n"); end >= 0; end = this.buffer.indexOf("\n")) {
      this.lines.push(this.buffer.slice(0, end).replace(/\r$/, ""));
      this.buffer = this.buffer.slice(end + 1);
    }
    if (this.buffer.length > MAX_BUFFER) this.stop(fail("smtp_protocol_error", true));
    this.wake();
  };
  private readonly onError = (error: unknown) => this.stop(error);
  private readonly onClose = () => this.stop(Object.assign(new Error("closed"), { code: "ECONNRESET" }));

  attach(socket: Socket): void {
    this.detach();
    this.socket = socket;
    socket.on("data", this.onData);
    socket.on("error", this.onError);
    socket.on("close", this.onClose);
  }

  detach(): void {
    this.socket?.off("data", this.onData);
    this.socket?.off("error", this.onError);
    this.socket?.off("close", this.onClose);
    this.socket = undefined;
  }

  /** Ends every read, now and later, with `error` (the first one wins). */
  stop(error: unknown): void {
    this.failure ??= error;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!waiter) return;
    if (this.lines.length > 0) waiter.resolve();
    else if (this.failure !== undefined) waiter.reject(this.failure);
    else this.waiter = waiter;
  }

  private async line(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.failure !== undefined) throw this.failure;
      await new Promise<void>((resolve, reject) => {
        this.waiter = { resolve, reject };
      });
    }
    return this.lines.shift() as string;
  }

  /** One reply: `ddd-text` lines, then a `ddd text` line (RFC 5321 section 4.2). */
  async reply(): Promise<Reply> {
    const lines: string[] = [];
    for (;;) {
      const line = await this.line();
      const match = /^(\d{3})([ -]|$)(.*)$/.exec(line);
      if (!match || lines.length >= MAX_REPLY_LINES) throw fail("smtp_protocol_error", true);
      lines.push(match[3] ?? "");
      if (match[2] !== "-") return { code: Number(match[1]), lines };
    }
  }

  /** True when a line arrived that no command asked for (a server talking out of turn). */
  hasUnread(): boolean {
    return this.lines.length > 0;
  }
}

/** 2yz is success, 3yz continue; otherwise 4yz is a transient and 5yz a permanent failure (RFC 5321 4.2.1). */
function expect(reply: Reply, ...accepted: number[]): Reply {
  if (accepted.includes(reply.code)) return reply;
  if (reply.code >= 400 && reply.code < 500) throw fail(`smtp_${reply.code}`, true);
  if (reply.code >= 500 && reply.code < 600) throw fail(`smtp_${reply.code}`, false);
  throw fail("smtp_unexpected_reply", true);
}

/** Certificate problems are configuration (a private CA, a wrong host name): retrying will not fix them. */
const CERTIFICATE_ERRORS = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

function resultForError(error: unknown): DeliveryResult {
  if (error instanceof SmtpFailure) return error.result;
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  if (CERTIFICATE_ERRORS.has(code)) return { ok: false, retryable: false, code: "tls_certificate_invalid" };
  if (code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_"))
    return { ok: false, retryable: true, code: "tls_error" };
  return { ok: false, retryable: true, code: networkCode(error) };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/** Lines starting with "." get another "." (RFC 5321 section 4.5.2); the message ends in CRLF. */
export function dotStuff(message: string): string {
  const stuffed = message.replace(/(^|\r\n)\./g, "$1..");
  return stuffed.endsWith("\r\n") ? stuffed : `${stuffed}\r\n`;
}

export async function sendMail(send: SmtpSend): Promise<DeliveryResult> {
  if (send.signal.aborted) return { ok: false, retryable: true, code: "timeout" };
  const reader = new ReplyReader();
  const servername = isIP(send.host) === 0 ? send.host : undefined;
  const tlsOptions = { ...(servername ? { servername } : {}), ...(send.ca ? { ca: send.ca } : {}) };
  let socket: Socket = send.secure
    ? tlsConnect({ host: send.host, port: send.port, ...tlsOptions })
    : tcpConnect({ host: send.host, port: send.port });
  // The reader reports errors while it is attached; this keeps a late one (a reset after QUIT) from being an
  // unhandled 'error' event that would end the process.
  socket.on("error", ignore);
  reader.attach(socket);
  const onAbort = () => {
    reader.stop(send.signal.reason ?? Object.assign(new Error("aborted"), { name: "AbortError" }));
    socket.destroy();
  };
  send.signal.addEventListener("abort", onAbort, { once: true });
  const command = async (line: string): Promise<Reply> => {
    socket.write(`${line}\r\n`);
    return reader.reply();
  };
  try {
    expect(await reader.reply(), 220);
    let extensions = await greet(command, send.heloName);
    let encrypted = send.secure;
    if (!send.secure && send.startTls) {
      if (!extensions.has("STARTTLS")) throw fail("smtp_starttls_unavailable", false);
      expect(await command("STARTTLS"), 220);
      // Anything already buffered arrived before the handshake and could be an injected reply (CVE-2011-0411).
      if (reader.hasUnread()) throw fail("smtp_protocol_error", false);
      socket = await upgrade(socket, reader, tlsOptions);
      encrypted = true;
      extensions = await greet(command, send.heloName);
    }
    if (send.auth) {
      // Credentials cross the network only encrypted; a relay on this machine may take them in clear.
      if (!encrypted && !isLoopback(send.host)) throw fail("smtp_auth_requires_tls", false);
      await authenticate(command, extensions, send.auth);
    }
    expect(await command(`MAIL FROM:<${send.from}>`), 250);
    // Every recipient must be accepted before DATA: a partial send would be repeated to the others on retry.
    for (const recipient of send.to) expect(await command(`RCPT TO:<${recipient}>`), 250, 251);
    expect(await command("DATA"), 354);
    socket.write(`${dotStuff(send.message)}.\r\n`);
    expect(await reader.reply(), 250);
    return { ok: true };
  } catch (error) {
    return resultForError(error);
  } finally {
    send.signal.removeEventListener("abort", onAbort);
    reader.detach();
    if (socket.writable) {
      // QUIT without waiting for its 221: the message is accepted (or refused) already, and a server that never
      // answers must not hold the attempt. The socket is gone a second later whatever the server does.
      socket.end("QUIT\r\n");
      setTimeout(() => socket.destroy(), 1_000).unref();
    } else {
      socket.destroy();
    }
  }
}

function ignore(): void {}

type Command = (line: string) => Promise<Reply>;

/** EHLO, or HELO when the server does not know EHLO; returns the extension keywords (and AUTH's mechanisms). */
async function greet(command: Command, heloName: string): Promise<Map<string, string[]>> {
  const reply = await command(`EHLO ${heloName}`);
  if (reply.code === 500 || reply.code === 502) {
    expect(await command(`HELO ${heloName}`), 250);
    return new Map();
  }
  expect(reply, 250);
  const extensions = new Map<string, string[]>();
  for (const line of reply.lines.slice(1)) {
    const [keyword, ...parameters] = line.trim().split(/\s+/);
    if (keyword)
      extensions.set(
        keyword.toUpperCase(),
        parameters.map((parameter) => parameter.toUpperCase()),
      );
  }
  return extensions;
}

async function upgrade(socket: Socket, reader: ReplyReader, options: { servername?: string; ca?: string }) {
  reader.detach();
  const secure: TLSSocket = tlsConnect({ socket, ...options });
  secure.on("error", ignore);
  reader.attach(secure);
  await new Promise<void>((resolve, reject) => {
    secure.once("secureConnect", resolve);
    secure.once("error", reject);
    secure.once("close", () => reject(Object.assign(new Error("closed"), { code: "ECONNRESET" })));
  });
  return secure;
}

async function authenticate(
  command: Command,
  extensions: Map<string, string[]>,
  auth: { username: string; password: string },
): Promise<void> {
  const mechanisms = extensions.get("AUTH") ?? [];
  const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  if (mechanisms.includes("PLAIN")) {
    expect(await command(`AUTH PLAIN ${base64(`\u0000${auth.username}\u0000${auth.password}`)}`), 235);
  } else if (mechanisms.includes("LOGIN")) {
    expect(await command("AUTH LOGIN"), 334);
    expect(await command(base64(auth.username)), 334);
    expect(await command(base64(auth.password)), 235);
  } else {
    throw fail("smtp_auth_unsupported", false);
  }
}
