import { invalid } from "../../domain/errors.js";
import type { Priority } from "../../notifications/types.js";
import type { ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { readableParts } from "./readable-text.js";
import {
  headerSafe,
  httpUrl,
  onlyFields,
  optionalHttpUrl,
  optionalStringList,
  requiredString,
  settingsObject,
} from "./settings.js";
import { truncate, truncateUtf8 } from "./text-limits.js";

/** ntfy's 1 (min) to 5 (max); 1 is left unused so that `low` still shows in the drawer. */
const PRIORITY: Record<Priority, number> = { low: 2, normal: 3, high: 4, critical: 5 };

/** ntfy's default `message-size-limit` is 4096 bytes; a longer message becomes an attachment or is refused. */
const MESSAGE_MAX_BYTES = 4096;
/** ntfy documents no title limit; the broker's own title limit (docs/api.md, "Limits") keeps it bounded. */
const TITLE_MAX = 200;

/**
 * ntfy (https://docs.ntfy.sh/publish/#publish-as-json): POST of the whole message as JSON to the server's root
 * URL, not the topic URL. The optional `token` secret is an access token sent as `Authorization: Bearer`.
 *
 * ntfy documents no idempotency key, so a repeat after a lost response shows twice.
 */
export const ntfyAdapter: ProviderAdapter = {
  kind: "ntfy",
  secrets: { required: [], optional: ["token"] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "ntfy");
    onlyFields(settings, ["serverUrl", "topic", "tags", "clickUrl"], "ntfy");
    const topic = requiredString(settings.topic, "topic", 64);
    // ntfy topic names: letters, digits, `_` and `-`, up to 64 characters.
    if (!/^[A-Za-z0-9_-]+$/.test(topic)) throw invalid("topic must be letters, digits, _ and - only");
    const parsed: Record<string, unknown> = { serverUrl: rootUrl(httpUrl(settings.serverUrl, "serverUrl")), topic };
    const tags = optionalStringList(settings.tags, "tags", 10, 64, /[\r\n,]/);
    if (tags !== undefined) parsed.tags = tags;
    const clickUrl = optionalHttpUrl(settings.clickUrl, "clickUrl");
    if (clickUrl !== undefined) parsed.clickUrl = clickUrl;
    return parsed;
  },
  async send(payload, settings, secrets, context) {
    if (secrets.token !== undefined && !headerSafe(secrets.token)) {
      return { ok: false, retryable: false, code: "provider_secret_invalid" };
    }
    const readable = readableParts(payload);
    const title = truncate(readable.title, TITLE_MAX);
    const body: Record<string, unknown> = { topic: settings.topic };
    const message = readable.message;
    if (message === undefined) {
      // Without a message ntfy would show "triggered" as the body; the title is the body instead (docs/outbound.md,
      // "Delivery rules", rule 3: only the title leaves the machine).
      body.message = title;
    } else {
      body.title = title;
      body.message = truncateUtf8(message, MESSAGE_MAX_BYTES);
    }
    body.priority = PRIORITY[payload.priority];
    if (settings.tags !== undefined) body.tags = settings.tags;
    if (settings.clickUrl !== undefined) body.click = settings.clickUrl;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (secrets.token) headers.authorization = `Bearer ${secrets.token}`;
    return sendHttp({
      url: settings.serverUrl as string,
      headers,
      body: JSON.stringify(body),
      signal: context.signal,
    });
  },
};

/** The server's root URL: the URL as given, with a trailing slash (a path prefix behind a proxy is kept). */
function rootUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  return url.toString();
}
