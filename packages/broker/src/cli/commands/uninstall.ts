import { existsSync, rmSync } from "node:fs";
import { brokerTarget, type ClientOptions, createClient, HttpFailure } from "../../client/client.js";
import { installStatus, uninstall as uninstallHooks } from "../../hooks/install/installer.js";
import { mcpStatus, uninstallMcp } from "../../mcp/install.js";
import type { Unenrolled } from "../../relay/relay-admin.js";
import { installContext, runFileChange } from "../agent-files.js";
import { ExitError } from "../exit-error.js";
import { cell } from "./list.js";
import { unenrolledLines } from "./relay.js";
import { serviceUninstall } from "./service.js";

export interface UninstallOptions extends ClientOptions {
  purge?: boolean;
}

interface RelayProfile {
  id: string;
  name: string;
  kind: string;
  settings: { url?: unknown; installationId?: unknown };
}

/**
 * Unenrolls every relay provider the running broker holds (before the service stops it: only the broker can open
 * the installation tokens). Returns the lines to print as removed and as left, and whether a known installation is
 * still at a relay.
 */
async function leaveRelays(options: ClientOptions): Promise<{ removed: string[]; left: string[]; failed: boolean }> {
  const client = createClient(options);
  let relays: RelayProfile[];
  try {
    const profiles = await client.request<RelayProfile[]>("GET", "/ui/api/outbound/providers", {
      ui: true,
      timeoutMs: 5_000,
    });
    relays = profiles.filter((profile) => profile.kind === "relay");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      removed: [],
      left: [
        `a relay enrollment, if there is one (${cell(why)}): start the broker and run notify relay unenroll; with --purge its token is gone`,
      ],
      failed: false,
    };
  }
  const removed: string[] = [];
  const left: string[] = [];
  for (const relay of relays) {
    try {
      const result = await client.request<Unenrolled>("POST", "/ui/api/relay/unenroll", {
        ui: true,
        query: { provider: relay.id },
      });
      removed.push(...unenrolledLines(result));
    } catch (error) {
      const why = error instanceof HttpFailure ? error.serverMessage : error instanceof Error ? error.message : "";
      left.push(
        `the relay at ${cell(String(relay.settings.url))} still holds installation ${cell(String(relay.settings.installationId))} and its phone pairings (${cell(why)}); run notify relay unenroll before --purge, or ask the relay's operator`,
      );
    }
  }
  return { removed, left, failed: left.length > 0 };
}

/**
 * `notify uninstall [--purge]` (issue 32, item 5): what Notify wrote outside its data dir, in the order that keeps
 * every restore possible: the agents' hooks and MCP entries first (their records and backups are in the data dir;
 * restoring leaves the agents' files byte for byte as before), then the relay enrollment (`notify relay unenroll`,
 * through the broker, which alone opens the installation token), then the service (which stops the broker), then
 * with --purge the data dir. Prints each thing removed, then what is left. A relay that refuses or cannot be reached
 * does not stop the rest (the person asked for all of it): its installation is named in the left lines and the
 * exit status is 1, so a script sees that something asked for was not done (docs/install.md).
 */
export async function uninstall(options: UninstallOptions): Promise<void> {
  const context = installContext(options);
  const { dataDir } = brokerTarget(options);
  for (const row of installStatus({}).filter((status) => status.events === null || status.events.length > 0)) {
    const result = runFileChange(() => uninstallHooks(row.agent, row.scope, context));
    process.stdout.write(`removed hooks: ${row.agent} (${row.scope}) ${result.target.file}: ${result.summary}\n`);
  }
  for (const row of mcpStatus().filter((status) => status.installed !== false)) {
    const result = runFileChange(() => uninstallMcp(row.agent, row.scope, context));
    process.stdout.write(`removed mcp: ${row.agent} (${row.scope}) ${result.target.file}: ${result.summary}\n`);
  }
  const relays = await leaveRelays(options);
  for (const line of relays.removed) process.stdout.write(`removed: ${line}\n`);
  await serviceUninstall(options);
  const left: string[] = [...relays.left];
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
  if (relays.failed) throw new ExitError(1, "the relay installation is still there (see the left lines)");
}
