import { createHmac } from "node:crypto";
import { invalid } from "../../domain/errors.js";
import type { ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { httpUrl, onlyFields, settingsObject } from "./settings.js";

/**
 * Generic webhook (docs/outbound.md): POST of `{event, deliveryId, notification}` as JSON, an `Idempotency-Key`
 * header stable per outbox item, and when the `signingSecret` secret is set, `X-Notify-Signature:
 * sha256=<hex HMAC-SHA256 of the exact body bytes>` (the GitHub convention, so receivers have code for it).
 */
export const webhookAdapter: ProviderAdapter = {
  kind: "webhook",
  secrets: { required: [], optional: ["signingSecret"] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "webhook");
    onlyFields(settings, ["url", "headers"], "webhook");
    const parsed: Record<string, unknown> = { url: httpUrl(settings.url, "url") };
    if (settings.headers !== undefined) {
      const headers = settings.headers;
      if (headers === null || typeof headers !== "object" || Array.isArray(headers)) {
        throw invalid("headers must be an object of header names to string values");
      }
      for (const [name, value] of Object.entries(headers)) {
        if (!/^[A-Za-z0-9-]{1,64}$/.test(name) || typeof value !== "string" || /[\r\n]/.test(value)) {
          throw invalid(`header ${name} is not a valid header name and value`);
        }
        if (["authorization", "idempotency-key", "x-notify-signature", "content-type"].includes(name.toLowerCase())) {
          throw invalid(`header ${name} is set by the adapter (put credentials in secrets)`);
        }
      }
      parsed.headers = headers;
    }
    return parsed;
  },
  async send(payload, settings, secrets, context) {
    const body = JSON.stringify({ event: "notification", deliveryId: context.idempotencyKey, notification: payload });
    const headers: Record<string, string> = {
      ...((settings.headers as Record<string, string> | undefined) ?? {}),
      "content-type": "application/json",
      "idempotency-key": context.idempotencyKey,
    };
    if (secrets.signingSecret) {
      headers["x-notify-signature"] =
        `sha256=${createHmac("sha256", secrets.signingSecret).update(body).digest("hex")}`;
    }
    return sendHttp({ url: settings.url as string, headers, body, signal: context.signal });
  },
};
