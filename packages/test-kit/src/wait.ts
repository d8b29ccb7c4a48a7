/**
 * Waits for a condition the test cannot subscribe to (a held poll registering, a message reaching a mock),
 * checking every few ms, with a deadline a loaded 2-core machine meets.
 */
export async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface UntilValueOptions {
  /** The deadline (20 s: what a loaded 2-core machine meets). */
  timeoutMs?: number;
  /** The pause between probes; a probe that spawns a process or scrapes a page wants a longer one. */
  everyMs?: number;
  /** More to say when the deadline passes (a process's log). */
  detail?: () => string;
}

/**
 * Probes (sync or async) until the probe returns something other than undefined, and resolves with it; past the
 * deadline, throws naming `what`.
 */
export async function untilValue<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 20_000, everyMs = 25, detail }: UntilValueOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail()}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
