import type { RouterConfig } from "../config/config-service.js";
import { destinationProblem, type Upstream } from "../config/records.js";
import type { RouterLog } from "../proxy/request-context.js";
import type { UpstreamClient } from "../upstreams/client.js";
import type { AgentAccountEntry } from "./agent-accounts.js";
import { CODEX_TOKEN_URL } from "./auth-server.js";
import { type CredentialResult, credential, credentialFailure } from "./outcome.js";
import { SigninA } from "./signin-a.js";
import { SigninB } from "./signin-b.js";
import type { SigninEnv } from "./signin-file.js";

/** How the router finds sign-in files, plus test-only hooks (never a config.json key). */
export interface SubscriptionOptions {
  /** Where sign-in files live: `CODEX_HOME`, `HOME` (the broker's environment; process.env by default). */
  env?: SigninEnv;
  /** Test hook: the auth server's token endpoint for renewals and key exchanges (loopback mocks). */
  tokenUrl?: string;
  /** The extra accounts of config.json `RouterAgentAccounts`, read when rule 7 runs. */
  agentAccounts?: () => AgentAccountEntry[];
}

/** The environment sign-in files are found through: the given one, else the process's own. */
export function signinEnv(options: SubscriptionOptions | undefined): SigninEnv {
  return options?.env ?? { CODEX_HOME: process.env.CODEX_HOME, HOME: process.env.HOME };
}

export interface CredentialDeps {
  config: RouterConfig;
  client: UpstreamClient;
  log: RouterLog;
  version: string;
  now: () => number;
  options?: SubscriptionOptions;
}

/**
 * The credential of one attempt, by the upstream's `auth` and `credential_ref` (docs/router.md, "Upstream";
 * docs/router.md, "Subscriptions and saved accounts"): a typed key (sealed in router.db), a saved account's key
 * (`api_account:<id>`, opened per attempt), a sign-in file's access token (`plan_signin_a`) or an exchanged
 * subscription key (`plan_signin_b`).
 * `stale` is the secret the backend just answered 401 to: it is not sent again.
 */
export class UpstreamCredentials {
  private readonly signinA: SigninA;
  private readonly signinB: SigninB;

  constructor(private readonly deps: CredentialDeps) {
    const env = signinEnv(deps.options);
    const shared = {
      client: deps.client,
      log: deps.log,
      userAgent: `notify-router/${deps.version}`,
      now: deps.now,
      env,
      // The destination rule holds for the auth server too: an override that breaks it is ignored.
      tokenUrl:
        deps.options?.tokenUrl !== undefined && destinationProblem(deps.options.tokenUrl) === undefined
          ? deps.options.tokenUrl
          : CODEX_TOKEN_URL,
    };
    this.signinA = new SigninA(shared);
    this.signinB = new SigninB(shared);
  }

  async open(upstream: Upstream, stale?: string): Promise<CredentialResult> {
    if (upstream.auth === "plan_signin_a")
      return this.signinA.credential(upstream.slug, upstream.credential_ref, stale);
    if (upstream.auth === "plan_signin_b")
      return this.signinB.credential(upstream.slug, upstream.credential_ref, stale);
    const unreadable = () =>
      credentialFailure(503, "provider_key_unreadable", `the key of upstream ${upstream.slug} cannot be read`);
    const ref = upstream.credential_ref;
    if (ref?.startsWith("api_account:")) {
      // Opened every attempt: a removed account fails the attempt at once.
      const key = this.deps.config.accounts.openKey(ref.slice("api_account:".length));
      if (key === undefined) {
        this.deps.log.warn(`router: upstream ${upstream.slug}: its saved account is gone or unreadable`);
        return unreadable();
      }
      return credential(key);
    }
    try {
      return credential(this.deps.config.openKey(upstream));
    } catch {
      return unreadable();
    }
  }
}
