import type { ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { readableParts } from "./readable-text.js";
import { onlyFields, secretHttpUrl, settingsObject } from "./settings.js";
import { truncate } from "./text-limits.js";

/**
 * Block Kit limits (https://api.slack.com/reference/block-kit/blocks): a header's text 150 characters, a
 * section's text 3000. Top-level `text` is cut to 3000 before escaping, well under Slack's 40,000.
 */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const TEXT_MAX = 3000;

/**
 * Slack incoming webhook (https://api.slack.com/messaging/webhooks): POST of JSON `{text, blocks?}` to the
 * webhook URL, which is itself the credential, so it is the `webhookUrl` secret and never a setting. `text` is the
 * notification fallback and is mrkdwn, so `&`, `<` and `>` are escaped
 * (https://api.slack.com/reference/surfaces/formatting#escaping); the blocks use plain_text, which Slack does not
 * parse. Slack has no idempotency key.
 */
export const slackAdapter: ProviderAdapter = {
  kind: "slack",
  secrets: { required: ["webhookUrl"], optional: [] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "slack");
    onlyFields(settings, [], "slack");
    return {};
  },
  async send(payload, _settings, secrets, context) {
    const url = secretHttpUrl(secrets.webhookUrl);
    if (!url) return { ok: false, retryable: false, code: "provider_secret_invalid" };
    const { title, message } = readableParts(payload);
    let body: Record<string, unknown>;
    if (message === undefined) {
      // docs/outbound.md, "Delivery rules", rule 3: the title alone.
      body = { text: escapeMrkdwn(truncate(title, TEXT_MAX)) };
    } else {
      body = {
        text: escapeMrkdwn(truncate(`${title}\n${message}`, TEXT_MAX)),
        blocks: [
          { type: "header", text: { type: "plain_text", text: truncate(title, HEADER_MAX) } },
          { type: "section", text: { type: "plain_text", text: truncate(message, SECTION_MAX) } },
        ],
      };
    }
    return sendHttp({
      url: url.toString(),
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: context.signal,
    });
  },
};

function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
