import { RelayError } from "./errors.js";

/** A Web Push subscription as the browser's PushSubscription.toJSON() gives it. */
export interface PushSubscription {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Validates a subscription. The endpoint must be https, or http to a loopback literal (the router's destination
 * rule): the relay must not be turned into a plain-http request cannon against a private network.
 */
export function parsePushSubscription(value: unknown): PushSubscription {
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
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!(url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(host)))) {
    throw bad("endpoint must be https (or http to a loopback host)");
  }
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
