import { parseTypeDefinitions } from "../../config/settings.js";
import type { TypeDefinition } from "../../notifications/type-ids.js";
import { type ApplySection, type Change, isObject, jsonEqual, ui, unknownKeys } from "./section.js";

const FIELDS = ["id", "label", "enabled", "defaultPriority", "color", "icon", "sound", "toastSeconds"] as const;
const STRING_FIELDS = ["label", "color", "icon", "sound"] as const;

/**
 * `notificationTypes`: the whole list of custom type definitions, put with one PUT /ui/api/types (which replaces
 * the list, so a type the file leaves out is removed with or without --prune). The broker's own parser normalizes
 * the definitions here too, so unchanged definitions compare equal and nothing is written.
 */
export const notificationTypesSection: ApplySection = {
  key: "notificationTypes",
  secrets: () => [],
  parse(value, problems) {
    if (!Array.isArray(value)) {
      problems.push("notificationTypes must be a list of type definitions");
      return undefined;
    }
    const before = problems.length;
    const seen = new Set<string>();
    value.forEach((entry, index) => {
      const path = `notificationTypes[${index}]`;
      if (!isObject(entry)) return; // parseTypeDefinitions below reports it
      unknownKeys(entry, FIELDS, path, problems);
      for (const field of STRING_FIELDS) {
        if (entry[field] !== undefined && typeof entry[field] !== "string") {
          problems.push(`${path}.${field} must be a string`);
        }
      }
      if (entry.enabled !== undefined && typeof entry.enabled !== "boolean") {
        problems.push(`${path}.enabled must be true or false`);
      }
      if (
        entry.toastSeconds !== undefined &&
        (typeof entry.toastSeconds !== "number" || !(entry.toastSeconds > 0) || !Number.isFinite(entry.toastSeconds))
      ) {
        problems.push(`${path}.toastSeconds must be a positive number`);
      }
      if (typeof entry.id === "string") {
        if (seen.has(entry.id)) problems.push(`${path}.id: type ${entry.id} is defined twice`);
        seen.add(entry.id);
      }
    });
    // The rest (id pattern, priorities) is what the broker checks on PUT /ui/api/types, with the same parser.
    const definitions = parseTypeDefinitions(value, (message) =>
      problems.push(message.replace(/^config\.json: /, "").replace(/; ignored$/, "")),
    );
    if (problems.length > before) return undefined;
    return {
      async plan({ client }) {
        const current = await ui<TypeDefinition[]>(client, "GET", "/types");
        const changes = diffTypes(current, definitions);
        if (changes.every((change) => change.action === "unchanged")) return [{ changes }];
        return [
          {
            changes,
            run: async () => {
              await ui(client, "PUT", "/types", definitions);
            },
          },
        ];
      },
    };
  },
};

function diffTypes(current: TypeDefinition[], desired: TypeDefinition[]): Change[] {
  const currentById = new Map(current.map((definition) => [definition.id, definition]));
  const changes: Change[] = desired.map((definition) => {
    const existing = currentById.get(definition.id);
    if (!existing) return { action: "create", kind: "type", name: definition.id };
    const fields = FIELDS.filter((field) => !jsonEqual(existing[field], definition[field]));
    return fields.length === 0
      ? { action: "unchanged", kind: "type", name: definition.id }
      : { action: "update", kind: "type", name: definition.id, fields };
  });
  const desiredIds = new Set(desired.map((definition) => definition.id));
  for (const definition of current) {
    if (!desiredIds.has(definition.id)) {
      changes.push({ action: "delete", kind: "type", name: definition.id, note: "not in notificationTypes" });
    }
  }
  return changes;
}
