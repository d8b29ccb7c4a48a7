import type { RouterErrorCode } from "../http/wire-errors.js";

/** What one attempt sends to authenticate: the bearer (or x-api-key) secret and any further headers. */
export interface UpstreamCredential {
  /** Sent as the wire's key header; undefined for an upstream that needs none (a local server). */
  key: string | undefined;
  /** Account- and client-identifying headers (plan_signin_a). */
  headers: Record<string, string>;
}

export interface CredentialFailure {
  status: number;
  code: RouterErrorCode;
  message: string;
}

export type CredentialResult = { ok: true; credential: UpstreamCredential } | { ok: false; failure: CredentialFailure };

export const credential = (key: string | undefined, headers: Record<string, string> = {}): CredentialResult => ({
  ok: true,
  credential: { key, headers },
});

export const credentialFailure = (status: number, code: RouterErrorCode, message: string): CredentialResult => ({
  ok: false,
  failure: { status, code, message },
});

/** docs/router.md, "Signed out": a missing or unrenewable sign-in fails the attempt (the chain goes on). */
export const signedOut = (slug: string): CredentialResult =>
  credentialFailure(503, "subscription_signed_out", `upstream ${slug}: the subscription sign-in is missing or expired`);
