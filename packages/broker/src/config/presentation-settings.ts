import { createRequire } from "node:module";
import type { PresentationPatch, PresentationSettings } from "@notify/contracts/ui";
import { PRESENTATION_DEFAULTS } from "@notify/contracts/ui-constants";
import { readConfigFile, updateConfigFile } from "./config-file.js";

export type { PresentationSettings } from "@notify/contracts/ui";

/**
 * The schemas, and with them zod (about 95 modules), are loaded the first time a presentation key is found in
 * config.json or changed: a broker whose owner never changed one does not load them (issue 22, part 6).
 */
const requireModule = createRequire(import.meta.url);
const schemas = (): typeof import("@notify/contracts/ui") => requireModule("@notify/contracts/ui");

export const PRESENTATION_KEYS = Object.keys(PRESENTATION_DEFAULTS) as (keyof PresentationSettings)[];

/**
 * The local presentation keys (docs/desktop.md, "Local presentation rules"; `soundCommand`: docs/desktop.md, "Sounds")
 * as top-level config.json keys. A value that does not fit its rule is ignored with a warning and the default used,
 * like the broker's other keys. Changes from the page or `notify apply` are written through atomically and announced to
 * `onChange` listeners (the toast presenter applies them live).
 */
export class PresentationSettingsFile {
  private current: PresentationSettings;
  private readonly listeners = new Set<(settings: PresentationSettings) => void>();

  constructor(
    private readonly dataDir: string,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.current = this.read();
  }

  get(): PresentationSettings {
    return this.current;
  }

  /** Listens for changes; returns the unsubscribe. */
  onChange(listener: (settings: PresentationSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies a validated partial change (PresentationPatch); throws the zod error for an invalid one. */
  update(patch: PresentationPatch): PresentationSettings {
    const change = schemas().PresentationPatch.parse(patch);
    const next: Record<string, unknown> = { ...this.current };
    updateConfigFile(this.dataDir, (contents) => {
      for (const [key, value] of Object.entries(change)) {
        if (value === undefined) continue;
        next[key] = value;
        // soundCommand null means "the default": the key is removed rather than stored as null.
        if (value === null) delete contents[key];
        else contents[key] = value;
      }
    });
    this.current = next as PresentationSettings;
    for (const listener of this.listeners) listener(this.current);
    return this.current;
  }

  private read(): PresentationSettings {
    const contents = readConfigFile(this.dataDir);
    const settings: Record<string, unknown> = { ...PRESENTATION_DEFAULTS };
    for (const key of PRESENTATION_KEYS) {
      const value = contents[key];
      if (value === undefined) continue;
      const checked = schemas().PresentationSettings.shape[key].safeParse(value);
      if (checked.success) settings[key] = checked.data;
      else
        this.warn(`config.json: ${key} ${JSON.stringify(value)} is not valid; using ${JSON.stringify(settings[key])}`);
    }
    return settings as PresentationSettings;
  }
}
