import { type ClientOptions, createClient, printJson } from "../../client/client.js";
import type { ProviderProfile } from "../../outbox/types.js";
import type { DeviceSummary, JoinCode, Machine, PairingCode, Unenrolled } from "../../relay/relay-admin.js";
import { wantsColour } from "../colour.js";
import { cell, formatTable } from "./list.js";

/**
 * `notify relay enroll|pair|devices|revoke|unenroll` (docs/relay.md, "Commands"; unenroll: issue 32, item 5): through
 * the broker's /ui/api/relay routes, which hold the installation token (sealed like every provider secret); the CLI
 * never sees it.
 */

export interface RelayEnrollOptions extends ClientOptions {
  url: string;
  enrollmentToken: string;
  name?: string | undefined;
  machine?: string | undefined;
  json?: boolean | undefined;
}

export interface RelayCommandOptions extends ClientOptions {
  provider?: string | undefined;
  json?: boolean | undefined;
}

const query = (options: RelayCommandOptions) => ({ provider: options.provider });

export async function relayEnroll(options: RelayEnrollOptions): Promise<void> {
  const profile = await createClient(options).request<ProviderProfile>("POST", "/ui/api/relay/enroll", {
    ui: true,
    body: { url: options.url, enrollmentToken: options.enrollmentToken, name: options.name, machine: options.machine },
    flags: { url: "the relay URL", enrollmentToken: "--enrollment-token", name: "--name", machine: "--machine" },
  });
  if (options.json) return printJson(profile);
  const name = cell(profile.name);
  process.stdout.write(
    `enrolled at ${cell(String(profile.settings.url))} as installation ${cell(String(profile.settings.installationId))}\n` +
      `provider ${name} and route ${name} are enabled; pair a phone with: notify relay pair\n`,
  );
}

export async function relayPair(options: RelayCommandOptions & { join?: boolean | undefined }): Promise<void> {
  if (options.join) return relayJoinCode(options);
  const pairing = await createClient(options).request<PairingCode>("POST", "/ui/api/relay/pairings", {
    ui: true,
    query: query(options),
  });
  if (options.json) return printJson(pairing);
  const { default: qrcode } = await import("qrcode");
  // In colour on a terminal (dark on a white box, whatever the terminal's theme); elsewhere plain block
  // characters, dark modules as `█` with a quiet zone of spaces, which read as the code on a light page.
  const qr = wantsColour(process.stdout)
    ? await qrcode.toString(pairing.link, { type: "terminal", small: true, errorCorrectionLevel: "M" })
    : await qrcode.toString(pairing.link, { type: "utf8", errorCorrectionLevel: "M", margin: 2 });
  // The link, code and expiry come from the relay: escaped like any text from the network (docs/cli.md).
  process.stdout.write(
    `${qr}\nScan with the phone's camera, or open ${cell(pairing.link)}\n` +
      `Code: ${cell(pairing.code)} (one use, until ${cell(pairing.expires_at)})\n`,
  );
}

export async function relayDevices(options: RelayCommandOptions): Promise<void> {
  const { devices } = await createClient(options).request<{ devices: DeviceSummary[] }>(
    "GET",
    "/ui/api/relay/devices",
    {
      ui: true,
      query: query(options),
    },
  );
  if (options.json) return printJson(devices);
  if (devices.length === 0) {
    process.stderr.write("notify: no paired devices (pair one with: notify relay pair)\n");
    return;
  }
  process.stdout.write(
    formatTable([["DEVICE", "NAME"], ...devices.map((device) => [device.device_id, device.device_name].map(cell))]),
  );
}

export async function relayRevoke(options: RelayCommandOptions & { deviceId: string }): Promise<void> {
  await createClient(options).request("DELETE", `/ui/api/relay/devices/${encodeURIComponent(options.deviceId)}`, {
    ui: true,
    query: query(options),
  });
  process.stdout.write(`revoked ${options.deviceId}\n`);
}

/** The words for what `notify relay unenroll` did (also printed by `notify uninstall`). */
export function unenrolledLines(result: Unenrolled): string[] {
  const at = `${cell(result.url)}: installation ${cell(result.installation_id)}`;
  const relayLine =
    result.deleted === null
      ? `unenrolled from ${at} was already unknown to the relay`
      : `unenrolled from ${at} and its ${result.deleted.devices} phone pairing(s) deleted at the relay`;
  const routes = result.routes.length === 0 ? "" : ` and route(s) ${result.routes.map(cell).join(", ")}`;
  return [relayLine, `removed relay provider ${cell(result.provider)}${routes}`];
}

export async function relayUnenroll(options: RelayCommandOptions): Promise<void> {
  const result = await createClient(options).request<Unenrolled>("POST", "/ui/api/relay/unenroll", {
    ui: true,
    query: query(options),
  });
  if (options.json) return printJson(result);
  for (const line of unenrolledLines(result)) process.stdout.write(`${line}\n`);
}

/**
 * `notify relay pair --join` (issue 37, item 2): a one-time code for another of this person's machines to join this
 * owner; prints the command to run there. `--json` prints `{code, url, expires_at, command}`.
 */
async function relayJoinCode(options: RelayCommandOptions): Promise<void> {
  const join = await createClient(options).request<JoinCode>("POST", "/ui/api/relay/joins", {
    ui: true,
    query: query(options),
  });
  if (options.json) return printJson(join);
  process.stdout.write(
    `On the other machine, run:\n  ${cell(join.command)}\nCode: ${cell(join.code)} (one use, until ${cell(join.expires_at)})\n`,
  );
}

/**
 * `notify relay join URL CODE [--name N] [--machine M]`: this machine joins the owner of the machine that made the
 * code; `--machine` names it on the phone's cards (default: the host name).
 */
export async function relayJoin(
  options: ClientOptions & {
    url: string;
    code: string;
    name?: string | undefined;
    machine?: string | undefined;
    json?: boolean | undefined;
  },
): Promise<void> {
  const profile = await createClient(options).request<ProviderProfile>("POST", "/ui/api/relay/join", {
    ui: true,
    body: {
      url: options.url,
      code: options.code,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.machine !== undefined ? { machine: options.machine } : {}),
    },
    flags: { machine: "--machine" },
  });
  if (options.json) return printJson(profile);
  process.stdout.write(
    `Joined: this machine's questions now reach the owner's phones (provider and route ${cell(profile.name)})\n`,
  );
}

/** `notify relay machines [--json]`: the owner's machines at the relay; `*` marks this one. */
export async function relayMachines(options: RelayCommandOptions): Promise<void> {
  const { machines } = await createClient(options).request<{ machines: Machine[] }>("GET", "/ui/api/relay/machines", {
    ui: true,
    query: query(options),
  });
  if (options.json) return printJson({ machines });
  process.stdout.write(
    formatTable([
      ["", "MACHINE", "INSTALLATION", "SINCE"],
      ...machines.map((machine) => [
        machine.this ? "*" : "",
        cell(machine.name ?? "-"),
        cell(machine.installation_id),
        cell(machine.created_at),
      ]),
    ]),
  );
}
