import type { Priority } from "./types.js";

/** Spec 1, "Type IDs". */
export const BUILT_IN_TYPE_IDS = [
  "info",
  "input_required",
  "permission_required",
  "blocked",
  "error",
  "completed",
] as const;

export const TYPE_ID_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

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

/** A custom type definition, held in config.json under `notificationTypes` (docs/config.md). */
export interface TypeDefinition {
  id: string;
  label: string;
  enabled: boolean;
  defaultPriority?: Priority;
  /** Presentation: a CSS color, an icon name, a built-in tone or imported sound, toast lifetime. */
  color?: string;
  icon?: string;
  sound?: string;
  toastSeconds?: number;
}

/** Looks up enabled type definitions; rebuilt whenever config changes. */
export class TypeRegistry {
  private readonly byId: Map<string, TypeDefinition>;
  constructor(definitions: readonly TypeDefinition[] = []) {
    this.byId = new Map(definitions.map((definition) => [definition.id, definition]));
  }

  /** The enabled definition of a type, if any (spec 1, presentation rule 7). */
  enabled(typeId: string): TypeDefinition | undefined {
    const definition = this.byId.get(typeId);
    return definition?.enabled ? definition : undefined;
  }

  /** Spec 1, Type IDs rule 4: the custom definition's default, otherwise `normal`. */
  defaultPriority(typeId: string): Priority {
    return this.enabled(typeId)?.defaultPriority ?? "normal";
  }

  all(): TypeDefinition[] {
    return [...this.byId.values()];
  }
}
