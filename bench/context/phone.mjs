// The phone side of bench:context (run.mjs starts it as a child after the broker sides): the built phone app
// (packages/phone/dist, served by the relay as in production) in headless Chromium, paired with a relay and a broker
// with a "phone" route (as bench/phone/lib.mjs sets them up, the relay serving the app). Each render: the app
// reloaded with an empty inbox and polling, then one permission question created at the broker, with a 64 KiB diff
// context (worker.mjs's) or without; the sides alternate, the order swapped each pair. Timed in the page: from the
// relay's answer carrying the envelope (its body read) to the card painted (its <article> in the DOM, then the
// next frame: a message posted from requestAnimationFrame runs after that frame is painted). Decrypting the envelope
// and React's render are inside; the time to the card's <article> in the DOM is kept too. Prints one JSON line on
// stdout.
// Usage: node bench/context/phone.mjs [--renders=60] [--warmup=5]   (after npm run build)
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../packages/web/scripts/chromium.mjs";
import { ROOT, summary, world } from "../phone/lib.mjs";
import { diffContext } from "./diff.mjs";

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const renders = arg("renders", 60);
const warmup = arg("warmup", 5);
const progress = (message) => process.stderr.write(`[bench:context] phone: ${message}\n`);
/** Any one wait across the broker, the relay and Chromium on a loaded machine. */
const WAIT_MS = 60_000;

const APP_DIR = join(ROOT, "packages/phone/dist");
if (!existsSync(join(APP_DIR, "index.html"))) throw new Error(`${APP_DIR} is not built: run npm run build first`);

/** In the page before the app: when an envelope page's body is read, and when the question's card is painted. */
function instrument() {
  const bench = { polls: 0, arrivals: [], card: undefined };
  window.__bench = bench;
  const realFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    if (!url.includes("/v1/envelopes")) return realFetch(input, init);
    bench.polls++;
    const response = await realFetch(input, init);
    const text = response.text.bind(response);
    response.text = async () => {
      const body = await text();
      if (body.includes('"envelope_id"')) bench.arrivals.push(performance.now());
      return body;
    };
    return response;
  };
  new MutationObserver(() => {
    if (bench.card !== undefined) return;
    const card = document.querySelector("article.card");
    if (card === null) return;
    const inserted = performance.now();
    bench.card = { inserted };
    requestAnimationFrame(() => {
      const height = card.getBoundingClientRect().height;
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const arrived = bench.arrivals.filter((at) => at <= inserted).at(-1);
        bench.card = { inserted, painted: performance.now(), arrived, height };
      };
      channel.port2.postMessage(0);
    });
  }).observe(document, { childList: true, subtree: true });
}

/** One permission question as a hook asks it: the context first (when given), then the event naming it. */
async function ask(w, index, context) {
  let extensions;
  if (context) {
    const posted = await w.call("POST", "/v1/contexts", context);
    if (posted.status !== 201) throw new Error(`context ${posted.status}`);
    extensions = { "x-notify-context": { id: posted.body.id } };
  }
  const created = await w.call("POST", "/v1/events", {
    arc_version: "0.2",
    event_id: `phone-${index}`,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "claude-code" },
    context: { project: "bench" },
    request: {
      key: `phone-${index}`,
      kind: "permission",
      message: `Claude Code wants to change a file with Edit: src/file-${index}.ts`,
      response: {
        kind: "permission",
        choices: [
          { id: "allow", label: "Allow" },
          { id: "deny", label: "Deny" },
        ],
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    },
    ...(extensions ? { extensions } : {}),
  });
  if (created.status !== 201) throw new Error(`event ${created.status} ${JSON.stringify(created.body)}`);
}

/**
 * The app reloaded with no cards kept (its IndexedDB `cards` removed), paired and waiting on the relay. Again when a
 * card came back: the app may have stored its cards after the removal (a late envelope, the question's notification).
 */
async function emptyInbox(page) {
  for (let attempt = 1; ; attempt++) {
    await reloadEmpty(page);
    if (await page.evaluate(() => window.__bench.card === undefined && document.querySelector("article.card") === null))
      return;
    if (attempt === 5) throw new Error("the app keeps its cards after they were removed");
  }
}

async function reloadEmpty(page) {
  await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const opening = indexedDB.open("notify-phone", 1);
        opening.onerror = () => reject(opening.error);
        opening.onsuccess = () => {
          const db = opening.result;
          const transaction = db.transaction("kv", "readwrite");
          transaction.objectStore("kv").delete("cards");
          transaction.oncomplete = () => {
            db.close();
            resolve();
          };
          transaction.onerror = () => reject(transaction.error);
        };
      }),
  );
  await page.reload();
  await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });
  await page.waitForFunction(() => window.__bench.polls > 0, undefined, { timeout: WAIT_MS });
}

// A relay serving the phone app and a broker routing to it, no simulated phone: the real app pairs itself.
const w = await world(0, {}, { appDir: APP_DIR });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
const samples = { without: [], with: [] };
const inDom = { without: [], with: [] };
const cardHeights = { without: 0, with: 0 };
try {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.addInitScript(instrument);
  await page.goto(await w.pairLink());
  await page.getByText(/Paired as/).waitFor({ state: "visible", timeout: WAIT_MS });
  progress(`paired; ${warmup} warm-up and ${renders} measured renders per side`);
  let index = 0;
  for (let pair = 0; pair < warmup + renders; pair++) {
    const order = pair % 2 === 0 ? ["without", "with"] : ["with", "without"];
    for (const side of order) {
      await emptyInbox(page);
      index++;
      await ask(w, index, side === "with" ? diffContext(index) : undefined);
      await page.waitForFunction(() => window.__bench.card?.painted !== undefined, undefined, { timeout: WAIT_MS });
      const card = await page.evaluate(() => window.__bench.card);
      if (card.arrived === undefined) throw new Error("a card painted before its envelope arrived");
      if (pair >= warmup) {
        samples[side].push(card.painted - card.arrived);
        inDom[side].push(card.inserted - card.arrived);
        cardHeights[side] = Math.round(card.height);
      }
    }
    if ((pair + 1) % 20 === 0) progress(`${pair + 1}/${warmup + renders}`);
  }
  if (problems.length > 0) throw new Error(`the page failed: ${problems.join("; ")}`);
} finally {
  await browser.close();
  await w.close();
}
process.stdout.write(
  `${JSON.stringify({
    renders,
    without: summary(samples.without),
    with: summary(samples.with),
    inDom: { without: summary(inDom.without), with: summary(inDom.with) },
    cardHeightPx: cardHeights,
  })}\n`,
);
