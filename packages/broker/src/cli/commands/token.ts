import { nonEmpty, readConfigOrExit } from "../../client/client.js";
import { configPath } from "../../config/config-file.js";
import { resolveDataDir } from "../../config/paths.js";
import { ExitError } from "../exit-error.js";

export interface TokenOptions {
  dataDir?: string | undefined;
}

/**
 * `notify token`: the raw `authToken` from config.json. docs/desktop.md, "Local presentation rules", rule 9: no
 * environment override, so NOTIFY_TOKEN never changes what this prints.
 */
export async function token(options: TokenOptions): Promise<void> {
  const dataDir = resolveDataDir(options.dataDir);
  const value = nonEmpty(readConfigOrExit(dataDir).authToken);
  if (value === undefined) {
    // docs/config.md, "Token": until the broker has run once, no token exists.
    throw new ExitError(1, `no token in ${configPath(dataDir)} yet: run \`notify serve\` once to create it`);
  }
  process.stdout.write(`${value}\n`);
}
