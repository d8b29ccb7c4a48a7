import { createHash, createHmac, randomBytes } from "node:crypto";
import type { UiAdmission } from "@notify/contracts/enums";
import { secretMatches } from "@notify/contracts/guards";
import type { Clock } from "../../domain/clock.js";
import { bearerMatches } from "../auth.js";

export const SESSION_COOKIE = "notify_session";
/** A login link works once, within this time (docs/security.md, "The web page's session"). */
export const LOGIN_LINK_TTL_MS = 60 * 60 * 1000;
/** How long a browser stays signed in after using a link. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const MAX_PENDING_LINKS = 100;

/**
 * Who may use /ui/api besides the loopback and header rules (docs/api.md, "Web UI API: `/ui/api`"): a browser holding
 * the session cookie that a one-time login link set, or a client presenting the broker's bearer token (the CLI).
 * Loopback is no boundary between the users of one machine, so neither is optional.
 *
 * The cookie is stateless (an expiry and random bytes, MACed with a key derived from the bearer token): a broker
 * restart keeps the page signed in, and changing the token signs every browser out. Login links are kept in
 * memory only, as hashes, so a link from an earlier run never works.
 */
export class UiSessions {
  private readonly macKey: Buffer;
  private readonly links = new Map<string, number>();

  constructor(
    private readonly authToken: string,
    private readonly clock: Clock,
    /** Called with a link's token once it is used (the broker removes the link's redirect page). */
    private readonly onLinkUsed?: (token: string) => void,
  ) {
    this.macKey = createHash("sha256").update("notify-ui-session\0").update(authToken).digest();
  }

  /** A fresh one-time login token (the `t` of /ui/login?t=...). */
  createLinkToken(): { token: string; expiresAt: number } {
    const now = this.clock.now();
    for (const [hash, expiresAt] of this.links) if (expiresAt <= now) this.links.delete(hash);
    // Bounded: the oldest unused link goes first.
    while (this.links.size >= MAX_PENDING_LINKS) {
      const oldest = this.links.keys().next().value;
      if (oldest === undefined) break;
      this.links.delete(oldest);
    }
    const token = randomBytes(32).toString("base64url");
    const expiresAt = now + LOGIN_LINK_TTL_MS;
    this.links.set(hashOf(token), expiresAt);
    return { token, expiresAt };
  }

  /** Whether a login token would sign in now, without using it up (a HEAD on the link). */
  linkTokenWorks(token: unknown): boolean {
    if (typeof token !== "string" || token.length === 0 || token.length > 200) return false;
    const expiresAt = this.links.get(hashOf(token));
    return expiresAt !== undefined && expiresAt > this.clock.now();
  }

  /** Uses up a login token; true once per token, while it is fresh. */
  consumeLinkToken(token: unknown): boolean {
    if (typeof token !== "string" || token.length === 0 || token.length > 200) return false;
    const hash = hashOf(token);
    const expiresAt = this.links.get(hash);
    if (expiresAt === undefined) return false;
    this.links.delete(hash);
    try {
      this.onLinkUsed?.(token);
    } catch {
      // A page that cannot be removed is removed by the next open once expired; the sign-in goes on.
    }
    return expiresAt > this.clock.now();
  }

  /** The Set-Cookie header value for a new session. */
  newSessionCookie(): string {
    const expiresAt = this.clock.now() + SESSION_TTL_MS;
    const body = `v1.${expiresAt.toString(36)}.${randomBytes(18).toString("base64url")}`;
    const value = `${body}.${this.mac(body)}`;
    return `${SESSION_COOKIE}=${value}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`;
  }

  /** Clears the cookie (Sign out). The value itself stays valid until it expires: the cookie is stateless. */
  static clearedCookie(): string {
    return `${SESSION_COOKIE}=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /** True when the Cookie header carries a session this broker issued and that has not expired. */
  hasSession(cookieHeader: string | undefined): boolean {
    const value = cookieValue(cookieHeader, SESSION_COOKIE);
    if (value === undefined || value.length > 200) return false;
    const cut = value.lastIndexOf(".");
    if (cut < 0) return false;
    const body = value.slice(0, cut);
    if (!secretMatches(value.slice(cut + 1), this.mac(body))) return false;
    const [version, expiry] = body.split(".");
    if (version !== "v1" || expiry === undefined) return false;
    const expiresAt = Number.parseInt(expiry, 36);
    return Number.isFinite(expiresAt) && expiresAt > this.clock.now();
  }

  /** How a /ui/api request is let in, or undefined for a 401. */
  admit(headers: { authorization?: string | undefined; cookie?: string | undefined }): UiAdmission | undefined {
    if (headers.authorization !== undefined && bearerMatches(headers.authorization, this.authToken)) return "bearer";
    if (this.hasSession(headers.cookie)) return "session";
    return undefined;
  }

  private mac(body: string): string {
    return createHmac("sha256", this.macKey).update(body).digest("base64url");
  }
}

function hashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The value of one cookie in a Cookie header (RFC 6265 section 5.4 form: `a=b; c=d`). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (typeof header !== "string") return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
