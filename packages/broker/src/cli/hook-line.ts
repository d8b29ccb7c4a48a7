import { type HookOptions, hook } from "./commands/hook.js";
import { reportFailure } from "./exit-status.js";

/** The options of `notify hook` (program.ts), each taking a value, and the HookOptions field commander names it. */
const VALUE_OPTIONS: Record<string, "ttl" | "port" | "dataDir" | "token"> = {
  "--ttl": "ttl",
  "--port": "port",
  "--data-dir": "dataDir",
  "--token": "token",
};

/**
 * Reads `<agent> <event> [payload]` and the hook's options the way commander does for the command lines agents
 * write (docs/hooks.md), or returns undefined for anything else (`--help`, an unknown or valueless option, a value
 * that starts with a dash, a missing or extra argument), which commander then handles with its own words.
 */
export function parseHookLine(args: string[]): HookOptions | undefined {
  const positional: string[] = [];
  const options: Partial<Pick<HookOptions, "ttl" | "port" | "dataDir" | "token">> = {};
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (!arg.startsWith("-")) {
      positional.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = equals > 0 ? arg.slice(0, equals) : arg;
    const field = Object.hasOwn(VALUE_OPTIONS, name) ? VALUE_OPTIONS[name] : undefined;
    if (field === undefined) return undefined;
    const value = equals > 0 ? arg.slice(equals + 1) : args[++index];
    if (value === undefined || (equals < 0 && value.startsWith("-"))) return undefined;
    options[field] = value;
  }
  const [agent, event, payload] = positional;
  if (agent === undefined || event === undefined || positional.length > 3) return undefined;
  return { ...options, agent, event, payload };
}

/**
 * `notify hook ...` without commander: the exit status, or undefined when the line is one for commander. main.ts
 * runs this from the bundle scripts/bundle.mjs makes of it, one file with no schemas, commander or server code.
 */
export function runHookLine(args: string[]): Promise<number> | undefined {
  const options = parseHookLine(args);
  if (options === undefined) return undefined;
  return hook(options).then(() => 0, reportFailure);
}
