/// <reference lib="webworker" />
import { sessionsSummary } from "@notify/contracts/sessions";
import { openCard } from "./cards.js";
import { formContextOf } from "./form-groups.js";
import { envelopes } from "./relay-client.js";
import { type DeviceKeys, get, type Pairing } from "./storage.js";

declare const self: ServiceWorkerGlobalScope;

self.addEventListener("install", () => {
  void self.skipWaiting();
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/**
 * A push carries only `{envelope_id, version}` (nothing readable travels in it). Browsers require a visible
 * notification for every push, so one is always shown: titled from the decrypted question when the envelope can
 * be fetched and opened, else a generic one. The page's cursor is not moved: the open page fetches the same
 * envelopes and renders the cards. An already expired question makes no sound (Phone behaviour 2). The questions of
 * one MCP form share one notification.
 */
self.addEventListener("push", (event) => {
  event.waitUntil(
    (async () => {
      let title = "Notify";
      let body = "A question is waiting";
      let silent = false;
      let tag: string | undefined;
      try {
        const pushed = (event.data?.json() ?? {}) as { envelope_id?: string };
        const pairing = await get<Pairing>("pairing");
        const keys = await get<DeviceKeys>("keys");
        if (pairing && keys) {
          const cursor = await get<string>("cursor");
          const page = await envelopes(pairing.token, cursor, 0);
          const row = page.envelopes.find((item) => item.envelope_id === pushed.envelope_id) ?? page.envelopes.at(-1);
          let opened = row ? await openCard(row.envelope_id, row.envelope, pairing.deviceId, keys.privateKey) : null;
          // A question's companion notification (interaction_id, no status) is shown as its question when the
          // question's envelope is in the same page: the person sees the question once, with its prompt.
          const companionOf =
            opened && "notice" in opened && opened.notice.notification.interaction_status === undefined
              ? opened.notice.notification.interaction_id
              : undefined;
          if (companionOf !== undefined) {
            for (const other of page.envelopes) {
              const candidate = await openCard(other.envelope_id, other.envelope, pairing.deviceId, keys.privateKey);
              if (candidate && "question" in candidate && candidate.question.question.id === companionOf) {
                opened = candidate;
                break;
              }
            }
          }
          if (opened && "question" in opened) {
            const question = opened.question.question;
            // An MCP form's questions (a push each) share one notification that says the form, not a field: the
            // later pushes replace it without a sound (renotify is off), as the inbox shows the form as one card.
            const form = formContextOf(opened.question);
            const text = form === undefined ? question.prompt : `${form.server} (MCP): ${form.message}`;
            title = [question.project, question.agent].filter(Boolean).join(" · ") || "Notify";
            body = text.length > 180 ? `${text.slice(0, 179)}…` : text;
            silent = Date.parse(question.expires_at) <= Date.now();
            tag = form === undefined ? question.id : `form:${form.form}`;
          } else if (opened && "sessions" in opened) {
            // A machine's sessions summary (issue 37, item 1) asks nothing: one quiet line, replaced by the next,
            // and none at all when a notification already shows (a push must leave one visible, not add one).
            if ((await self.registration.getNotifications()).length > 0) return;
            const { summary } = opened.sessions;
            title = `Notify · ${summary.machine}`;
            body = sessionsSummary(summary.sessions) ?? "No agent at work";
            silent = true;
            tag = "sessions";
          } else if (opened && "notice" in opened) {
            title = opened.notice.notification.title;
            body = opened.notice.notification.message ?? "";
            tag = opened.notice.notification.interaction_id ?? opened.notice.notification.id;
          }
        }
      } catch {
        // Fall back to the generic notification: one must be shown either way.
      }
      await self.registration.showNotification(title, {
        body,
        silent,
        icon: "/app/icon-192.png",
        ...(tag ? { tag } : {}),
      });
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window" });
      const open = windows.find((client) => new URL(client.url).pathname.startsWith("/app/"));
      if (open) await open.focus();
      else await self.clients.openWindow("/app/");
    })(),
  );
});
