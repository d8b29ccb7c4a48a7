import { realpathSync } from "node:fs";
import { sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The words an agent's file runs to reach this CLI, and why they may break later (printed at install). */
export interface StableCommand {
  program: string[];
  /** Set when the command names this checkout's files: moving or deleting the checkout breaks it. */
  warning?: string;
}

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
/** Where an installed Notify's files are, wherever its prefix is: `npm install -g` puts them under this. */
const INSTALLED_PACKAGE = `${sep}node_modules${sep}@notify${sep}broker${sep}`;

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * What hooks, MCP entries and the service unit run: the absolute runtime (process.execPath: the Node the package
 * pins when started through its launcher) and the real path of this CLI file, so they start alike under systemd's
 * default PATH, a desktop launcher's or an nvm shell's, where `#!/usr/bin/env node` finds another Node or none
 * (issue 32, item 3). Outside an installed package (a checkout) a warning says that moving it breaks them.
 */
export function stableCommand(): StableCommand {
  const node = realpath(process.execPath) ?? process.execPath;
  const main = realpath(MAIN) ?? MAIN;
  if (main.includes(INSTALLED_PACKAGE)) return { program: [node, main] };
  return {
    program: [node, main],
    warning:
      `this is a checkout, not an installed Notify, so the agent runs ${main} with ${node}: moving or deleting ` +
      "them breaks it. Install Notify (README, Install) and run this command again from it to repair it.",
  };
}
