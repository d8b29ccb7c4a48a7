import type { UnfetchedRoutes } from "@notify/contracts/ui";
import { DEFAULT_RECEIPTS } from "../config/receipts.js";
import { DomainError, invalid } from "../domain/errors.js";
import type { Logger } from "../log/logger.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { ProviderProfile } from "../outbox/types.js";
import { expectNewDevice, forgetDevices } from "./device-keys.js";
import { chosenMachineName, machineName } from "./machine.js";
import { relaySettings } from "./relay-adapter.js";
import { type RelayReply, relayRequest, relayUrl } from "./relay-http.js";
import type { UnfetchedRouteCheck } from "./unfetched.js";

/**
 * A relay refused or could not be reached: 502 with a short fixed reason and what it means (never a token or relay
 * text). The same sentence reaches the CLI, the web page, doctor and, once, the broker log (issue 32, item 6).
 */
export class RelayUnavailableError extends DomainError {
  constructor(
    readonly reason: string,
    message = `the relay answered ${reason}`,
  ) {
    super("relay_unavailable", message);
  }
}

/** What a failed relay call means to the person, by its fixed code; `enrolling` tells which token was refused. */
function relayFailure(reply: Extract<RelayReply, { ok: false }>, enrolling: boolean): RelayUnavailableError {
  const code = reply.code;
  if (code === "tls_untrusted") {
    return new RelayUnavailableError(
      code,
      "the relay's TLS certificate is not trusted (tls_untrusted: self-signed or from a private CA): give the " +
        "broker that CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem in its environment and restart it",
    );
  }
  if (code === "tls_expired" || code === "tls_wrong_name") {
    return new RelayUnavailableError(
      code,
      `the relay's TLS certificate is ${code === "tls_expired" ? "expired or not yet valid" : "for another name"} (${code}): check the relay's URL and certificate`,
    );
  }
  if (reply.status === 401) {
    return new RelayUnavailableError(
      "HTTP 401",
      enrolling
        ? "the relay answered HTTP 401: the enrollment token was refused; check it with the relay's operator"
        : "the relay answered HTTP 401: this installation's token was refused (removed at the relay?); enroll again",
    );
  }
  // An owner's caps at the relay (docs/relay.md, "Several machines, one phone"): what to do, not just the status.
  if (reply.relayError === "too_many_machines") {
    return new RelayUnavailableError(
      "HTTP 409",
      "the relay refused: this owner already has the most machines it allows; run notify relay leave on one first",
    );
  }
  if (reply.relayError === "too_many_join_codes") {
    return new RelayUnavailableError(
      "HTTP 409",
      "the relay refused: this owner already holds the most unused join codes it allows; use one, or wait until " +
        "one expires (10 minutes)",
    );
  }
  if (reply.status !== undefined) return new RelayUnavailableError(`HTTP ${reply.status}`);
  return new RelayUnavailableError(
    code,
    `the relay cannot be reached (${code}): check its URL and that it runs, and this machine's network`,
  );
}

export interface PairingCode {
  code: string;
  link: string;
  expires_at: string;
  /** The link as an SVG QR code (no script, no style attribute: shown as an <img> under the page's CSP). */
  svg: string;
}

/** `notify relay pair --join`: the code, the relay, and the command to run on the other machine. */
export interface JoinCode {
  code: string;
  url: string;
  expires_at: string;
  command: string;
}

/** One of the owner's machines (`notify relay machines`). */
export interface Machine {
  installation_id: string;
  name: string | null;
  created_at: string;
  this: boolean;
}

export interface DeviceSummary {
  device_id: string;
  device_name: string;
  /** Whether the relay holds a push subscription for it (absent from a relay that does not say). */
  push?: boolean;
}

/** What `notify relay unenroll` did: at the relay, then here. */
export interface Unenrolled {
  url: string;
  installation_id: string;
  /** Counts the relay reported; null when it already did not know the installation (401). */
  deleted: { devices: number; answers: number; envelopes: number; pairings: number } | null;
  /** The local provider profile and the routes to it, removed. */
  provider: string;
  routes: string[];
}

/**
 * The owner's relay actions (`notify relay enroll|pair|devices|revoke`, and the web page's Relay panel): network
 * I/O the owner asked for, through the installation token opened at this boundary only.
 */
export class RelayAdmin {
  /** Causes already written to the broker log: each once, not once per retry or page refresh. */
  private readonly logged = new Set<string>();

  constructor(
    private readonly outbound: OutboundService,
    private readonly logger?: Logger,
    /** Receipts (docs/relay.md, "Receipts on the broker"): the routes whose phones fetch nothing. */
    private readonly unfetchedCheck?: UnfetchedRouteCheck,
  ) {}

  /** GET /ui/api/relay/unfetched: relay routes with deliveries no phone fetched in time (none without receipts). */
  unfetched(): UnfetchedRoutes {
    return this.unfetchedCheck?.list() ?? { warn_after_seconds: DEFAULT_RECEIPTS.warnAfterSeconds, routes: [] };
  }

  /** The error for a failed call, its cause logged the first time it is seen. */
  private failed(reply: Extract<RelayReply, { ok: false }>, enrolling = false): RelayUnavailableError {
    const error = relayFailure(reply, enrolling);
    if (!this.logged.has(error.message)) {
      this.logged.add(error.message);
      this.logger?.warn(`relay: ${error.message}`);
    }
    return error;
  }

  /** The relay provider a command means: by id or name, else the only (or first enabled) relay provider. */
  provider(idOrName?: string): ProviderProfile {
    const relays = this.outbound.listProfiles().filter((profile) => profile.kind === "relay");
    const chosen =
      idOrName === undefined
        ? (relays.find((profile) => profile.enabled) ?? relays[0])
        : relays.find((profile) => profile.id === idOrName || profile.name === idOrName);
    if (!chosen) throw invalid("no relay is configured: run notify relay enroll URL --enrollment-token T first");
    return chosen;
  }

  private call(profile: ProviderProfile, path: string, method: "GET" | "POST" | "DELETE" = "GET", body?: unknown) {
    const settings = relaySettings(profile.settings);
    const token = this.outbound.openSecrets(profile.id).installationToken ?? "";
    return relayRequest({ url: relayUrl(settings.url, path), method, token, ...(body === undefined ? {} : { body }) });
  }

  /**
   * Enrolls this broker at a relay with the operator's enrollment token, then saves the relay provider and a
   * route to it, both enabled (the owner asked; docs/relay.md, "Commands"). Enrolling again replaces the installation.
   */
  async enroll(input: {
    url?: unknown;
    enrollmentToken?: unknown;
    name?: unknown;
    machine?: unknown;
  }): Promise<ProviderProfile> {
    if (typeof input.url !== "string" || !/^https?:\/\//.test(input.url)) throw invalid("url must be an http(s) URL");
    if (typeof input.enrollmentToken !== "string" || input.enrollmentToken === "") {
      throw invalid("enrollmentToken is required");
    }
    const name = typeof input.name === "string" && input.name !== "" ? input.name : "relay";
    const machine = chosenMachineName(input.machine);
    const url = input.url.replace(/\/+$/, "");
    const reply = await relayRequest({
      url: relayUrl(url, "/v1/installations"),
      method: "POST",
      token: input.enrollmentToken,
      body: { name: machineName(machine) },
    });
    if (!reply.ok) throw this.failed(reply, true);
    return this.saveInstallation(url, name, reply.body, machine);
  }

  /**
   * Joins the owner of a machine already enrolled (issue 37, item 2; docs/relay.md, "Several machines, one phone"):
   * `POST /v1/installations/join` with the one-time code that machine (or its phone) showed, then the relay provider
   * and its route are saved as `enroll` saves them. This machine's questions then reach the owner's phones, named by
   * this machine's host name.
   */
  async join(input: { url?: unknown; code?: unknown; name?: unknown; machine?: unknown }): Promise<ProviderProfile> {
    if (typeof input.url !== "string" || !/^https?:\/\//.test(input.url)) throw invalid("url must be an http(s) URL");
    if (typeof input.code !== "string" || input.code.trim() === "") throw invalid("code is required");
    const name = typeof input.name === "string" && input.name !== "" ? input.name : "relay";
    const machine = chosenMachineName(input.machine);
    // Joining over an enrollment would orphan that installation at the relay (its token lost here, its phones kept).
    if (this.outbound.findProfile(name)?.kind === "relay") {
      throw invalid(`this machine is already enrolled as ${name}: run notify relay leave first, or join with --name`);
    }
    const url = input.url.replace(/\/+$/, "");
    const reply = await relayRequest({
      url: relayUrl(url, "/v1/installations/join"),
      method: "POST",
      token: "",
      body: { code: input.code.trim(), name: machineName(machine) },
    });
    if (!reply.ok) {
      if (reply.status === 400) throw invalid("the join code is unknown, used or expired: make a new one");
      throw this.failed(reply, true);
    }
    return this.saveInstallation(url, name, reply.body, machine);
  }

  /** A one-time code another machine joins this owner with (`notify relay pair --join`). */
  async joinCode(idOrName?: string): Promise<JoinCode> {
    const profile = this.provider(idOrName);
    const reply = await this.call(profile, "/v1/joins", "POST", {});
    if (!reply.ok) throw this.failed(reply);
    const body = reply.body as { code?: unknown; expires_at?: unknown };
    if (typeof body.code !== "string" || typeof body.expires_at !== "string") {
      throw new RelayUnavailableError("an unexpected body");
    }
    const url = relaySettings(profile.settings).url;
    return { code: body.code, url, expires_at: body.expires_at, command: `notify relay join ${url} ${body.code}` };
  }

  /** The owner's machines at the relay (`notify relay machines`). */
  async machines(idOrName?: string): Promise<Machine[]> {
    const reply = await this.call(this.provider(idOrName), "/v1/installations");
    if (!reply.ok) throw this.failed(reply);
    const list = (reply.body as { installations?: Machine[] }).installations ?? [];
    return list.map((entry) => ({
      installation_id: entry.installation_id,
      name: entry.name ?? null,
      created_at: entry.created_at,
      this: entry.this === true,
    }));
  }

  /** Saves the relay provider and its route for an installation the relay just made (enroll, join). */
  private saveInstallation(url: string, name: string, body: unknown, machine?: string): ProviderProfile {
    const installation = body as { installation_id?: unknown; token?: unknown };
    if (typeof installation.installation_id !== "string" || typeof installation.token !== "string") {
      throw new RelayUnavailableError("an unexpected body");
    }
    const existing = this.outbound.findProfile(name);
    const profile = this.outbound.saveProfile(
      {
        kind: "relay",
        name,
        enabled: true,
        settings: { url, installationId: installation.installation_id, ...(machine ? { machine } : {}) },
        secrets: { installationToken: installation.token },
      },
      existing?.id,
    );
    if (!this.outbound.findRoute(name)) {
      this.outbound.saveRoute({ name, provider: profile.id, enabled: true, includeMessage: true });
    }
    forgetDevices();
    return profile;
  }

  async pairing(idOrName?: string): Promise<PairingCode> {
    const profile = this.provider(idOrName);
    const reply = await this.call(profile, "/v1/pairings", "POST", {});
    if (!reply.ok) throw this.failed(reply);
    const body = reply.body as Partial<PairingCode>;
    if (typeof body.code !== "string" || typeof body.link !== "string" || typeof body.expires_at !== "string") {
      throw new RelayUnavailableError("an unexpected body");
    }
    // qrcode (with pngjs, about 60 modules) loads when a pairing code is first asked for, not at start.
    const { default: qrcode } = await import("qrcode");
    const svg = await qrcode.toString(body.link, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
    const pairing: PairingCode = { code: body.code, link: body.link, expires_at: body.expires_at, svg };
    const settings = relaySettings(profile.settings);
    const until = Date.parse(pairing.expires_at);
    expectNewDevice(settings.url, settings.installationId, Number.isNaN(until) ? Date.now() + 600_000 : until);
    return pairing;
  }

  /** The devices as the relay lists them now; the next seal reads the list again too, so both agree. */
  async devices(idOrName?: string): Promise<DeviceSummary[]> {
    const profile = this.provider(idOrName);
    const reply = await this.call(profile, "/v1/devices");
    if (!reply.ok) throw this.failed(reply);
    const settings = relaySettings(profile.settings);
    forgetDevices(settings.url, settings.installationId);
    const devices =
      (reply.body as { devices?: { device_id: string; device_name: string; push?: unknown }[] }).devices ?? [];
    return devices.map((device) => ({
      device_id: device.device_id,
      device_name: device.device_name,
      ...(typeof device.push === "boolean" ? { push: device.push } : {}),
    }));
  }

  /**
   * Leaves the relay (`notify relay unenroll`, issue 32 item 5): `DELETE /v1/installation` deletes the installation
   * and its phone pairings there, then the relay provider profile, its routes and the cached device keys go here.
   * A 401 means the relay no longer knows the token (deleted before, a lost reply): the local part still runs. Any
   * other failure changes nothing here, so the command can be run again.
   */
  async unenroll(idOrName?: string): Promise<Unenrolled> {
    const profile = this.provider(idOrName);
    const settings = relaySettings(profile.settings);
    const reply = await this.call(profile, "/v1/installation", "DELETE");
    if (!reply.ok && reply.status !== 401) throw this.failed(reply);
    const counts = reply.ok ? (reply.body as { deleted?: Unenrolled["deleted"] }).deleted : null;
    const routes = this.outbound
      .listRoutes()
      .filter((route) => route.providerId === profile.id)
      .map((route) => route.name);
    // The routes go with their provider (ON DELETE CASCADE).
    this.outbound.deleteProfile(profile.id);
    forgetDevices(settings.url, settings.installationId);
    return {
      url: settings.url,
      installation_id: settings.installationId,
      deleted: counts ?? null,
      provider: profile.name,
      routes,
    };
  }

  async revoke(deviceId: string, idOrName?: string): Promise<void> {
    const profile = this.provider(idOrName);
    const reply = await this.call(profile, `/v1/devices/${encodeURIComponent(deviceId)}`, "DELETE");
    if (!reply.ok) {
      if (reply.status === 404) throw new DomainError("device_not_found");
      throw this.failed(reply);
    }
    const settings = relaySettings(profile.settings);
    forgetDevices(settings.url, settings.installationId);
  }
}
