// Desktop benchmark (bench/README.md, "Desktop"): create-to-Notify latency, ActionInvoked-to-answer latency, and a
// burst of 1,000 creates with maxVisibleToasts 5, against a recording notification server on a private session bus.
// Run: npm run bench:desktop (after npm install, which builds the broker). Options: --creates=500 --answers=300
// --burst=1000 --max-visible=5.
import http from "node:http";
import dbus from "dbus-next";
import { procMemory, progress, sleep, startBroker, summarize } from "../broker/lib.mjs";
import { RecordingServer } from "./recording-server.mjs";
import { startSessionBus } from "./session.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = "true"] = arg.replace(/^--/, "").split("=");
    return [key, value];
  }),
);
const CREATES = Number(args.creates ?? 500);
const ANSWERS = Number(args.answers ?? 300);
const BURST = Number(args.burst ?? 1000);
const MAX_VISIBLE = Number(args["max-visible"] ?? 5);
/** Bursts in a row: RSS that keeps climbing from one to the next would be a leak, a plateau is the heap's size. */
const ROUNDS = Number(args.rounds ?? 3);
const mb = (kb) => (kb / 1024).toFixed(1);
const now = () => performance.timeOrigin + performance.now();
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

const bus = await startSessionBus();
const server = new RecordingServer();
await server.connect(bus.address);
process.env.DBUS_SESSION_BUS_ADDRESS = bus.address;
const broker = await startBroker("desktop");

function api(method, path, body, ui = false) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      `${broker.url}${ui ? "/ui/api" : ""}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${broker.token}`,
          ...(ui ? { "x-notify-ui": "1" } : {}),
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode, body: text ? JSON.parse(text) : undefined }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

const ms = (value) => value.toFixed(2);
const row = (name, summary) =>
  `| ${name} | ${summary.count} | ${ms(summary.p50)} | ${ms(summary.p90)} | ${ms(summary.p99)} | ${ms(summary.max)} |`;
const lines = [];
try {
  // Wait until the broker's adapter is connected (its first toast arrives).
  await api("PUT", "/presentation", { maxVisibleToasts: 20, soundsEnabled: false }, true);
  server.closeAfterMs = 0; // slots free at once: latency is not queueing
  await api("POST", "/v1/notifications", { title: "warmup", message: "w" });
  await server.waitFor("warmup");
  for (let index = 0; index < 50; index++) {
    await api("POST", "/v1/notifications", { title: `warm-${index}`, message: "w" });
    await server.waitFor(`warm-${index}`);
  }

  // 1. create -> Notify call, one at a time; beside it the POST's own response time and a bare Notify round trip.
  progress(`create-to-Notify: ${CREATES} sequential creates`);
  const toNotify = [];
  const postTimes = [];
  for (let index = 0; index < CREATES; index++) {
    const title = `c-${index}`;
    const started = now();
    const shown = server.waitFor(title);
    await api("POST", "/v1/notifications", { title, message: "latency" });
    postTimes.push(now() - started);
    toNotify.push((await shown).at - started);
  }
  const client = dbus.sessionBus({ busAddress: bus.address });
  await new Promise((resolve) => client.once("connect", resolve));
  const bare = [];
  for (let index = 0; index < CREATES; index++) {
    const started = now();
    await client.call(
      new dbus.Message({
        destination: "org.freedesktop.Notifications",
        path: "/org/freedesktop/Notifications",
        interface: "org.freedesktop.Notifications",
        member: "Notify",
        signature: "susssasa{sv}i",
        body: ["bench", 0, "", `bare-${index}`, "b", [], {}, 7000],
      }),
    );
    bare.push(now() - started);
  }
  client.disconnect();

  // 2. ActionInvoked -> the waiting agent's answer; beside it a POST /respond -> the same waiter.
  progress(`ActionInvoked-to-answer: ${ANSWERS} questions`);
  server.closeAfterMs = undefined; // a question's toast stays until it is answered
  const viaToast = [];
  const viaRespond = [];
  for (let index = 0; index < ANSWERS; index++) {
    for (const path of ["toast", "respond"]) {
      const toast = waitForBody(`q-${path}-${index}`);
      const asked = await api("POST", "/v1/interactions/request", { kind: "permission", prompt: `q-${path}-${index}` });
      const id = asked.body.id;
      const shown = await toast;
      const waiting = api("GET", `/v1/interactions/${id}/wait?timeout=30`);
      await sleep(2); // the long-poll is registered
      const started = now();
      if (path === "toast") server.invoke(shown.id, "choice:allow");
      else
        void api("POST", `/v1/interactions/${id}/respond`, {
          response_id: `r-${index}`,
          request_digest: asked.body.request_digest,
          nonce: asked.body.nonce,
          choice_id: "allow",
          source: "bench",
        });
      const answered = await waiting;
      if (answered.body.status !== "answered") throw new Error(`question ${id} not answered: ${answered.body.status}`);
      (path === "toast" ? viaToast : viaRespond).push(now() - started);
    }
  }

  // 3. A burst of creates (sent back to back on one connection, so request order is creation order) with
  // maxVisibleToasts N; the server expires each toast 20 ms after showing it, so the queue builds up.
  progress(`burst: ${BURST} creates, maxVisibleToasts ${MAX_VISIBLE}`);
  await api("PUT", "/presentation", { maxVisibleToasts: MAX_VISIBLE }, true);
  server.closeAfterMs = 20;
  let visible = 0;
  let maxSeen = 0;
  server.on("notify", () => {
    visible++;
    maxSeen = Math.max(maxSeen, visible);
  });
  const originalClose = server.iface.NotificationClosed.bind(server.iface);
  server.iface.NotificationClosed = (id, reason) => {
    visible--;
    return originalClose(id, reason);
  };
  const rssBefore = procMemory(broker.pid).rssKb;
  const firstCall = server.calls.length;
  const burstStart = now();
  for (let index = 0; index < BURST; index++) {
    const created = await api("POST", "/v1/notifications", { title: `b-${index}`, message: "burst" });
    if (created.status !== 201) throw new Error(`create ${index}: ${created.status}`);
  }
  const queuedAfterCreates = server.calls.length - firstCall;
  const createdIn = now() - burstStart;
  const rssPeakAfterCreates = procMemory(broker.pid).rssKb;
  await server.waitFor(`b-${BURST - 1}`);
  const drainedIn = now() - burstStart;
  await sleep(200);
  const shownTitles = server.calls.slice(firstCall).map((call) => call.summary);
  const expected = Array.from({ length: BURST }, (_, index) => `b-${index}`);
  const everyOne = shownTitles.length === BURST && new Set(shownTitles).size === BURST;
  const rssAfter = procMemory(broker.pid).rssKb;
  const rounds = [rssAfter];
  for (let round = 2; round <= ROUNDS; round++) {
    for (let index = 0; index < BURST; index++)
      await api("POST", "/v1/notifications", { title: `r${round}-${index}`, message: "burst" });
    await server.waitFor(`r${round}-${BURST - 1}`);
    await sleep(200);
    rounds.push(procMemory(broker.pid).rssKb);
  }

  const create = summarize(toNotify);
  const answer = summarize(viaToast);
  lines.push("| measure | n | p50 ms | p90 ms | p99 ms | max ms |", "|---|---|---|---|---|---|");
  lines.push(row("create -> Notify call (target p99 < 20)", create));
  lines.push(row("  baseline: the POST's own response", summarize(postTimes)));
  lines.push(row("  baseline: bare Notify round trip (dbus-next)", summarize(bare)));
  lines.push(row("ActionInvoked -> waiter's answer (target p99 < 10)", answer));
  lines.push(row("  baseline: POST /respond -> waiter's answer", summarize(viaRespond)));
  lines.push("");
  lines.push(
    `burst: ${BURST} creates with maxVisibleToasts ${MAX_VISIBLE}: created in ${ms(createdIn)} ms, all shown in ${ms(drainedIn)} ms`,
  );
  lines.push(
    `- Notify calls: ${shownTitles.length} (distinct ${new Set(shownTitles).size}), every one shown: ${everyOne}`,
  );
  lines.push(`- shown in creation order: ${JSON.stringify(shownTitles) === JSON.stringify(expected)}`);
  lines.push(
    `- toasts already shown when the last create returned: ${queuedAfterCreates} (the rest waited in the queue)`,
  );
  lines.push(`- most toasts open at once on the server: ${maxSeen}`);
  lines.push(
    `- broker RSS: ${(rssBefore / 1024).toFixed(1)} MB before, ${(rssPeakAfterCreates / 1024).toFixed(1)} MB after the creates, ${(rssAfter / 1024).toFixed(1)} MB after the queue drained (growth ${((rssAfter - rssBefore) / 1024).toFixed(1)} MB); after each of ${ROUNDS} bursts: ${rounds.map(mb).join(", ")} MB`,
  );
} finally {
  await broker.stop();
  server.disconnect();
  await bus.stop();
}

// Baseline for the RSS figure: the same broker build without a session bus (no presenter), the same warm-up count
// and the same burst, so the growth the toasts add can be told from the store's own.
progress("baseline: the same burst on a broker without a session bus");
delete process.env.DBUS_SESSION_BUS_ADDRESS;
const plain = await startBroker("desktop-baseline");
const plainApi = (path, body) =>
  fetch(`${plain.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${plain.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then((response) => response.status);
try {
  for (let index = 0; index < 51 + CREATES + 2 * ANSWERS; index++)
    await plainApi("/v1/notifications", { title: `w-${index}`, message: "w" });
  const before = procMemory(plain.pid).rssKb;
  for (let index = 0; index < BURST; index++)
    await plainApi("/v1/notifications", { title: `b-${index}`, message: "burst" });
  await sleep(200);
  const after = procMemory(plain.pid).rssKb;
  const plainRounds = [after];
  for (let round = 2; round <= ROUNDS; round++) {
    for (let index = 0; index < BURST; index++)
      await plainApi("/v1/notifications", { title: `r${round}-${index}`, message: "burst" });
    await sleep(200);
    plainRounds.push(procMemory(plain.pid).rssKb);
  }
  lines.push(
    `- baseline broker without a session bus, same warm-up and burst: RSS ${(before / 1024).toFixed(1)} MB before, ${(after / 1024).toFixed(1)} MB after (growth ${((after - before) / 1024).toFixed(1)} MB); after each of ${ROUNDS} bursts: ${plainRounds.map(mb).join(", ")} MB`,
  );
} finally {
  await plain.stop();
}
console.log(lines.join("\n"));

function waitForBody(body) {
  return new Promise((resolve) => {
    const listener = (call) => {
      if (call.body !== body) return;
      server.off("notify", listener);
      resolve(call);
    };
    server.on("notify", listener);
  });
}
