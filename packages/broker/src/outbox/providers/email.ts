import { invalid } from "../../domain/errors.js";
import type { ProviderAdapter } from "../types.js";
import { formatMessage } from "./email-message.js";
import { readableParts } from "./readable-text.js";
import { onlyFields, optionalBoolean, optionalString, requiredString, settingsObject } from "./settings.js";
import { sendMail } from "./smtp-client.js";

/** A plain `local@domain` address: no display name, no quoting, nothing that could end a header or a command. */
const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$|^[0-9a-fA-F:.]+$/;
const MAX_RECIPIENTS = 20;

/**
 * Email over SMTP, with the broker's own small client (smtp-client.ts; no dependency). The message is plain text:
 * Subject is the title and the body the message, or the title again when the route leaves the message out
 * (docs/outbound.md, "Delivery rules", rule 3). `Message-ID` is built from the outbox item's idempotency key, so a
 * resend after a lost reply carries the same id and mail clients that thread or de-duplicate by it show one message.
 *
 * Transport security: `secure: true` is implicit TLS (port 465, RFC 8314); otherwise STARTTLS is required unless
 * `startTls: false`. AUTH (secrets `username` and `password`) is refused without TLS except to a loopback relay.
 */
export const emailAdapter: ProviderAdapter = {
  kind: "email",
  secrets: { required: [], optional: ["username", "password"] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "email");
    onlyFields(settings, ["host", "port", "secure", "startTls", "from", "to", "heloName", "ca"], "email");
    const host = requiredString(settings.host, "host", 253);
    if (!HOST.test(host)) throw invalid("host must be a host name or an IP address");
    const secure = optionalBoolean(settings.secure, "secure") ?? settings.port === 465;
    const port = settings.port ?? (secure ? 465 : 587);
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw invalid("port must be an integer 1-65535");
    }
    const startTls = optionalBoolean(settings.startTls, "startTls") ?? !secure;
    if (secure && startTls) throw invalid("startTls does not apply with secure: true (TLS from the first byte)");
    const parsed: Record<string, unknown> = {
      host,
      port,
      secure,
      startTls,
      from: address(settings.from, "from"),
      to: recipients(settings.to),
    };
    const heloName = optionalString(settings.heloName, "heloName", 253);
    if (heloName !== undefined) {
      if (!HOST.test(heloName)) throw invalid("heloName must be a host name");
      parsed.heloName = heloName;
    }
    const ca = optionalString(settings.ca, "ca", 64 * 1024);
    if (ca !== undefined) {
      if (!ca.includes("-----BEGIN CERTIFICATE-----")) throw invalid("ca must be PEM certificates");
      parsed.ca = ca;
    }
    return parsed;
  },
  async send(payload, settings, secrets, context) {
    const { username, password } = secrets;
    if ((username === undefined) !== (password === undefined)) {
      return { ok: false, retryable: false, code: "provider_secret_invalid" };
    }
    const from = settings.from as string;
    const to = settings.to as string[];
    const created = new Date(payload.createdAt);
    const readable = readableParts(payload);
    const message = formatMessage({
      from,
      to,
      subject: readable.title,
      body: readable.message ?? readable.title,
      date: Number.isNaN(created.getTime()) ? new Date() : created,
      messageId: `${context.idempotencyKey.replace(/[^A-Za-z0-9._-]/g, "_")}@${from.slice(from.lastIndexOf("@") + 1)}`,
    });
    return sendMail({
      host: settings.host as string,
      port: settings.port as number,
      secure: settings.secure === true,
      startTls: settings.startTls === true,
      ...(settings.ca === undefined ? {} : { ca: settings.ca as string }),
      heloName: (settings.heloName as string | undefined) ?? "localhost",
      ...(username !== undefined && password !== undefined ? { auth: { username, password } } : {}),
      from,
      to,
      message,
      signal: context.signal,
    });
  },
};

function address(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length > 254 || !ADDRESS.test(value)) {
    throw invalid(`${field} must be an email address (local@domain)`);
  }
  return value;
}

function recipients(value: unknown): string[] {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_RECIPIENTS) {
    throw invalid(`to must be an email address or a list of 1-${MAX_RECIPIENTS}`);
  }
  return list.map((item) => address(item, "to"));
}
