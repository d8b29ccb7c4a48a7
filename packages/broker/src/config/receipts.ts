/**
 * config.json `receipts` (issue 37 item 3; docs/relay.md, "Receipts on the broker"): how long a delivery handed to
 * the relay may stay unfetched by every phone before its route is flagged on the Outbound page and in
 * `notify doctor`.
 */
export interface ReceiptSettings {
  /** 1-86400 seconds. */
  warnAfterSeconds: number;
}

export const DEFAULT_RECEIPTS: Readonly<ReceiptSettings> = { warnAfterSeconds: 120 };

const MAX_WARN_AFTER_SECONDS = 86_400;

/** The `receipts` object of config.json; a missing key is its default, a wrong one its default and one warning. */
export function parseReceipts(value: unknown, warn: (message: string) => void): ReceiptSettings {
  const settings = { ...DEFAULT_RECEIPTS };
  if (value === undefined) return settings;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    warn("config.json: receipts must be an object; using the defaults");
    return settings;
  }
  const record = value as Record<string, unknown>;
  const seconds = record.warnAfterSeconds;
  if (seconds !== undefined) {
    if (
      typeof seconds !== "number" ||
      !Number.isSafeInteger(seconds) ||
      seconds < 1 ||
      seconds > MAX_WARN_AFTER_SECONDS
    ) {
      warn(
        `config.json: receipts.warnAfterSeconds must be an integer 1-${MAX_WARN_AFTER_SECONDS}; using ${DEFAULT_RECEIPTS.warnAfterSeconds}`,
      );
    } else settings.warnAfterSeconds = seconds;
  }
  for (const key of Object.keys(record)) {
    if (key !== "warnAfterSeconds") warn(`config.json: receipts.${key} is not a setting; ignored`);
  }
  return settings;
}
