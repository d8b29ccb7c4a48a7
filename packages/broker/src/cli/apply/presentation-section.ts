import { PresentationPatch, type PresentationSettings } from "@notify/contracts/ui";
import { type ApplySection, isObject, jsonEqual, ui } from "./section.js";

/**
 * `presentation`: the presentation keys (docs/desktop.md, "Local presentation rules") plus `soundCommand`
 * (docs/apply.md), checked with the same shared schema the broker uses on PUT /ui/api/presentation. Only the keys the
 * file names are set, with one PUT of those that differ; a key the file leaves out keeps the broker's value (there is
 * nothing to prune).
 */
export const presentationSection: ApplySection = {
  key: "presentation",
  secrets: () => [],
  parse(value, problems) {
    if (!isObject(value)) {
      problems.push("presentation must be an object of presentation settings");
      return undefined;
    }
    const parsed = PresentationPatch.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.length > 0 ? `presentation.${issue.path.join(".")}` : "presentation";
        problems.push(`${path}: ${issue.message}`);
      }
      return undefined;
    }
    const desired = parsed.data;
    return {
      async plan({ client }) {
        const current = await ui<PresentationSettings>(client, "GET", "/presentation");
        const fields = (Object.keys(desired) as (keyof PresentationSettings)[]).filter(
          (key) => desired[key] !== undefined && !jsonEqual(current[key], desired[key]),
        );
        if (fields.length === 0)
          return [{ changes: [{ action: "unchanged", kind: "presentation", name: "settings" }] }];
        const patch = Object.fromEntries(fields.map((key) => [key, desired[key]]));
        return [
          {
            changes: [{ action: "update", kind: "presentation", name: "settings", fields }],
            run: async () => {
              await ui(client, "PUT", "/presentation", patch);
            },
          },
        ];
      },
    };
  },
};
