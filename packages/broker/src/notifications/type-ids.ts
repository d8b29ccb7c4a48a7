import { NOTIFICATION_TYPE_PATTERN } from "@notify/contracts/enums";
import type { TypeDefinition } from "@notify/contracts/ui";
import type { Priority } from "./types.js";

/** docs/api.md, "Type IDs". */
export const BUILT_IN_TYPE_IDS = [
  "info",
  "input_required",
  "permission_required",
  "blocked",
  "error",
  "completed",
] as const;

/** The contract's pattern (issue 34: each pattern once). */
export const TYPE_ID_PATTERN = NOTIFICATION_TYPE_PATTERN;

export function isTypeId(value: string): boolean {
  return TYPE_ID_PATTERN.test(value);
}

/**
 * Normalization used by list filters and the CLI: trimmed, lowercased, hyphens to underscores. The HTTP create
 * endpoint takes type IDs as they are (spec: only the CLI accepts hyphens).
 */
export function normalizeTypeId(value: string): string {
  return value.trim().toLowerCase().replaceAll("-", "_");
}

/**
 * A custom type definition, held in config.json under `notificationTypes` (docs/config.md): the shape GET/PUT
 * /ui/api/types carries, declared once in the contracts.
 */
export type { TypeDefinition };

/** Looks up enabled type definitions; rebuilt whenever config changes. */
export class TypeRegistry {
  private readonly byId: Map<string, TypeDefinition>;
  constructor(definitions: readonly TypeDefinition[] = []) {
    this.byId = new Map(definitions.map((definition) => [definition.id, definition]));
  }

  /** The enabled definition of a type, if any (docs/desktop.md, "Local presentation rules", rule 7). */
  enabled(typeId: string): TypeDefinition | undefined {
    const definition = this.byId.get(typeId);
    return definition?.enabled ? definition : undefined;
  }

  /** docs/api.md, "Type IDs" rule 4: the custom definition's default, otherwise `normal`. */
  defaultPriority(typeId: string): Priority {
    return this.enabled(typeId)?.defaultPriority ?? "normal";
  }

  all(): TypeDefinition[] {
    return [...this.byId.values()];
  }
}
