import type { Priority } from "../../notifications/types.js";
import type { ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { readableParts } from "./readable-text.js";
import { onlyFields, optionalBoolean, secretHttpUrl, settingsObject } from "./settings.js";
import { truncate } from "./text-limits.js";

/** Embed colours by priority: grey, blue, orange, red. */
const COLOR: Record<Priority, number> = { low: 0x95a5a6, normal: 0x3498db, high: 0xe67e22, critical: 0xe74c3c };

/**
 * Embed limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits): title 256
 * characters, description 4096, 6000 for the whole embed (256 + 4096 stays under it).
 */
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4096;

/**
 * Discord webhook (https://discord.com/developers/docs/resources/webhook#execute-webhook): POST of JSON
 * `{embeds: [{title, description, color, timestamp}], allowed_mentions: {parse: []}}` to the webhook URL, which is
 * the `webhookUrl` secret. `allowed_mentions` with an empty `parse` keeps an agent's text from pinging @everyone
 * or a role. `wait: true` adds `?wait=true` (Discord answers 200 with the message instead of 204). A 429's
 * `retry_after` (seconds, in the JSON body) is honoured, as is `Retry-After`. Discord has no idempotency key.
 */
export const discordAdapter: ProviderAdapter = {
  kind: "discord",
  secrets: { required: ["webhookUrl"], optional: [] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "discord");
    onlyFields(settings, ["wait"], "discord");
    const wait = optionalBoolean(settings.wait, "wait");
    return wait === undefined ? {} : { wait };
  },
  async send(payload, settings, secrets, context) {
    const url = secretHttpUrl(secrets.webhookUrl);
    if (!url) return { ok: false, retryable: false, code: "provider_secret_invalid" };
    if (settings.wait === true) url.searchParams.set("wait", "true");
    const { title, message } = readableParts(payload);
    const embed: Record<string, unknown> = { title: truncate(title, TITLE_MAX) };
    // docs/outbound.md, "Delivery rules", rule 3: without a message the embed has a title and no description.
    if (message !== undefined) embed.description = truncate(message, DESCRIPTION_MAX);
    embed.color = COLOR[payload.priority];
    if (Number.isFinite(Date.parse(payload.createdAt))) embed.timestamp = payload.createdAt;
    return sendHttp({
      url: url.toString(),
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ embeds: [embed], allowed_mentions: { parse: [] } }),
      signal: context.signal,
      retryAfterFromBody: (body) => secondsToMs((body as { retry_after?: unknown } | null)?.retry_after),
    });
  },
};

function secondsToMs(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.ceil(value * 1000) : undefined;
}
