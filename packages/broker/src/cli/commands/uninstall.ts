import { existsSync, rmSync } from "node:fs";
import { installStatus, uninstall as uninstallHooks } from "../../hooks/install/installer.js";
import { mcpStatus, uninstallMcp } from "../../mcp/install.js";
import { installContext, runFileChange } from "../agent-files.js";
import { brokerTarget, type ClientOptions, createClient } from "../client.js";
import { serviceUninstall } from "./service.js";

export interface UninstallOptions extends ClientOptions {
  purge?: boolean;
}

/** Whether the running broker is enrolled at a relay, and how many phones are paired there (before it stops). */
async function relayEnrollment(options: ClientOptions): Promise<number | undefined> {
  try {
    const body = await createClient(options).request<{ devices?: unknown[] }>("GET", "/ui/api/relay/devices", {
      ui: true,
      timeoutMs: 5_000,
    });
    return body.devices?.length ?? 0;
  } catch {
    return undefined;
  }
}

/**
 * `notify uninstall [--purge]` (issue 32, item 5): what Notify wrote outside its data dir, in the order that keeps
 * every restore possible: the agents' hooks and MCP entries first (their records and backups are in the data dir;
 * restoring leaves the agents' files byte for byte as before), then the service (which stops the broker), then with
 * --purge the data dir. Prints each thing removed, then what is left.
 */
export async function uninstall(options: UninstallOptions): Promise<void> {
  const context = installContext(options);
  const { dataDir } = brokerTarget(options);
  const relayDevices = await relayEnrollment(options);
  for (const row of installStatus({}).filter((status) => status.events === null || status.events.length > 0)) {
    const result = runFileChange(() => uninstallHooks(row.agent, row.scope, context));
    process.stdout.write(`removed hooks: ${row.agent} (${row.scope}) ${result.target.file}: ${result.summary}\n`);
  }
  for (const row of mcpStatus().filter((status) => status.installed !== false)) {
    const result = runFileChange(() => uninstallMcp(row.agent, row.scope, context));
    process.stdout.write(`removed mcp: ${row.agent} (${row.scope}) ${result.target.file}: ${result.summary}\n`);
  }
  await serviceUninstall(options);
  const left: string[] = [];
  if (relayDevices !== undefined) {
    // No relay route deletes an installation yet (issue 32, item 5, not done): say so rather than pretend.
    left.push(
      `the relay still holds this installation and ${relayDevices} phone pairing(s); revoke them first with notify relay revoke`,
    );
  }
  if (options.purge) {
    if (existsSync(dataDir)) {
      rmSync(dataDir, { recursive: true, force: true });
      process.stdout.write(`removed data dir: ${dataDir}\n`);
    }
  } else if (existsSync(dataDir)) {
    left.push(`the data dir ${dataDir} (token, databases, backups of the agents' files): notify uninstall --purge`);
  }
  left.push("the npm package: npm uninstall -g @notify/broker @notify/relay (last)");
  for (const line of left) process.stdout.write(`left: ${line}\n`);
}
