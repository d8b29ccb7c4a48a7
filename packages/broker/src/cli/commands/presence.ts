import type { PresenceResponse } from "@notify/contracts";
import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, printJson } from "../../client/client.js";

export interface PresenceOptions extends ClientOptions {
  json?: boolean | undefined;
}

/**
 * `notify presence`: GET /ui/api/presence (docs/routing.md, "Presence"): the state, since when, and each source's
 * reading. Data on stdout; an unreachable broker is a message on stderr and exit 1.
 */
export async function presence(options: PresenceOptions, now: () => number = Date.now): Promise<void> {
  const answer = await createClient(options).request<PresenceResponse>("GET", "/ui/api/presence", { ui: true });
  if (options.json) {
    printJson(answer);
    return;
  }
  process.stdout.write(formatPresence(answer, now()));
}

export function formatPresence(answer: PresenceResponse, now: number): string {
  const since = Date.parse(answer.since);
  const lines = [`${terminalText(answer.state)} since ${terminalText(answer.since)} (${formatAgo(now - since)})`];
  // A source's detail can carry what a device reported (a phone's name): escaped (docs/cli.md).
  const sources = answer.sources.map((source) => ({
    name: terminalText(source.name),
    state: terminalText(source.state),
    detail: terminalText(source.detail),
  }));
  const width = Math.max(0, ...sources.map((source) => source.name.length)) + 2;
  const stateWidth = "unknown".length + 2;
  for (const source of sources) {
    lines.push(`  ${source.name.padEnd(width)}${source.state.padEnd(stateWidth)}${source.detail}`);
  }
  return `${lines.join("\n")}\n`;
}

function formatAgo(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min ago`;
}
