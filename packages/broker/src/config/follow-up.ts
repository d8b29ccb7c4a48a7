/**
 * config.json `followUp` (docs/hooks.md, "Follow-ups"): how long a finished turn waits for a reply while the person
 * is away, and how many replies in a row may continue one session before it ends as usual.
 */
export interface FollowUpSettings {
  /** 0-86400; 0 turns follow-ups off. */
  waitSeconds: number;
  /** 1-1000: replies in a row (continuations without a prompt typed in the terminal) before a turn just ends. */
  maxInARow: number;
}

export const DEFAULT_FOLLOW_UP: Readonly<FollowUpSettings> = { waitSeconds: 900, maxInARow: 20 };

const BOUNDS: Record<keyof FollowUpSettings, [number, number]> = { waitSeconds: [0, 86_400], maxInARow: [1, 1000] };

/** The `followUp` object of config.json; a missing key is its default, a wrong one its default and one warning. */
export function parseFollowUp(value: unknown, warn: (message: string) => void): FollowUpSettings {
  const settings = { ...DEFAULT_FOLLOW_UP };
  if (value === undefined) return settings;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    warn("config.json: followUp must be an object; using the defaults");
    return settings;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(BOUNDS) as (keyof FollowUpSettings)[]) {
    const field = record[key];
    if (field === undefined) continue;
    const [min, max] = BOUNDS[key];
    if (typeof field !== "number" || !Number.isSafeInteger(field) || field < min || field > max) {
      warn(`config.json: followUp.${key} must be an integer ${min}-${max}; using ${DEFAULT_FOLLOW_UP[key]}`);
      continue;
    }
    settings[key] = field;
  }
  for (const key of Object.keys(record)) {
    if (!(key in BOUNDS)) warn(`config.json: followUp.${key} is not a setting; ignored`);
  }
  return settings;
}
