import { readFileSync } from "node:fs";

/**
 * The soft open-files limit of this process (Linux, /proc/self/limits): what bounds the connections one server can
 * hold. Infinity when it is unlimited; undefined elsewhere or when it cannot be read. Node raises its soft limit to
 * the hard one at start, so this is what the process really has. The broker and the relay size their connection
 * caps from it.
 */
export function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    if (!line?.[1]) return undefined;
    return line[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(line[1]);
  } catch {
    return undefined;
  }
}
