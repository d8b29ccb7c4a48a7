/// <reference lib="webworker" />
import { sessionsSummary } from "@notify/contracts/sessions";
import { type Opened, openCard, type QuestionCard } from "./cards.js";
import { formContextOf } from "./form-groups.js";
import { COLLAPSE_SETTING, QUESTIONS_TAG, RECOUNT_MESSAGE, REPLACE_FINISHED_SETTING } from "./push-settings.js";
import { envelopes, reportReceipt } from "./relay-client.js";
import { type DeviceKeys, get, type Pairing } from "./storage.js";

declare const self: ServiceWorkerGlobalScope;

self.addEventListener("install", () => {
  void self.skipWaiting();
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** A question's notification: the question's own tag, or its form's (one per MCP form). */
const questionTag = (opened: { question: QuestionCard }): string => {
  const form = formContextOf(opened.question);
  return form === undefined ? opened.question.question.id : `form:${form.form}`;
};

interface OpenQuestion {
  /** One per question, or per MCP form (a form counts once). */
  key: string;
  /** Who asks: machine, agent and session (or project when the agent names no session). */
  who: string;
  card: QuestionCard;
}

/**
 * The questions still open, as far as this phone knows: the page's cards (their states kept in IndexedDB by the
 * page) and the envelopes the page has not fetched yet (`fetched`, in order), less those a status notice closed
 * and those expired.
 */
async function openQuestions(fetched: Opened[]): Promise<OpenQuestion[]> {
  const open = new Map<string, QuestionCard>();
  const closed = new Set<string>();
  const cards = (await get<{ questions?: QuestionCard[] }>("cards"))?.questions ?? [];
  for (const card of cards) {
    if (card.state.kind === "open" || card.state.kind === "sending") open.set(card.question.id, card);
    else closed.add(card.question.id);
  }
  for (const opened of fetched) {
    if (opened && "question" in opened) {
      if (!closed.has(opened.question.question.id)) open.set(opened.question.question.id, opened.question);
    } else if (opened && "notice" in opened) {
      const { interaction_id: id, interaction_status: status } = opened.notice.notification;
      if (id !== undefined && status !== undefined && status !== "pending") {
        closed.add(id);
        open.delete(id);
      }
    }
  }
  const now = Date.now();
  const byKey = new Map<string, OpenQuestion>();
  for (const card of open.values()) {
    if (Date.parse(card.question.expires_at) <= now) continue;
    const key = questionTag({ question: card });
    const { machine, agent, session_id: session, project } = card.question;
    byKey.set(key, { key, who: [machine ?? "", agent ?? "", session ?? project ?? ""].join("\n"), card });
  }
  return [...byKey.values()];
}

const COUNT_BODY = "Open Notify to answer them";

/**
 * One question's notification: its project and agent, its prompt (an MCP form's questions share one notification
 * that says the form, not a field), no sound once expired (Phone behaviour 2).
 */
function questionNotification(card: QuestionCard): { title: string; body: string; tag: string; silent: boolean } {
  const asked = card.question;
  const form = formContextOf(card);
  const text = form === undefined ? asked.prompt : `${form.server} (MCP): ${form.message}`;
  return {
    title: [asked.project, asked.agent].filter(Boolean).join(" · ") || "Notify",
    body: text.length > 180 ? `${text.slice(0, 179)}…` : text,
    tag: questionTag({ question: card }),
    silent: Date.parse(asked.expires_at) <= Date.now(),
  };
}

/** "3 questions from 2 agents". */
function countTitle(questions: OpenQuestion[]): string {
  const agents = new Set(questions.map((question) => question.who)).size;
  const count = questions.length;
  return `${count} ${count === 1 ? "question" : "questions"} from ${agents} ${agents === 1 ? "agent" : "agents"}`;
}

/** Closes this origin's question notifications (the count's and each question's), but the one tagged `keep`. */
async function closeQuestionNotifications(keep?: string): Promise<void> {
  for (const shown of await self.registration.getNotifications()) {
    const data = shown.data as { question?: boolean } | null;
    if (data?.question === true && shown.tag !== keep) shown.close();
  }
}

/**
 * A push carries only `{envelope_id, version}` (nothing readable travels in it). Browsers require a visible
 * notification for every push, so one is shown: titled from the decrypted question when the envelope can be fetched
 * and opened, else a generic one. The page's cursor is not moved: the open page fetches the same envelopes and
 * renders the cards. An already expired question makes no sound (Phone behaviour 2). The questions of one MCP form
 * share one notification.
 *
 * Less noise (issue 37, item 4; docs/phone.md): while two or more questions are open, they share ONE notification
 * that counts them ("3 questions from 2 agents"), replaced rather than stacked (a new question sounds, a settle does
 * not); one open question shows as itself; none open closes them all. A session's successive "finished"
 * notifications share one tag, so the newest replaces the last. Both are phone settings, on unless turned off.
 */
self.addEventListener("push", (event) => {
  event.waitUntil(
    (async () => {
      let title = "Notify";
      let body = "A question is waiting";
      let silent = false;
      let tag: string | undefined;
      let question = false;
      let pushed: { envelope_id?: string } = {};
      try {
        pushed = (event.data?.json() ?? {}) as { envelope_id?: string };
        const pairing = await get<Pairing>("pairing");
        const keys = await get<DeviceKeys>("keys");
        if (pairing && keys) {
          const cursor = await get<string>("cursor");
          const page = await envelopes(pairing.token, cursor, 0);
          const fetched: Opened[] = [];
          for (const row of page.envelopes) {
            fetched.push(await openCard(row.envelope_id, row.envelope, pairing.deviceId, keys.privateKey));
          }
          const at = page.envelopes.findIndex((item) => item.envelope_id === pushed.envelope_id);
          let opened = fetched[at === -1 ? fetched.length - 1 : at] ?? null;
          // A question's companion notification (interaction_id, no status) is shown as its question when the
          // question's envelope is in the same page: the person sees the question once, with its prompt.
          const companionOf =
            opened && "notice" in opened && opened.notice.notification.interaction_status === undefined
              ? opened.notice.notification.interaction_id
              : undefined;
          if (companionOf !== undefined) {
            const found = fetched.find(
              (other) => other && "question" in other && other.question.question.id === companionOf,
            );
            if (found) opened = found;
          }
          const status = opened && "notice" in opened ? opened.notice.notification.interaction_status : undefined;
          const isQuestion = opened !== null && "question" in opened;
          const collapse = (await get<boolean>(COLLAPSE_SETTING)) !== false;
          const waiting = collapse && (isQuestion || status !== undefined) ? await openQuestions(fetched) : undefined;
          if (waiting !== undefined && waiting.length === 0 && !isQuestion) {
            // The last open question settled: nothing is left to show.
            await closeQuestionNotifications();
            return;
          }
          if (waiting !== undefined && waiting.length >= 2) {
            title = countTitle(waiting);
            body = COUNT_BODY;
            tag = QUESTIONS_TAG;
            question = true;
            // A new question sounds; a settle only updates the count.
            silent = !isQuestion;
            await closeQuestionNotifications(QUESTIONS_TAG);
          } else if (isQuestion || waiting?.length === 1) {
            // One question: shown as itself (a settle that leaves one shows the one left, without a sound).
            const card = isQuestion
              ? (opened as { question: QuestionCard }).question
              : ((waiting as OpenQuestion[])[0] as OpenQuestion).card;
            ({ title, body, tag, silent } = questionNotification(card));
            if (!isQuestion) silent = true;
            question = true;
            if (collapse) await closeQuestionNotifications(tag);
          } else if (opened && "sessions" in opened) {
            // A machine's sessions summary (issue 37, item 1) asks nothing: one quiet line, replaced by the next,
            // and none at all when a notification already shows (a push must leave one visible, not add one).
            if ((await self.registration.getNotifications()).length > 0) return;
            title = `Notify · ${opened.sessions.summary.machine}`;
            body = sessionsSummary(opened.sessions.summary.sessions) ?? "No agent at work";
            silent = true;
            tag = "sessions";
          } else if (opened && "notice" in opened) {
            const notice = opened.notice.notification;
            title = notice.title;
            body = notice.message ?? "";
            const replace = (await get<boolean>(REPLACE_FINISHED_SETTING)) !== false;
            // One "finished" notification per session (its key): the newest replaces the last.
            tag =
              replace && notice.type === "completed" && notice.key !== undefined
                ? `finished:${notice.key}`
                : (notice.interaction_id ?? notice.id);
          }
        }
      } catch {
        // Fall back to the generic notification: one must be shown either way.
      }
      // The count's notification is replaced, not stacked; a new question makes it sound again (renotify).
      const options: NotificationOptions & { renotify?: boolean } = {
        body,
        silent,
        icon: "/app/icon-192.png",
        data: { question, ...(pushed.envelope_id ? { envelope_id: pushed.envelope_id } : {}) },
        ...(tag ? { tag } : {}),
        ...(tag === QUESTIONS_TAG && !silent ? { renotify: true } : {}),
      };
      await self.registration.showNotification(title, options);
      // Receipts (issue 37, item 3; docs/relay.md, "Receipts"): the pushed envelope is now on the lock screen.
      if (pushed.envelope_id) await reportReceipt(pushed.envelope_id, "shown");
    })(),
  );
});

/** The page asks for a recount (it answered or closed cards): the count is updated, or closed when none is open. */
self.addEventListener("message", (event) => {
  if ((event.data as { type?: string } | null)?.type !== RECOUNT_MESSAGE) return;
  event.waitUntil(
    (async () => {
      if ((await get<boolean>(COLLAPSE_SETTING)) === false) return;
      const shown = await self.registration.getNotifications({ tag: QUESTIONS_TAG });
      if (shown.length === 0) return;
      const waiting = await openQuestions([]);
      if (waiting.length >= 2) {
        await self.registration.showNotification(countTitle(waiting), {
          body: COUNT_BODY,
          silent: true,
          icon: "/app/icon-192.png",
          data: { question: true },
          tag: QUESTIONS_TAG,
        });
      } else if (waiting.length === 0) {
        await closeQuestionNotifications();
      }
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const tapped = (event.notification.data as { envelope_id?: string } | null)?.envelope_id;
  event.waitUntil(
    (async () => {
      if (tapped) await reportReceipt(tapped, "opened");
      const windows = await self.clients.matchAll({ type: "window" });
      const open = windows.find((client) => new URL(client.url).pathname.startsWith("/app/"));
      if (open) await open.focus();
      else await self.clients.openWindow("/app/");
    })(),
  );
});
