import type { ProviderProfile } from "../../outbox/types.js";
import { type ApplySection, isObject, ui, unknownKeys } from "./section.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A relay URL as the broker stores it (POST /ui/api/relay/enroll drops trailing slashes). */
const normalized = (url: string) => url.replace(/\/+$/, "");

/**
 * `relay` (docs/apply.md): `{url, enrollmentToken, name?}`, the file form of `notify relay enroll URL
 * --enrollment-token T [--name N]`. Enrolling creates an installation at the relay; enrolling again replaces it and
 * unpairs every phone, so a relay provider already enrolled at the same URL is left alone (the token is not
 * compared: it is the operator's credential, spent on enrolling, and the broker does not keep it). A different URL
 * enrolls again. Nothing is pruned here: a relay provider is removed like any provider (outbound --prune leaves
 * relay providers and their routes alone, see outbound-section.ts).
 */
export const relaySection: ApplySection = {
  key: "relay",
  secrets: (value) =>
    isObject(value) && typeof value.enrollmentToken === "string" && value.enrollmentToken !== ""
      ? [value.enrollmentToken]
      : [],
  parse(value, problems) {
    if (!isObject(value)) {
      problems.push("relay must be an object with url and enrollmentToken");
      return undefined;
    }
    const before = problems.length;
    unknownKeys(value, ["url", "enrollmentToken", "name"], "relay", problems);
    const { url, enrollmentToken, name = "relay" } = value;
    if (typeof url !== "string" || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      problems.push("relay.url must be an http(s) URL");
    }
    if (typeof enrollmentToken !== "string" || enrollmentToken === "") {
      problems.push("relay.enrollmentToken must be the operator's enrollment token (notify-relay enrollment-token)");
    }
    if (typeof name !== "string" || !NAME.test(name)) {
      problems.push("relay.name must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    if (problems.length > before) return undefined;
    const wanted = { url: normalized(url as string), enrollmentToken: enrollmentToken as string, name: name as string };
    return {
      async plan({ client }, planProblems) {
        const providers = await ui<ProviderProfile[]>(client, "GET", "/outbound/providers");
        const existing = providers.find((provider) => provider.name === wanted.name);
        if (existing && existing.kind !== "relay") {
          planProblems.push(`relay.name: provider ${wanted.name} exists and is a ${existing.kind} provider`);
          return [];
        }
        const currentUrl = typeof existing?.settings.url === "string" ? normalized(existing.settings.url) : undefined;
        if (existing && currentUrl === wanted.url) {
          return [{ changes: [{ action: "unchanged", kind: "relay", name: wanted.name }] }];
        }
        return [
          {
            changes: [
              existing
                ? {
                    action: "update",
                    kind: "relay",
                    name: wanted.name,
                    fields: ["url"],
                    note: "enrolled again: phones paired through the old relay must pair again",
                  }
                : { action: "create", kind: "relay", name: wanted.name, note: "provider and route enabled" },
            ],
            run: async () => {
              await ui(client, "POST", "/relay/enroll", wanted);
            },
          },
        ];
      },
    };
  },
};
