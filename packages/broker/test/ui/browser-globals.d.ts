// Code passed to page.evaluate runs in Chromium, not in Node: these are the only browser names those callbacks use,
// declared loosely so the tests type-check without the DOM library (whose fetch types differ from Node's).
// biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
declare const window: any;
// biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
type Document = any;
// biome-ignore lint/suspicious/noExplicitAny: browser globals seen from Node.
type HTMLInputElement = any;
