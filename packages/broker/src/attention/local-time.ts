/**
 * Wall-clock time in an IANA time zone, through Intl (Node's full ICU): what quiet hours are written in. The zone is
 * a parameter, so tests pick theirs; the broker passes the process's own (TZ, else the system's).
 */

export interface LocalDateTime {
  year: number;
  /** 1-12. */
  month: number;
  day: number;
  /** 0 (Monday) - 6 (Sunday). */
  weekday: number;
  /** Minutes since local midnight, 0-1439. */
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    // Throws RangeError on a zone ICU does not know: a bad zone is refused where it is given.
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The process's time zone (TZ, else the system's). */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Whether ICU knows the zone. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock's reading, as a UTC timestamp of the same fields (seconds precision). */
function wallClockMs(instant: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(instant)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  return Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
}

/** The zone's offset from UTC at `instant`, in ms (Berlin in summer: +7,200,000). */
export function offsetAt(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClockMs(whole, timeZone) - whole;
}

export function localDateTime(instant: number, timeZone: string): LocalDateTime {
  const wall = new Date(instant + offsetAt(instant, timeZone));
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    weekday: (wall.getUTCDay() + 6) % 7,
    minutes: wall.getUTCHours() * 60 + wall.getUTCMinutes(),
  };
}

/**
 * The instant the wall clock shows `minutes` past midnight of the given local date (day may overflow: day 32 is the
 * next month's 1st). A reading the clock shows twice (autumn) is its first; a reading it skips (spring) is the
 * instant the clock jumps past it.
 */
export function instantOf(year: number, month: number, day: number, minutes: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, 0, minutes);
  const hour = 3_600_000;
  // Offsets on either side of any transition near this reading (zones change offset at most once a day).
  const offsets = [offsetAt(wall - 24 * hour, timeZone), offsetAt(wall + 24 * hour, timeZone)];
  const matches = offsets.map((offset) => wall - offset).filter((instant) => wallClockMs(instant, timeZone) === wall);
  if (matches.length > 0) return Math.min(...matches);
  // Skipped: the reading lies in the gap. Find the jump between the two candidate instants.
  let low = Math.min(wall - (offsets[0] ?? 0), wall - (offsets[1] ?? 0));
  let high = Math.max(wall - (offsets[0] ?? 0), wall - (offsets[1] ?? 0));
  // Invariant: at `low` the clock still reads before `wall`, at `high` past it.
  while (high - low > 1000) {
    const middle = Math.floor((low + high) / 2000) * 1000;
    if (wallClockMs(middle, timeZone) < wall) low = middle;
    else high = middle;
  }
  return high;
}
