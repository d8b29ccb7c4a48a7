import type { RouterLog } from "../proxy/request-context.js";
import type { UpstreamClient } from "../upstreams/client.js";
import { exchangeIdToken } from "./auth-server.js";
import { type CredentialResult, credential, credentialFailure, signedOut } from "./outcome.js";
import { loginHint } from "./signin-a.js";
import { accountDirectory, readSigninFile, type SigninEnv } from "./signin-file.js";

/** docs/router.md, "Limits": the subscription key is held in memory for 23 hours. */
export const EXCHANGED_KEY_TTL_MS = 23 * 60 * 60 * 1000;

export interface ExchangeDeps {
  client: UpstreamClient;
  log: RouterLog;
  userAgent: string;
  now: () => number;
  env: SigninEnv;
  tokenUrl: string;
}

/**
 * `plan_signin_b` (docs/router.md, "`plan_signin_b`: an exchanged subscription key"): the identity token of the tool's
 * sign-in file is exchanged at the vendor's key endpoint for a subscription API key (Codex's own `obtain_api_key`, see
 * auth-server.ts). The key is held in memory only, for 23 hours, per sign-in file; a 401 from the backend drops it and
 * exchanges again. Only the file is read (never an OS keychain) and it is never written.
 */
export class SigninB {
  private readonly keys = new Map<string, { key: string; untilMs: number }>();
  private readonly exchanges = new Map<string, Promise<CredentialResult>>();

  constructor(private readonly deps: ExchangeDeps) {}

  async credential(slug: string, credentialRef: string | null, stale?: string): Promise<CredentialResult> {
    const directory = accountDirectory(credentialRef, this.deps.env);
    if (directory === undefined) return this.signedOut(slug, directory, "no sign-in file");
    const cached = this.keys.get(directory);
    if (cached && cached.key !== stale && cached.untilMs > this.deps.now()) return credential(cached.key);
    this.keys.delete(directory);
    let exchange = this.exchanges.get(directory);
    if (!exchange) {
      exchange = this.exchange(slug, directory).finally(() => this.exchanges.delete(directory));
      this.exchanges.set(directory, exchange);
    }
    return exchange;
  }

  private async exchange(slug: string, directory: string): Promise<CredentialResult> {
    const file = readSigninFile(directory);
    if (file?.idToken === undefined) return this.signedOut(slug, directory, "no identity token");
    const answer = await exchangeIdToken(this.deps.client, this.deps.tokenUrl, file.idToken, this.deps.userAgent);
    if (answer.kind === "refused")
      return this.signedOut(slug, directory, `key exchange refused (HTTP ${answer.status})`);
    if (answer.kind === "unreachable") {
      this.deps.log.warn(`router: upstream ${slug}: the key exchange failed now (${answer.code})`);
      return credentialFailure(502, answer.code, `upstream ${slug}: the key exchange failed (${answer.code})`);
    }
    const key = answer.body.access_token;
    if (typeof key !== "string" || key === "") return this.signedOut(slug, directory, "key exchange answered no key");
    this.keys.set(directory, { key, untilMs: this.deps.now() + EXCHANGED_KEY_TTL_MS });
    return credential(key);
  }

  private signedOut(slug: string, directory: string | undefined, why: string): CredentialResult {
    this.deps.log.warn(
      `router: upstream ${slug}: subscription_signed_out (${why} in ${directory ?? "the default Codex directory"}); ${loginHint(directory, this.deps.env)}`,
    );
    return signedOut(slug);
  }
}
