import { performance } from "node:perf_hooks";
import { delay } from "@notify/contracts/retry";
import type { OutboundConnection, RouteTestHop, RouteTestResult } from "@notify/contracts/ui";
import { DomainError } from "../domain/errors.js";
import type { OutboundService } from "./outbound-service.js";
import type { DeliveryResult } from "./types.js";

export type { RouteTestHop, RouteTestResult } from "@notify/contracts/ui";

/** Service names as a person knows them, for the fixes. */
const SERVICE: Record<string, string> = {
  telegram: "Telegram",
  slack: "Slack",
  slack_app: "Slack",
  discord: "Discord",
  discord_app: "Discord",
  ntfy: "ntfy",
  gotify: "Gotify",
  pushover: "Pushover",
  email: "The SMTP server",
  webhook: "The webhook",
  relay: "The relay",
};

/** What a person does about a failed send, by its fixed code (docs/outbound.md, "Result codes"). */
export function fixFor(kind: string, code: string): string | undefined {
  const service = SERVICE[kind] ?? "The provider";
  if (code === "http_401" || code === "http_403") {
    if (kind === "telegram")
      return `${service} ${code.slice(5)}: the bot token was revoked or is wrong: set a new botToken`;
    if (kind === "slack_app") return `${service} ${code.slice(5)}: the app or bot token was revoked: set new tokens`;
    if (kind === "relay") return "the relay refused this installation's token: pair again with `notify relay enroll`";
    return `${service} refused the credentials (${code.slice(5)}): set the provider's secrets again`;
  }
  if (code === "http_404") {
    return kind === "telegram"
      ? "Telegram does not know the bot or the chat: check the botToken and chatId"
      : `${service} does not know this address: check the provider's URL (or topic, channel, chat)`;
  }
  if (code === "http_400" && kind === "telegram") return "Telegram refused the message: check the chatId";
  if (code === "http_429") return `${service} is rate limiting: wait a minute and test again`;
  if (/^http_5\d\d$/.test(code)) return `${service} failed (${code.slice(5)}): try again later`;
  switch (code) {
    case "relay_no_devices":
      return "no phone is paired: pair one with `notify relay pair` and open the app";
    case "relay_seal_failed":
      return "no paired phone's key could seal the message: pair the phone again";
    case "connection_refused":
      return "nothing listens at the provider's address: check the URL and that the service runs";
    case "connection_reset":
    case "network_error":
      return "the network failed on the way: check the connection and test again";
    case "dns_failure":
      return "the provider's host name does not resolve: check the URL";
    case "timeout":
      return `${service} did not answer within 15 s: check the URL and the network`;
    case "tls_certificate_invalid":
      return "the server's certificate does not verify: fix it, or set `ca` for a private CA";
    case "tls_error":
      return "the TLS connection failed: check the URL's port and the server's TLS setup";
    case "provider_secret_invalid":
      return "a secret has the wrong shape: set it again";
    case "provider_secrets_unreadable":
      return "the sealed secrets cannot be opened (was secret.key replaced?): set them again";
    case "smtp_535":
      return "the SMTP server refused the login: check the username and password";
    case "smtp_starttls_unavailable":
      return "the SMTP server offers no STARTTLS: use its TLS port or allow plain text on loopback";
    default:
      return undefined;
  }
}

function sendHop(kind: string, result: DeliveryResult, ms: number): RouteTestHop {
  const rounded = Math.round(ms);
  if (result.ok) {
    return {
      hop: "send",
      status: "ok",
      ms: rounded,
      detail: result.status !== undefined ? `accepted (HTTP ${result.status})` : "accepted",
    };
  }
  const fix = fixFor(kind, result.code);
  return { hop: "send", status: "fail", ms: rounded, detail: result.code, ...(fix !== undefined ? { fix } : {}) };
}

function answersHop(kind: string, connection: OutboundConnection): RouteTestHop {
  if (connection.state === "connected") {
    return { hop: "answers", status: "ok", ms: 0, detail: `connected since ${connection.since}` };
  }
  const code = connection.lastCode ?? connection.state;
  const fix =
    (connection.lastCode !== undefined ? fixFor(kind, connection.lastCode) : undefined) ??
    (connection.state === "connecting"
      ? "the answer loop is still connecting: test again in a few seconds"
      : "the answer loop keeps failing: check the tokens and the network");
  return { hop: "answers", status: "fail", ms: 0, detail: `${connection.state}: ${code}`, fix };
}

/** How long a just-started answer loop gets to connect before the test calls it failed. */
const CONNECTING_GRACE_MS = 5_000;

async function settledConnection(
  providerId: string,
  connection: (providerId: string) => OutboundConnection | undefined,
): Promise<OutboundConnection | undefined> {
  const deadline = performance.now() + CONNECTING_GRACE_MS;
  let current = connection(providerId);
  while (current?.state === "connecting" && performance.now() < deadline) {
    await delay(100);
    current = connection(providerId);
  }
  return current;
}

/** A paired phone, as the relay lists it (`push` absent: the relay does not say). */
export interface PhoneSummary {
  device_name: string;
  push?: boolean;
}

async function phonesHop(list: () => Promise<PhoneSummary[]>): Promise<RouteTestHop> {
  const started = performance.now();
  let phones: PhoneSummary[];
  try {
    phones = await list();
  } catch (error) {
    return {
      hop: "phones",
      status: "fail",
      ms: Math.round(performance.now() - started),
      detail: `the relay's device list failed: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check the relay's URL and that it runs, then test again",
    };
  }
  const ms = Math.round(performance.now() - started);
  if (phones.length === 0) {
    const fix = "no phone is paired: pair one with `notify relay pair` and open the app";
    return { hop: "phones", status: "fail", ms, detail: "no phone is paired", fix };
  }
  const names = phones.map((phone) => phone.device_name).join(", ");
  if (phones.some((phone) => phone.push !== false)) return { hop: "phones", status: "ok", ms, detail: names };
  return {
    hop: "phones",
    status: "fail",
    ms,
    detail: `${names}: no push subscription`,
    fix: "phone has no push subscription: open the app and turn on notifications",
  };
}

export interface RouteTestSources {
  /** A chat provider's answer loop state (connected / retrying + last code). */
  connection?: (providerId: string) => OutboundConnection | undefined;
  /** A relay provider's paired phones. */
  phones?: (providerId: string) => Promise<PhoneSummary[]>;
}

/**
 * `notify test [ROUTE]` and the Outbound page's per-route Test (issue 37, item 5; docs/outbound.md, "Testing routes"):
 * a test notification through every enabled route (or the one named, enabled or not), each route at once, and per
 * route its hops: the provider (there, enabled), the send (the provider's answer, timed), for a chat provider that
 * takes answers its answer loop (a loop still connecting gets a few seconds), and for the relay its phones (one
 * without a push subscription learns of a question only when opened). Routes that share a provider share its one
 * test send, so a person gets one test message per provider. A failure says its cause (a fixed code) and the fix.
 */
export async function testRoutes(
  outbound: OutboundService,
  target?: string,
  sources: RouteTestSources = {},
): Promise<{ routes: RouteTestResult[] }> {
  let routes = outbound.listRoutes().filter((route) => route.enabled);
  if (target !== undefined) {
    const named = outbound.findRoute(target);
    if (named === undefined) throw new DomainError("outbound_route_not_found");
    routes = [named];
  }
  const sends = new Map<string, Promise<{ result: DeliveryResult; ms: number }>>();
  const sendOnce = (providerId: string) => {
    let send = sends.get(providerId);
    if (send === undefined) {
      const started = performance.now();
      send = outbound.test(providerId).then((result) => ({ result, ms: performance.now() - started }));
      sends.set(providerId, send);
    }
    return send;
  };
  const results = await Promise.all(
    routes.map(async (route): Promise<RouteTestResult> => {
      const profile = outbound.findProfile(route.providerId);
      const kind = profile?.kind ?? "unknown";
      const hops: RouteTestHop[] = [];
      if (profile === undefined) {
        hops.push({
          hop: "provider",
          status: "fail",
          ms: 0,
          detail: "provider_missing",
          fix: "the route's provider was deleted: give the route another provider",
        });
      } else if (!profile.enabled) {
        hops.push({
          hop: "provider",
          status: "fail",
          ms: 0,
          detail: "provider_disabled",
          fix: `enable the provider ${profile.name} (the Outbound page, or \`notify apply\`)`,
        });
      } else {
        hops.push({ hop: "provider", status: "ok", ms: 0, detail: `${profile.name} (${profile.kind})` });
        // The phones are listed first: the send then seals to the same fresh device list.
        const phones = sources.phones;
        const phonesResult =
          profile.kind === "relay" && phones !== undefined ? await phonesHop(() => phones(profile.id)) : undefined;
        const { result, ms } = await sendOnce(profile.id);
        hops.push(sendHop(profile.kind, result, ms));
        const loop = sources.connection ? await settledConnection(profile.id, sources.connection) : undefined;
        if (loop !== undefined) hops.push(answersHop(profile.kind, loop));
        if (phonesResult !== undefined) hops.push(phonesResult);
      }
      const status = hops.every((hop) => hop.status === "ok") ? "ok" : "fail";
      return { route: route.name, kind, status, hops };
    }),
  );
  return { routes: results };
}
