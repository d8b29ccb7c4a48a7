import type { PresentationSettings } from "../config/presentation-settings.js";
import type { TypeRegistry } from "../notifications/type-ids.js";
import type { Priority } from "../notifications/types.js";
import { DEFAULT_TYPE_SOUNDS, stylingOf } from "./toast.js";

/** The per-type choice's value that silences a type. */
export const NO_SOUND = "none";

/**
 * docs/desktop.md, "Local presentation rules", rule 5, literally: a sound plays if and only if soundsEnabled and not
 * pauseNotifications and (not doNotDisturb or (critical and playCriticalSoundsDuringDoNotDisturb)). Rule 6: at volume 0
 * nothing is audible, so nothing is played at all.
 */
export function soundPlays(settings: PresentationSettings, priority: Priority): boolean {
  const ruleFive =
    settings.soundsEnabled &&
    !settings.pauseNotifications &&
    (!settings.doNotDisturb || (priority === "critical" && settings.playCriticalSoundsDuringDoNotDisturb));
  return ruleFive && settings.volume > 0;
}

/**
 * Which sound a type plays: the per-type choice (config.json `typeSounds`), else the enabled definition's `sound`,
 * else the built-in type's tone; a type with no enabled definition takes `info`'s (rule 7, generic info styling).
 * Undefined means silent (`none`).
 */
export function soundOf(
  typeId: string,
  types: TypeRegistry,
  typeSounds: Readonly<Record<string, string>>,
): string | undefined {
  const styling = stylingOf(typeId, types);
  const chosen =
    typeSounds[styling.styleTypeId] ??
    styling.sound ??
    DEFAULT_TYPE_SOUNDS[styling.styleTypeId] ??
    DEFAULT_TYPE_SOUNDS.info;
  return chosen === NO_SOUND ? undefined : chosen;
}
