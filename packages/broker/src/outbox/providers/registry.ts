import { surfaceAdapters } from "../../surfaces/registry.js";
import type { ProviderAdapter } from "../types.js";
import { discordAdapter } from "./discord.js";
import { emailAdapter } from "./email.js";
import { gotifyAdapter } from "./gotify.js";
import { ntfyAdapter } from "./ntfy.js";
import { pushoverAdapter } from "./pushover.js";
import { slackAdapter } from "./slack.js";
import { webhookAdapter } from "./webhook.js";

/** The order `/ui/api/outbound/kinds` has listed since before the surfaces registry; a new kind comes after them. */
const LISTED = ["webhook", "ntfy", "gotify", "pushover", "slack", "slack_app", "discord", "telegram", "email", "relay"];

function ordered(adapters: ProviderAdapter[]): ProviderAdapter[] {
  const rank = (kind: string): number => {
    const index = LISTED.indexOf(kind);
    return index === -1 ? LISTED.length : index;
  };
  return adapters
    .map((adapter, index) => ({ adapter, index }))
    .sort((a, b) => rank(a.adapter.kind) - rank(b.adapter.kind) || a.index - b.index)
    .map(({ adapter }) => adapter);
}

/**
 * Every outbound provider kind, by kind (docs/outbound.md): the kinds that only send, then the answer surfaces'
 * (surfaces/registry.ts), whose questions carry buttons once broker.ts gives them the chat hooks.
 */
export const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map(
  ordered([
    webhookAdapter,
    ntfyAdapter,
    gotifyAdapter,
    pushoverAdapter,
    slackAdapter,
    discordAdapter,
    emailAdapter,
    ...surfaceAdapters(undefined),
  ]).map((adapter) => [adapter.kind, adapter]),
);
