import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The words an agent's file runs to reach this CLI, and why they may break later (printed at install). */
export interface StableCommand {
  program: string[];
  /** Set when the command names this checkout's files: moving or deleting the checkout breaks it. */
  warning?: string;
}

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
/** The package's own `notify` shim (bin/notify.js), what an install's bin link points at. */
const OWN_BIN = fileURLToPath(new URL("../../bin/notify.js", import.meta.url));
/** An installed Notify's bin link resolves into a package of this name, wherever its prefix is. */
const INSTALLED_BIN_TAIL = `${sep}@notify${sep}broker${sep}bin${sep}notify.js`;

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The `notify` on PATH that is a Notify install (a global npm install's bin link, or this very package's shim),
 * as the absolute path of the PATH entry, so an upgrade in place keeps it working. A node_modules/.bin entry is
 * passed over: `npm start` and `npx` put one on PATH that the agent's own shell does not have.
 */
export function installedNotify(path: string | undefined = process.env.PATH): string | undefined {
  const own = realpath(OWN_BIN);
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir) || dir.split(sep).includes("node_modules")) continue;
    const candidate = join(dir, "notify");
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const target = realpath(candidate);
    if (target !== undefined && (target === own || target.endsWith(INSTALLED_BIN_TAIL))) return candidate;
  }
  return undefined;
}

/**
 * What hooks (and the MCP entry) write into an agent's files: the installed `notify` when there is one on PATH,
 * else this node and this checkout's CLI file, with a warning that moving the checkout breaks it (issue 22).
 */
export function stableCommand(path: string | undefined = process.env.PATH): StableCommand {
  const installed = installedNotify(path);
  if (installed !== undefined) return { program: [installed] };
  return {
    program: [process.execPath, MAIN],
    warning:
      `no installed \`notify\` on PATH, so the agent runs ${MAIN} with ${process.execPath}: moving or deleting ` +
      "them breaks it. Install Notify (README, Install) and run this command again to repair it.",
  };
}
