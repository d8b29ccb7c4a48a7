import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * Fake sign-in files and a loopback auth server, in the shapes of the Codex CLI's ChatGPT sign-in:
 * `$CODEX_HOME/auth.json` = `{OPENAI_API_KEY, tokens: {id_token, access_token, refresh_token, account_id},
 * last_refresh}` (openai/codex, codex-rs/login/src/auth/storage.rs `AuthDotJson`; token_data.rs `TokenData`), the
 * tokens being JWTs whose `https://api.openai.com/auth` claim holds `chatgpt_account_id`; the token endpoint
 * `POST /oauth/token` answering a JSON refresh (`grant_type: refresh_token`) with new tokens and a form token
 * exchange (`requested_token=openai-api-key`) with `{access_token: <API key>}` (codex-rs/login/src/server.rs
 * `obtain_api_key`, auth/manager.rs refresh).
 */

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");

/** An unsigned JWT with an expiry (seconds from now) and the ChatGPT account claim. */
export function fakeJwt(tag: string, expiresInSeconds: number, accountId = "acct-default"): string {
  const payload = {
    exp: Math.floor(Date.now() / 1000) + expiresInSeconds,
    jti: tag,
    "https://api.openai.com/auth": { chatgpt_account_id: accountId, chatgpt_plan_type: "plus" },
  };
  return `${b64({ alg: "RS256", typ: "JWT" })}.${b64(payload)}.${Buffer.from(`sig-${tag}`).toString("base64url")}`;
}

export interface FakeSignin {
  accessToken: string;
  refreshToken: string;
  idToken: string;
  accountId: string;
}

/**
 * Writes `<dir>/auth.json` as Codex does (pretty JSON, two spaces), plus an unknown field whose number text
 * (`2.50`) a parse-and-reserialize would change: a rewrite must leave it byte for byte.
 */
export function writeSigninFile(dir: string, signin: FakeSignin, apiKey: string | null = null): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "auth.json");
  const text = `{
  "OPENAI_API_KEY": ${JSON.stringify(apiKey)},
  "tokens": {
    "id_token": ${JSON.stringify(signin.idToken)},
    "access_token": ${JSON.stringify(signin.accessToken)},
    "refresh_token": ${JSON.stringify(signin.refreshToken)},
    "account_id": ${JSON.stringify(signin.accountId)}
  },
  "last_refresh": "2026-11-20T08:00:00.000000Z",
  "auth_mode": "chatgpt",
  "future_field": {"kept": [1, 2.50, "x"], "nested": {"a": true}}
}
`;
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

export function newSignin(tag: string, expiresInSeconds: number, accountId = "acct-default"): FakeSignin {
  return {
    accessToken: fakeJwt(`access-${tag}`, expiresInSeconds, accountId),
    refreshToken: `rt-${tag}-${"r".repeat(20)}`,
    idToken: fakeJwt(`id-${tag}`, 3600, accountId),
    accountId,
  };
}

export interface AuthHit {
  headers: IncomingHttpHeaders;
  contentType: string;
  raw: string;
  fields: Record<string, string>;
}

/** The auth server on loopback: refreshes rotate all three tokens; exchanges mint `sk-exchanged-<n>`. */
export class AuthMock {
  readonly hits: AuthHit[] = [];
  /** The next answers, in order (status, body, extra headers); when empty the grant succeeds. */
  readonly script: { status: number; body: unknown; headers?: Record<string, string> }[] = [];
  /** Every token this server issued (for the secrecy scan). */
  readonly issued: string[] = [];
  url = "";
  private count = 0;
  private readonly server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const contentType = String(request.headers["content-type"] ?? "");
    const fields: Record<string, string> = contentType.startsWith("application/json")
      ? (JSON.parse(raw) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(raw));
    this.hits.push({ headers: request.headers, contentType, raw, fields });
    const scripted = this.script.shift();
    response.writeHead(scripted?.status ?? 200, { "content-type": "application/json", ...scripted?.headers });
    if (scripted) return void response.end(JSON.stringify(scripted.body));
    this.count += 1;
    if (fields.grant_type === "refresh_token") {
      const renewed = newSignin(`renewed${this.count}`, 3600, "acct-default");
      this.issued.push(renewed.accessToken, renewed.refreshToken, renewed.idToken);
      response.end(
        JSON.stringify({
          id_token: renewed.idToken,
          access_token: renewed.accessToken,
          refresh_token: renewed.refreshToken,
        }),
      );
      return;
    }
    const key = `sk-exchanged-${this.count}-${"k".repeat(16)}`;
    this.issued.push(key);
    response.end(JSON.stringify({ access_token: key }));
  });

  async start(): Promise<this> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth/token`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
