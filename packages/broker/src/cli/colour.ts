/**
 * Whether a command may write ANSI colour codes to `stream`: never into a file or a pipe, never when the person
 * asked for none. FORCE_COLOR (any value but `0` or `false`) turns colour on anyway, as Node's own tty module
 * reads it; otherwise NO_COLOR (any non-empty value, https://no-color.org) turns it off; otherwise colour follows
 * whether the stream is a terminal.
 */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "0" && force.toLowerCase() !== "false") return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}
