import { RelayError } from "./errors.js";
import { isLoopback, nonPublicReason, parseIp } from "./ip.js";

/** A Web Push subscription as the browser's PushSubscription.toJSON() gives it. */
export interface PushSubscription {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

/** Which push endpoints a relay accepts; `allowLoopback` is the operator's test switch (docs/relay.md, Web Push). */
export interface PushEndpointPolicy {
  allowLoopback: boolean;
}

const LOOPBACK_LITERALS = new Set(["127.0.0.1", "::1", "localhost"]);
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Why the relay must not send to this endpoint URL, or undefined when it may. Push services are public https
 * hosts: an address literal must be public unicast, and `localhost` or a dotless name (which a resolver completes
 * into the local network) is refused. Names are checked again, resolved, when a push connects (web-push-sender).
 * With the loopback switch on, loopback is allowed too, and plain http to a loopback literal (the router's
 * destination rule): that is how tests point the relay at a push service of their own.
 */
export function pushEndpointProblem(url: URL, policy: PushEndpointPolicy): string | undefined {
  // A trailing dot names the same host ("localhost." is localhost).
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  const ip = parseIp(host);
  const loopbackName = host === "localhost" || host.endsWith(".localhost");
  const loopback = loopbackName || (ip !== undefined && isLoopback(ip));
  if (policy.allowLoopback && url.protocol === "http:" && LOOPBACK_LITERALS.has(host)) return undefined;
  if (url.protocol !== "https:") {
    return policy.allowLoopback ? "must be https (or http to a loopback literal)" : "must be https";
  }
  if (loopback) return policy.allowLoopback ? undefined : "must not point at a loopback address";
  if (ip) {
    const reason = nonPublicReason(ip);
    return reason ? `must not point at ${reason} address` : undefined;
  }
  if (!host.includes(".")) return "must name a public host (a fully qualified domain name)";
  return undefined;
}

/**
 * Validates a subscription: the endpoint must pass `pushEndpointProblem`, so the relay is not turned into a request
 * cannon against the network it runs in (loopback, private, link-local, CGNAT, ULA, cloud metadata, multicast).
 */
export function parsePushSubscription(value: unknown, policy: PushEndpointPolicy): PushSubscription {
  const bad = (why: string) => new RelayError("invalid_request", `push_subscription ${why}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("must be an object");
  const { endpoint, keys, expirationTime } = value as Record<string, unknown>;
  if (typeof endpoint !== "string" || endpoint.length > 2048) throw bad("endpoint must be a URL");
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw bad("endpoint must be a URL");
  }
  if (url.username || url.password) throw bad("endpoint must not carry user info");
  const problem = pushEndpointProblem(url, policy);
  if (problem) throw bad(`endpoint ${problem}`);
  if (typeof keys !== "object" || keys === null) throw bad("keys are required");
  const { p256dh, auth } = keys as Record<string, unknown>;
  if (typeof p256dh !== "string" || !BASE64URL.test(p256dh) || Buffer.from(p256dh, "base64url").length !== 65) {
    throw bad("keys.p256dh must be an uncompressed P-256 point (base64url)");
  }
  if (typeof auth !== "string" || !BASE64URL.test(auth) || Buffer.from(auth, "base64url").length !== 16) {
    throw bad("keys.auth must be 16 bytes (base64url)");
  }
  if (expirationTime !== undefined && expirationTime !== null && typeof expirationTime !== "number") {
    throw bad("expirationTime must be a number or null");
  }
  const subscription: PushSubscription = { endpoint, keys: { p256dh, auth } };
  if (typeof expirationTime === "number") subscription.expirationTime = expirationTime;
  return subscription;
}
