import { invalid } from "../../domain/errors.js";
import type { Priority } from "../../notifications/types.js";
import type { ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { readableParts } from "./readable-text.js";
import { httpUrl, onlyFields, optionalHttpUrl, optionalString, settingsObject } from "./settings.js";
import { truncateCodePoints } from "./text-limits.js";

export const PUSHOVER_API_URL = "https://api.pushover.net/1/messages.json";

/**
 * Pushover priorities run -2 to 2 (https://pushover.net/api#priority). `critical` is 1, not 2: emergency
 * priority needs `retry` and `expire` and repeats until someone acknowledges it, which is the owner's choice to
 * make in Pushover, not a broker default.
 */
const PRIORITY: Record<Priority, number> = { low: -1, normal: 0, high: 1, critical: 1 };

/** https://pushover.net/api#limits: message 1024 characters, title 250, url 512, url_title 100. */
const MESSAGE_MAX = 1024;
const TITLE_MAX = 250;
const URL_MAX = 512;

/**
 * Pushover (https://pushover.net/api): POST of form fields `token` (application API token), `user` (user or group
 * key), `message`, `title`, `priority`, `timestamp`, `url`, `device`. Pushover has no idempotency key.
 */
export const pushoverAdapter: ProviderAdapter = {
  kind: "pushover",
  secrets: { required: ["apiToken", "userKey"], optional: [] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "pushover");
    onlyFields(settings, ["apiUrl", "clickUrl", "device"], "pushover");
    const parsed: Record<string, unknown> = {
      apiUrl: settings.apiUrl === undefined ? PUSHOVER_API_URL : httpUrl(settings.apiUrl, "apiUrl"),
    };
    const clickUrl = optionalHttpUrl(settings.clickUrl, "clickUrl");
    if (clickUrl !== undefined) {
      if (clickUrl.length > URL_MAX) throw invalid(`clickUrl must be at most ${URL_MAX} characters`);
      parsed.clickUrl = clickUrl;
    }
    // Device names: up to 25 characters of letters, digits, `_` and `-`; several joined by commas.
    const device = optionalString(settings.device, "device", 200);
    if (device !== undefined) {
      if (!/^[A-Za-z0-9_-]{1,25}(,[A-Za-z0-9_-]{1,25})*$/.test(device)) {
        throw invalid("device must be device names (letters, digits, _ and -) joined by commas");
      }
      parsed.device = device;
    }
    return parsed;
  },
  async send(payload, settings, secrets, context) {
    const readable = readableParts(payload);
    const title = truncateCodePoints(readable.title, TITLE_MAX);
    const form = new URLSearchParams({ token: secrets.apiToken ?? "", user: secrets.userKey ?? "" });
    const message = readable.message;
    if (message === undefined) {
      // `message` is required: the title is the message and no title is sent (docs/outbound.md, "Delivery rules", rule
      // 3).
      form.set("message", title);
    } else {
      form.set("title", title);
      form.set("message", truncateCodePoints(message, MESSAGE_MAX));
    }
    form.set("priority", String(PRIORITY[payload.priority]));
    const createdMs = Date.parse(payload.createdAt);
    if (Number.isFinite(createdMs)) form.set("timestamp", String(Math.floor(createdMs / 1000)));
    if (settings.clickUrl !== undefined) form.set("url", settings.clickUrl as string);
    if (settings.device !== undefined) form.set("device", settings.device as string);
    return sendHttp({
      url: settings.apiUrl as string,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      signal: context.signal,
    });
  },
};
