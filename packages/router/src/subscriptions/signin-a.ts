import type { RouterLog } from "../proxy/request-context.js";
import type { UpstreamClient } from "../upstreams/client.js";
import { refreshTokens } from "./auth-server.js";
import { jwtChatgptAccountId, jwtExpiryMs } from "./jwt.js";
import { type CredentialResult, credential, credentialFailure, signedOut } from "./outcome.js";
import {
  accountDirectory,
  readSigninFile,
  type SigninEnv,
  type SigninFile,
  writeRenewedTokens,
} from "./signin-file.js";

/** docs/router.md, "Limits": a token is renewed within five minutes of its expiry. */
export const RENEW_WINDOW_MS = 5 * 60 * 1000;

/**
 * Client-identifying header of the Codex CLI: `originator`, `codex_cli_rs` by default (openai/codex,
 * codex-rs/login/src/auth/default_client.rs `DEFAULT_ORIGINATOR`). The account header is `ChatGPT-Account-ID`
 * (codex-rs/login/src/auth/manager.rs `CHATGPT_ACCOUNT_ID_HEADER_NAME`), holding `tokens.account_id` or, failing
 * that, the `chatgpt_account_id` claim of the identity token.
 */
export const ORIGINATOR = "codex_cli_rs";

export interface SigninDeps {
  client: UpstreamClient;
  log: RouterLog;
  userAgent: string;
  now: () => number;
  env: SigninEnv;
  tokenUrl: string;
}

/** What the log says to run for a signed-out account: `codex login`, with CODEX_HOME for an extra account. */
export function loginHint(directory: string | undefined, env: SigninEnv): string {
  const isDefault = directory === undefined || directory === accountDirectory(null, env);
  return isDefault ? "run `codex login`" : `run \`CODEX_HOME=${directory} codex login\``;
}

/**
 * `plan_signin_a` (docs/router.md, "`plan_signin_a`: the sign-in's own backend"): every attempt reads the sign-in file
 * of the account named by
 * `credential_ref`. A token within five minutes of expiry, or the one the backend just refused (`stale`), is not
 * sent: the file is read again (the tool may have renewed it), and only when it still holds that token is it renewed
 * at the auth server with the tool's own client, and the new tokens written back. One renewal per file at a time.
 */
export class SigninA {
  private readonly renewals = new Map<string, Promise<CredentialResult>>();

  constructor(private readonly deps: SigninDeps) {}

  async credential(slug: string, credentialRef: string | null, stale?: string): Promise<CredentialResult> {
    const directory = accountDirectory(credentialRef, this.deps.env);
    const file = directory === undefined ? undefined : readSigninFile(directory);
    if (directory === undefined || file === undefined) return this.signedOut(slug, directory, "no sign-in file");
    if (this.usable(file, stale)) return this.answer(file);
    let renewal = this.renewals.get(file.path);
    if (!renewal) {
      renewal = this.renew(slug, directory, stale).finally(() => this.renewals.delete(file.path));
      this.renewals.set(file.path, renewal);
    }
    return renewal;
  }

  private usable(file: SigninFile, stale: string | undefined): file is SigninFile & { accessToken: string } {
    if (file.accessToken === undefined || file.accessToken === stale) return false;
    const expiry = jwtExpiryMs(file.accessToken);
    return expiry === undefined || expiry - this.deps.now() > RENEW_WINDOW_MS;
  }

  private answer(file: SigninFile & { accessToken: string }): CredentialResult {
    const accountId =
      file.accountId ??
      (file.idToken ? jwtChatgptAccountId(file.idToken) : undefined) ??
      jwtChatgptAccountId(file.accessToken);
    return credential(file.accessToken, {
      originator: ORIGINATOR,
      ...(accountId ? { "chatgpt-account-id": accountId } : {}),
    });
  }

  private async renew(slug: string, directory: string, stale: string | undefined): Promise<CredentialResult> {
    // Read again: the tool itself (or another attempt) may have renewed the tokens meanwhile.
    const file = readSigninFile(directory);
    if (file === undefined) return this.signedOut(slug, directory, "no sign-in file");
    if (this.usable(file, stale)) return this.answer(file);
    if (file.refreshToken === undefined) return this.signedOut(slug, directory, "no refresh token");
    const answer = await refreshTokens(this.deps.client, this.deps.tokenUrl, file.refreshToken, this.deps.userAgent);
    if (answer.kind === "refused") return this.signedOut(slug, directory, `renewal refused (HTTP ${answer.status})`);
    if (answer.kind === "unreachable") {
      this.deps.log.warn(`router: upstream ${slug}: the sign-in could not be renewed now (${answer.code})`);
      return credentialFailure(502, answer.code, `upstream ${slug}: the sign-in could not be renewed (${answer.code})`);
    }
    const text = (value: unknown): string | undefined =>
      typeof value === "string" && value !== "" ? value : undefined;
    const accessToken = text(answer.body.access_token);
    if (accessToken === undefined) return this.signedOut(slug, directory, "renewal answered no access token");
    const renewed = {
      accessToken,
      refreshToken: text(answer.body.refresh_token),
      idToken: text(answer.body.id_token),
    };
    try {
      writeRenewedTokens(file.path, renewed, new Date(this.deps.now()));
    } catch {
      // The renewed token still serves this attempt; the tool keeps its own (maybe now used) refresh token.
      this.deps.log.warn(`router: upstream ${slug}: renewed tokens could not be written to ${file.path}`);
    }
    return this.answer({
      ...file,
      accessToken,
      idToken: renewed.idToken ?? file.idToken,
      refreshToken: renewed.refreshToken ?? file.refreshToken,
    });
  }

  private signedOut(slug: string, directory: string | undefined, why: string): CredentialResult {
    this.deps.log.warn(
      `router: upstream ${slug}: subscription_signed_out (${why} in ${directory ?? "the default Codex directory"}); ${loginHint(directory, this.deps.env)}`,
    );
    return signedOut(slug);
  }
}
