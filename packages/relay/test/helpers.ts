import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { type AppOptions, buildApp } from "../src/http/app.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { RelayStore } from "../src/store/types.js";

export const ENROLLMENT_TOKEN = "nre_test-enrollment-token-0123456789abcdef";

export function tempDir(prefix = "relay-test-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
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

/** A relay app over a store, with helpers that walk the enrollment and pairing routes. */
export class RelayHarness {
  readonly app: FastifyInstance;
  readonly hub;

  constructor(
    readonly store: RelayStore,
    options: Partial<AppOptions> = {},
  ) {
    const built = buildApp({
      store,
      enrollmentToken: ENROLLMENT_TOKEN,
      publicUrl: "https://relay.example.test",
      limits: false,
      ...options,
    });
    this.app = built.app;
    this.hub = built.hub;
  }

  static sqlite(options: Partial<AppOptions> = {}): RelayHarness & { dir: { path: string; remove: () => void } } {
    const dir = tempDir();
    const harness = new RelayHarness(new SqliteStore(join(dir.path, "relay.db")), options);
    return Object.assign(harness, { dir });
  }

  json(response: LightMyRequestResponse): Record<string, unknown> {
    return response.json() as Record<string, unknown>;
  }

  async enroll(name?: string): Promise<Enrolled> {
    const response = await this.app.inject({
      method: "POST",
      url: "/v1/installations",
      headers: { authorization: `Bearer ${ENROLLMENT_TOKEN}` },
      payload: name === undefined ? {} : { name },
    });
    if (response.statusCode !== 201) throw new Error(`enroll: ${response.statusCode} ${response.body}`);
    return response.json() as Enrolled;
  }

  async pairCode(
    installation: Enrolled,
    body: object = {},
  ): Promise<{ code: string; link: string; expires_at: string }> {
    const response = await this.app.inject({
      method: "POST",
      url: "/v1/pairings",
      headers: { authorization: `Bearer ${installation.token}` },
      payload: body,
    });
    if (response.statusCode !== 201) throw new Error(`pair: ${response.statusCode} ${response.body}`);
    return response.json() as { code: string; link: string; expires_at: string };
  }

  async pair(installation: Enrolled, extra: Record<string, unknown> = {}, pairingBody: object = {}): Promise<Paired> {
    const { code } = await this.pairCode(installation, pairingBody);
    const response = await this.app.inject({
      method: "POST",
      url: "/v1/pairings/claim",
      payload: { code, device_name: "Test phone", public_key: x25519Jwk(), ...extra },
    });
    if (response.statusCode !== 201) throw new Error(`claim: ${response.statusCode} ${response.body}`);
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

  postAnswer(device: Paired, body: unknown, headers: Record<string, string> = {}) {
    return this.app.inject({
      method: "POST",
      url: "/v1/interaction-responses",
      headers: { authorization: `Bearer ${device.token}`, "content-type": "application/json", ...headers },
      payload: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  poll(installation: Enrolled, since?: string, extra = "") {
    const query = new URLSearchParams({ installation_id: installation.installation_id });
    if (since !== undefined) query.set("since", since);
    return this.app.inject({
      method: "GET",
      url: `/v1/interaction-responses?${query}${extra}`,
      headers: { authorization: `Bearer ${installation.token}`, accept: "application/json" },
    });
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.store.close();
    (this as { dir?: { remove: () => void } }).dir?.remove();
  }
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
