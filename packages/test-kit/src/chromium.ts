/**
 * The one list of flags every headless Chromium of this repository runs with: the test suites, the web screenshots
 * (packages/web/scripts/screenshots.mjs, through scripts/chromium.mjs) and bench/web. No background traffic: the
 * machines these run on reach nothing but loopback.
 */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS: readonly string[] = Object.freeze([
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
]);
