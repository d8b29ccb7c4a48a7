import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout (or package) this CLI runs from: packages/broker/dist/mcp -> the repository root. */
const CHECKOUT = fileURLToPath(new URL("../../../../", import.meta.url));
const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/**
 * The words that start Notify's CLI in a command written into an agent's files (DESIGN.md: the installed `notify`
 * when there is one on PATH, else this checkout's absolute path). A `notify` on PATH that lives inside this very
 * checkout (its node_modules/.bin link, on PATH under npm scripts) does not count: its `#!/usr/bin/env node` would
 * pick whatever node the agent finds, not the pinned one. The checkout form names this Node binary and the CLI file,
 * so it keeps working whatever node is on the agent's PATH (and breaks when the checkout moves).
 */
export function stableCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "notify");
    try {
      accessSync(candidate, constants.X_OK);
      const real = realpathSync(candidate);
      if (!real.startsWith(CHECKOUT.endsWith(sep) ? CHECKOUT : `${CHECKOUT}${sep}`)) return [candidate];
    } catch {
      // Not there, or not executable: the next directory.
    }
  }
  return [process.execPath, MAIN];
}
