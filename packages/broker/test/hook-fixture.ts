import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

type Hook = (run: () => Promise<void>) => void;

/**
 * A resource that vitest hooks keep for the tests of the calling file or describe: `start` runs before all of them
 * (`"file"`) or before each one (`"test"`), `stop` after. The object returned stands for the resource running now:
 * every property read goes to it (methods bound to it), so a suite holds one `const` instead of a `let` that its
 * hooks reassign. A read outside those tests throws.
 */
export function hookFixture<T extends object>(
  scope: "file" | "test",
  start: () => Promise<T>,
  stop: (resource: T) => Promise<void> | void,
): T {
  const [before, after]: [Hook, Hook] = scope === "file" ? [beforeAll, afterAll] : [beforeEach, afterEach];
  let running: T | undefined;
  before(async () => {
    running = await start();
  });
  after(async () => {
    if (running !== undefined) await stop(running);
    running = undefined;
  });
  const current = (): T => {
    if (running === undefined) throw new Error("this fixture runs only while the tests that asked for it do");
    return running;
  };
  return new Proxy({} as T, {
    get(_target, key) {
      const resource = current();
      const value: unknown = Reflect.get(resource, key);
      return typeof value === "function" ? value.bind(resource) : value;
    },
  });
}
