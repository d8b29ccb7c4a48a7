import { generateKeyPairSync } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type AppOptions, buildApp, type RelayApp, type RelayStore, SqliteStore } from "@notify/relay";
import { ENROLLMENT_TOKEN } from "./relay.js";
import { tempDir } from "./temp-dirs.js";

/**
 * The relay app over a store, driven through `inject` or a real socket, with helpers that walk the enrollment and
 * pairing routes: what the relay's own suites and the broker's and the phone's relay e2e tests share. The app comes
 * from @notify/relay (its build); the relay's own suites pass their source's buildApp instead (test/helpers.ts).
 */
export type BuildRelay = (options: AppOptions) => RelayApp;

/** A temp dir of the kit's (removed when the test file ends) that can also be removed now. */
export function removableTempDir(prefix: string): { path: string; remove: () => void } {
  const path = tempDir(prefix);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A public X25519 JWK as a phone would post it. */
export function x25519Jwk(): { kty: string; crv: string; x: string } {
  const { publicKey } = generateKeyPairSync("x25519");
  const jwk = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string };
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}

export interface Enrolled {
  installation_id: string;
  token: string;
  owner_id: string;
}

export interface Paired {
  device_id: string;
  token: string;
  owner_id: string;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
  json(): any;
}

export interface RequestSpec {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON (with its content type unless headers say otherwise); a string as is. */
  body?: unknown;
}

export type Transport = "inject" | "socket";

/** A relay app over a store, with helpers that walk the enrollment and pairing routes. */
export class RelayHarness {
  readonly app: RelayApp["app"];
  readonly hub: RelayApp["hub"];
  transport: Transport = "inject";
  private base: string | undefined;

  constructor(
    readonly store: RelayStore,
    options: Partial<AppOptions> = {},
    build: BuildRelay = buildApp,
  ) {
    const built = build({
      store,
      enrollmentToken: ENROLLMENT_TOKEN,
      publicUrl: "https://relay.example.test",
      limits: false,
      ...options,
    });
    this.app = built.app;
    this.hub = built.hub;
  }

  /** Switches to a real socket on 127.0.0.1 (port 0); resolves with its URL (`http://127.0.0.1:PORT`). */
  async listen(): Promise<string> {
    this.base = await this.app.listen({ port: 0, host: "127.0.0.1" });
    this.transport = "socket";
    return this.base;
  }

  async request(spec: RequestSpec): Promise<Reply> {
    const headers: Record<string, string> = { ...(spec.headers ?? {}) };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      payload = typeof spec.body === "string" ? spec.body : JSON.stringify(spec.body);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
        headers["content-type"] = "application/json";
      }
    }
    const method = spec.method ?? (payload === undefined ? "GET" : "POST");
    if (this.transport === "inject") {
      const response = await this.app.inject({
        method: method as "GET",
        url: spec.url,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      const text = response.body;
      return {
        status: response.statusCode,
        headers: response.headers as Record<string, string>,
        text,
        json: () => JSON.parse(text),
      };
    }
    const response = await fetch(`${this.base}${spec.url}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text,
      json: () => JSON.parse(text),
    };
  }

  async enroll(name?: string): Promise<Enrolled> {
    const response = await this.request({
      url: "/v1/installations",
      headers: { authorization: `Bearer ${ENROLLMENT_TOKEN}` },
      body: name === undefined ? {} : { name },
    });
    if (response.status !== 201) throw new Error(`enroll: ${response.status} ${response.text}`);
    return response.json() as Enrolled;
  }

  async pairCode(
    installation: Enrolled,
    body: object = {},
  ): Promise<{ code: string; link: string; expires_at: string }> {
    const response = await this.request({
      url: "/v1/pairings",
      headers: { authorization: `Bearer ${installation.token}` },
      body,
    });
    if (response.status !== 201) throw new Error(`pair: ${response.status} ${response.text}`);
    return response.json() as { code: string; link: string; expires_at: string };
  }

  async pair(installation: Enrolled, extra: Record<string, unknown> = {}, pairingBody: object = {}): Promise<Paired> {
    const { code } = await this.pairCode(installation, pairingBody);
    const response = await this.request({
      url: "/v1/pairings/claim",
      body: { code, device_name: "Test phone", public_key: x25519Jwk(), ...extra },
    });
    if (response.status !== 201) throw new Error(`claim: ${response.status} ${response.text}`);
    return response.json() as Paired;
  }

  answer(device: Paired, installation: Enrolled, fields: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      contract_version: "1",
      response_id: `resp-${Math.random().toString(36).slice(2)}`,
      interaction_id: "int_1",
      request_digest: "a".repeat(64),
      nonce: "nonce-1",
      choice_id: "allow",
      installation_id: installation.installation_id,
      device_id: device.device_id,
      ...fields,
    };
  }

  postAnswer(device: Paired | string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const token = typeof device === "string" ? device : device.token;
    return this.request({
      url: "/v1/interaction-responses",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  poll(installation: Enrolled, since?: string, extra = ""): Promise<Reply> {
    const query = new URLSearchParams({ installation_id: installation.installation_id });
    if (since !== undefined) query.set("since", since);
    return this.request({
      url: `/v1/interaction-responses?${query}${extra}`,
      headers: { authorization: `Bearer ${installation.token}`, accept: "application/json" },
    });
  }

  postEnvelope(installation: Enrolled, body: unknown): Promise<Reply> {
    return this.request({ url: "/v1/envelopes", headers: { authorization: `Bearer ${installation.token}` }, body });
  }

  envelopes(device: Paired, since?: string, extra = ""): Promise<Reply> {
    const query = since === undefined ? "" : `since=${encodeURIComponent(since)}`;
    return this.request({
      url: `/v1/envelopes?${query}${extra}`,
      headers: { authorization: `Bearer ${device.token}` },
    });
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.store.close();
    (this as { dir?: { remove: () => void } }).dir?.remove();
  }
}

/** A harness over a fresh SQLite file in its own temp dir (`dir`, removed on close or when the test file ends). */
export function sqliteRelay(
  options: Partial<AppOptions> = {},
): RelayHarness & { dir: { path: string; remove: () => void } } {
  const dir = removableTempDir("relay-test-");
  const harness = new RelayHarness(new SqliteStore(join(dir.path, "relay.db")), options);
  return Object.assign(harness, { dir });
}

/** A sealed-looking envelope: the relay checks the outer shape only. */
export function envelopeFor(installation: Enrolled, deviceIds: string[]) {
  return {
    envelope_version: "1",
    sender_id: installation.installation_id,
    jwe: {
      protected: "eyJlbmMiOiJBMjU2R0NNIn0",
      recipients: deviceIds.map((kid) => ({
        header: { alg: "ECDH-ES+A256KW", kid, epk: { kty: "OKP", crv: "X25519", x: "AAAA" } },
        encrypted_key: "c2VjcmV0",
      })),
      iv: "aXY",
      ciphertext: "Y2lwaGVy",
      tag: "dGFn",
    },
  };
}
