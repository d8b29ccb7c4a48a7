import type { Priority } from "../../notifications/types.js";
import type { ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { readableParts } from "./readable-text.js";
import { headerSafe, httpUrl, joinUrl, onlyFields, optionalHttpUrl, settingsObject } from "./settings.js";
import { truncate } from "./text-limits.js";

/**
 * Gotify priorities run 0-10; the Android client stays silent below 4 and pops up from 8
 * (https://gotify.net/docs/msgextras and the Android client's notification channels).
 */
const PRIORITY: Record<Priority, number> = { low: 2, normal: 5, high: 8, critical: 10 };

/** Gotify documents no length limits; the broker's own limits (docs/api.md, "Limits") keep the body bounded. */
const TITLE_MAX = 200;
const MESSAGE_MAX = 4000;

/**
 * Gotify (https://gotify.net/api-docs, POST /message): JSON `{title, message, priority, extras?}` with the
 * application token in the `X-Gotify-Key` header, not the `?token=` query, so it stays out of access logs. A
 * `clickUrl` becomes the `client::notification` click extra (https://gotify.net/docs/msgextras). Gotify has no
 * idempotency key.
 */
export const gotifyAdapter: ProviderAdapter = {
  kind: "gotify",
  secrets: { required: ["appToken"], optional: [] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "gotify");
    onlyFields(settings, ["serverUrl", "clickUrl"], "gotify");
    const parsed: Record<string, unknown> = { serverUrl: httpUrl(settings.serverUrl, "serverUrl") };
    const clickUrl = optionalHttpUrl(settings.clickUrl, "clickUrl");
    if (clickUrl !== undefined) parsed.clickUrl = clickUrl;
    return parsed;
  },
  async send(payload, settings, secrets, context) {
    const appToken = secrets.appToken ?? "";
    if (!headerSafe(appToken)) return { ok: false, retryable: false, code: "provider_secret_invalid" };
    const readable = readableParts(payload);
    const title = truncate(readable.title, TITLE_MAX);
    // `message` is required by Gotify: without one the title is the message and no title is sent (docs/outbound.md,
    // "Delivery rules", rule 3: only the title leaves the machine).
    const message = readable.message;
    const body: Record<string, unknown> =
      message === undefined ? { message: title } : { title, message: truncate(message, MESSAGE_MAX) };
    body.priority = PRIORITY[payload.priority];
    if (settings.clickUrl !== undefined) {
      body.extras = { "client::notification": { click: { url: settings.clickUrl } } };
    }
    return sendHttp({
      url: joinUrl(settings.serverUrl as string, "message"),
      headers: { "content-type": "application/json", "x-gotify-key": appToken },
      body: JSON.stringify(body),
      signal: context.signal,
    });
  },
};
