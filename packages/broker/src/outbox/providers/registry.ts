import { surfaceAdapters } from "../../surfaces/registry.js";
import type { ProviderAdapter } from "../types.js";
import { discordAdapter } from "./discord.js";
import { emailAdapter } from "./email.js";
import { gotifyAdapter } from "./gotify.js";
import { ntfyAdapter } from "./ntfy.js";
import { pushoverAdapter } from "./pushover.js";
import { slackAdapter } from "./slack.js";
import { webhookAdapter } from "./webhook.js";

/**
 * Every outbound provider kind, by kind (docs/outbound.md): the kinds that only send, then the answer surfaces'
 * (surfaces/registry.ts), whose questions carry buttons once broker.ts gives them the chat hooks.
 */
export const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map(
  [
    webhookAdapter,
    ntfyAdapter,
    gotifyAdapter,
    pushoverAdapter,
    slackAdapter,
    discordAdapter,
    emailAdapter,
    ...surfaceAdapters(undefined),
  ].map((adapter) => [adapter.kind, adapter]),
);
