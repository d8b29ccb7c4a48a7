// Web UI benchmark (bench/README.md, "Web UI"): create-to-DOM latency at 1 and 100 creates/s against a bare SSE
// client, first render of a 10,000 + 1,000 inbox against an empty one, JS shipped gzipped, and the broker's RSS
// with 10 pages streaming. Run: npm run bench:web (after npm install, which builds the broker and the page).
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../packages/web/scripts/chromium.mjs";
import { procMemory, progress, REPO_ROOT, round, sleep, startBroker, summarize } from "../broker/lib.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = "true"] = arg.replace(/^--/, "").split("=");
    return [key, value];
  }),
);
const SLOW_SECONDS = Number(args["slow-seconds"] ?? 20);
const FAST_SECONDS = Number(args["fast-seconds"] ?? 5);
const NOTIFICATIONS = Number(args.notifications ?? 10_000);
const QUESTIONS = Number(args.questions ?? 1_000);
const PAGES = Number(args.pages ?? 10);
const LOADS = Number(args.loads ?? 5);

const now = () => performance.timeOrigin + performance.now();
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

const broker = await startBroker("web");
const api = (method, path, body, ui = false) =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${broker.url}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${broker.token}`,
          ...(ui ? { "x-notify-ui": "1" } : {}),
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString() || "null") }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
const loginLink = async () => (await api("POST", "/ui/api/session/link", undefined, true)).body.url;

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });

/** Every row that enters a page's DOM, with the wall-clock time it appeared (injected before the page's scripts). */
const OBSERVER = () => {
  window.__seen = new Map();
  window.__firstRowAt = undefined;
  new MutationObserver((mutations) => {
    const at = performance.timeOrigin + performance.now();
    for (const mutation of mutations) {
      for (const node of mutation.addedNodes) {
        if (!(node instanceof HTMLElement)) continue;
        const rows = node.matches("[data-item-id]") ? [node] : node.querySelectorAll("[data-item-id]");
        for (const row of rows) {
          window.__firstRowAt ??= performance.now();
          const id = row.getAttribute("data-item-id");
          if (!window.__seen.has(id)) window.__seen.set(id, at);
        }
      }
    }
  }).observe(document, { childList: true, subtree: true });
};

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(OBSERVER);
  const page = await context.newPage();
  await page.goto(await loginLink());
  await page.getByText("Live").waitFor({ timeout: 60_000 });
  return { context, page };
}

/** A bare SSE reader in this process: the broker's part of the latency, without a browser. */
function sseClient() {
  const seen = new Map();
  const req = http.request(`${broker.url}/ui/api/stream`, { headers: { authorization: `Bearer ${broker.token}` } });
  req.on("response", (res) => {
    let buffer = "";
    res.setEncoding("utf8");
    res.on("data", (chunk) => {
      const at = now();
      buffer += chunk;
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, cut))?.[1];
        buffer = buffer.slice(cut + 2);
        if (data) {
          const id = JSON.parse(data).item.id;
          if (!seen.has(id)) seen.set(id, at);
        }
        cut = buffer.indexOf("\n\n");
      }
    });
  });
  req.end();
  return { seen, close: () => req.destroy() };
}

async function createsAt(rate, seconds, page, sse) {
  const sent = new Map();
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    const at = now();
    pending.push(
      api("POST", "/v1/notifications", { title: `bench ${rate}/s #${i}`, message: "create-to-DOM" }).then((reply) => {
        sent.set(reply.body.id, at);
      }),
    );
  }
  await Promise.all(pending);
  // Every row is waited for (up to 15 s), so a slow page shows as latency, not as missing samples.
  await page
    .waitForFunction((ids) => ids.every((id) => window.__seen.has(id)), [...sent.keys()], {
      timeout: 15_000,
      polling: 100,
    })
    .catch(() => {});
  await sleep(200);
  const seenInPage = new Map(await page.evaluate(() => [...window.__seen]));
  const dom = [];
  const stream = [];
  for (const [id, at] of sent) {
    if (seenInPage.has(id)) dom.push(seenInPage.get(id) - at);
    if (sse.seen.has(id)) stream.push(sse.seen.get(id) - at);
  }
  return { sent: sent.size, dom: summarize(dom), stream: summarize(stream) };
}

async function seed() {
  progress(`seeding ${NOTIFICATIONS} notifications and ${QUESTIONS} questions`);
  const jobs = [];
  for (let i = 0; i < NOTIFICATIONS; i++) {
    jobs.push(() =>
      api("POST", "/v1/notifications", {
        title: `Seeded notification ${i}`,
        message: `Message ${i}: a few words about what the agent did.`,
        agent: `agent-${i % 7}`,
        project: `project-${i % 13}`,
        type: ["info", "error", "completed", "blocked"][i % 4],
      }),
    );
  }
  for (let i = 0; i < QUESTIONS; i++) {
    jobs.push(() =>
      api("POST", "/v1/interactions/request", {
        kind: "permission",
        prompt: `Seeded question ${i}?`,
        ttl_seconds: 3600,
      }),
    );
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

/** Navigation start to the first row in the DOM, and to the inbox response being read, over LOADS loads. */
async function firstRender(page) {
  const rows = [];
  for (let i = 0; i < LOADS; i++) {
    await page.reload();
    await page.waitForFunction(() => window.__firstRowAt !== undefined, undefined, { timeout: 60_000 });
    rows.push(await page.evaluate(() => window.__firstRowAt));
  }
  const inbox = await page.evaluate(() => {
    const entry = performance.getEntriesByType("resource").find((e) => e.name.includes("/ui/api/inbox"));
    return entry ? { ms: entry.responseEnd - entry.requestStart, bytes: entry.encodedBodySize } : undefined;
  });
  return { rows: summarize(rows), inbox };
}

function jsShipped() {
  const dir = join(REPO_ROOT, "packages", "web", "dist", "assets");
  let raw = 0;
  let gz = 0;
  for (const name of readdirSync(dir).filter((file) => file.endsWith(".js") || file.endsWith(".css"))) {
    const body = readFileSync(join(dir, name));
    if (!name.endsWith(".js")) continue;
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  return { raw, gz };
}

const results = {};
try {
  results.js = jsShipped();
  const rssIdle = procMemory(broker.pid).rssKb;

  // 1. Create-to-DOM on an empty-ish inbox, one page, with the bare SSE client beside it.
  const first = await openPage();
  const sse = sseClient();
  await sleep(300);
  progress(`1 create/s for ${SLOW_SECONDS} s`);
  results.slow = await createsAt(1, SLOW_SECONDS, first.page, sse);
  progress(`100 creates/s for ${FAST_SECONDS} s`);
  results.fast = await createsAt(100, FAST_SECONDS, first.page, sse);
  sse.close();

  // 2. First render: an empty baseline broker page load first, then the seeded one.
  results.renderSmall = await firstRender(first.page);
  await seed();
  results.renderLarge = await firstRender(first.page);
  await first.context.close();

  // 3. RSS with 10 pages streaming the large inbox, then while 100 creates/s reach all of them.
  const pages = [];
  for (let i = 0; i < PAGES; i++) pages.push(await openPage());
  // Each page has read the whole inbox (its item count shows it) before anything is measured.
  const everything = NOTIFICATIONS + QUESTIONS;
  for (const { page } of pages) {
    await page.waitForFunction(
      (least) => Number(/(\d+) items/.exec(document.body.textContent ?? "")?.[1] ?? 0) >= least,
      everything,
      { timeout: 120_000, polling: 250 },
    );
  }
  await sleep(2000);
  const rssPages = procMemory(broker.pid).rssKb;
  const sseFanout = sseClient();
  progress(`100 creates/s for ${FAST_SECONDS} s with ${PAGES} pages open`);
  results.fanout = await createsAt(100, FAST_SECONDS, pages[0].page, sseFanout);
  sseFanout.close();
  const rssPagesLoad = procMemory(broker.pid).rssKb;
  for (const page of pages) await page.context.close();
  results.rss = { idleMb: rssIdle / 1024, pagesMb: rssPages / 1024, pagesUnderLoadMb: rssPagesLoad / 1024 };
} finally {
  await browser.close();
  await broker.stop();
}

const row = (label, s) =>
  `| ${label} | ${s.count} | ${round(s.p50, 1)} | ${round(s.p90, 1)} | ${round(s.p99, 1)} | ${round(s.max, 1)} |`;
const out = [];
out.push(
  "### Create-to-DOM latency (ms, POST sent to row in the page's DOM; baseline: same event at a bare SSE client)",
);
out.push("", "| run | n | p50 | p90 | p99 | max |", "|---|---|---|---|---|---|");
out.push(row("1/s, page DOM", results.slow.dom), row("1/s, bare SSE client", results.slow.stream));
out.push(row("100/s, page DOM", results.fast.dom), row("100/s, bare SSE client", results.fast.stream));
out.push(row(`100/s, page DOM, ${PAGES} pages open on the large inbox`, results.fanout.dom));
out.push(row(`100/s, bare SSE client, ${PAGES} pages open`, results.fanout.stream));
out.push("", "### First render (ms from navigation start to the first row in the DOM)", "");
out.push("| inbox | loads | p50 | p90 | p99 | max |", "|---|---|---|---|---|---|");
out.push(
  row(`small (the ${results.slow.sent + results.fast.sent} rows of the latency runs)`, results.renderSmall.rows),
);
out.push(row(`${NOTIFICATIONS} notifications + ${QUESTIONS} questions`, results.renderLarge.rows));
out.push(
  "",
  `GET /ui/api/inbox for the large inbox: ${round(results.renderLarge.inbox?.ms ?? Number.NaN, 1)} ms, ${round((results.renderLarge.inbox?.bytes ?? 0) / 1024 / 1024, 2)} MB on the wire.`,
);
out.push("", `JS shipped: ${round(results.js.raw / 1024, 1)} KB, ${round(results.js.gz / 1024, 1)} KB gzipped.`);
out.push(
  "",
  `Broker RSS: ${round(results.rss.idleMb, 1)} MB idle, ${round(results.rss.pagesMb, 1)} MB with ${PAGES} pages streaming the large inbox, ${round(results.rss.pagesUnderLoadMb, 1)} MB after 100 creates/s reached them.`,
);
process.stdout.write(`${out.join("\n")}\n`);
