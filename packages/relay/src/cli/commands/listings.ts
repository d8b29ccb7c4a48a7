import { terminalJson, terminalText } from "@notify/contracts/text";
import { resolveSettings, type SettingsFlags } from "../../config/settings.js";
import { isoTime } from "../../domain/clock.js";
import { openStore } from "../../store/open.js";
import type { RelayStore } from "../../store/types.js";

type ListFlags = SettingsFlags & { json?: boolean };

async function withStore<T>(flags: ListFlags, work: (store: RelayStore) => Promise<T>): Promise<T> {
  const store = await openStore(resolveSettings(flags));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Every cell escaped (names come from the network), then padded to its column. */
function table(cells: string[][]): string {
  const rows = cells.map((row) => row.map((cell) => terminalText(cell)));
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** `notify-relay installations`: what enrolled, with its owner and how many active devices it reaches. */
export async function installations(flags: ListFlags): Promise<void> {
  const list = await withStore(flags, (store) => store.read((tx) => tx.listInstallations()));
  if (flags.json) {
    const rows = list.map((item) => ({
      installation_id: item.id,
      owner_id: item.ownerId,
      name: item.name,
      devices: item.devices,
      created_at: isoTime(item.createdAt),
    }));
    process.stdout.write(`${terminalJson(rows)}\n`);
    return;
  }
  const rows = [["INSTALLATION", "OWNER", "NAME", "DEVICES", "CREATED"]];
  for (const item of list) {
    rows.push([item.id, item.ownerId, item.name ?? "-", String(item.devices), isoTime(item.createdAt)]);
  }
  process.stdout.write(`${table(rows)}\n`);
}

/** `notify-relay devices`: every device, revoked ones too; never a token or a push endpoint. */
export async function devices(flags: ListFlags): Promise<void> {
  const list = await withStore(flags, (store) => store.read((tx) => tx.listDevices()));
  if (flags.json) {
    const rows = list.map((device) => ({
      device_id: device.id,
      device_name: device.name,
      owner_id: device.ownerId,
      installation_id: device.directInstallationId,
      push: device.pushSubscription !== null,
      created_at: isoTime(device.createdAt),
      revoked_at: device.revokedAt === null ? null : isoTime(device.revokedAt),
    }));
    process.stdout.write(`${terminalJson(rows)}\n`);
    return;
  }
  const rows = [["DEVICE", "NAME", "OWNER", "PUSH", "CREATED", "REVOKED"]];
  for (const device of list) {
    rows.push([
      device.id,
      device.name,
      device.ownerId ?? `direct:${device.directInstallationId}`,
      device.pushSubscription ? "yes" : "no",
      isoTime(device.createdAt),
      device.revokedAt === null ? "-" : isoTime(device.revokedAt),
    ]);
  }
  process.stdout.write(`${table(rows)}\n`);
}
