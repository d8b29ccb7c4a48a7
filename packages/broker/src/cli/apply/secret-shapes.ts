import { headerSafe, secretHttpUrl } from "../../outbox/providers/settings.js";
import { SURFACES } from "../../surfaces/registry.js";
import type { SecretShape } from "../../surfaces/surface.js";

/**
 * The secret shapes docs/outbound.md documents (`provider_secret_invalid`), checked by `notify apply` before it
 * sends anything, so a token that can never work is refused with its field named instead of accepted and failing
 * at the first delivery (issue 32, item 6). The adapters check the same shapes again at send time. The answer
 * surfaces' shapes are their registry entries' (surfaces/registry.ts).
 */
const SHAPES: Record<string, Record<string, SecretShape>> = {
  ...Object.fromEntries(SURFACES.map((surface) => [surface.kind, surface.secretShapes])),
  slack: { webhookUrl: { valid: (value) => secretHttpUrl(value) !== undefined, expected: "an http(s) URL" } },
  discord: { webhookUrl: { valid: (value) => secretHttpUrl(value) !== undefined, expected: "an http(s) URL" } },
  ntfy: { token: { valid: headerSafe, expected: "visible characters, no spaces or line breaks" } },
  gotify: { appToken: { valid: headerSafe, expected: "visible characters, no spaces or line breaks" } },
};

/** Why a secret's value cannot work (never echoing it), or undefined. */
export function secretShapeProblem(kind: string, name: string, value: string): string | undefined {
  const shape = SHAPES[kind]?.[name];
  if (shape === undefined || shape.valid(value)) return undefined;
  return `${name} does not have the shape ${kind} takes (${shape.expected}; docs/outbound.md)`;
}
