import { relayAdapter } from "../../relay/relay-adapter.js";
import type { ProviderAdapter } from "../types.js";
import { discordAdapter } from "./discord.js";
import { emailAdapter } from "./email.js";
import { gotifyAdapter } from "./gotify.js";
import { ntfyAdapter } from "./ntfy.js";
import { pushoverAdapter } from "./pushover.js";
import { slackAdapter } from "./slack.js";
import { slackAppAdapter } from "./slack-app.js";
import { telegramAdapter } from "./telegram.js";
import { webhookAdapter } from "./webhook.js";

/** Every outbound provider kind, by kind (docs/outbound.md). */
export const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map(
  [
    webhookAdapter,
    ntfyAdapter,
    gotifyAdapter,
    pushoverAdapter,
    slackAdapter,
    slackAppAdapter,
    discordAdapter,
    telegramAdapter,
    emailAdapter,
    relayAdapter,
  ].map((adapter) => [adapter.kind, adapter]),
);
