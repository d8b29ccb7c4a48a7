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
