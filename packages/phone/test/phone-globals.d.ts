// The phone app's storage and service worker, as page.evaluate callbacks (which run in Chromium) see them. Declared
// loosely so the test type-checks with Node's types (the DOM library's fetch types differ from Node's); the
// shared names (window, document) come from packages/broker/test/ui/browser-globals.d.ts.
// biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
declare const indexedDB: any;
// biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
type CryptoKeyInBrowser = any;
/** Node has a `navigator` too, without a service worker container. */
interface BrowserNavigator {
  // biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
  serviceWorker: any;
}
