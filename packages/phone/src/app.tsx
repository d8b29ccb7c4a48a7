import { isFollowUp } from "@notify/contracts/markdown";
import { backoffMs, delay } from "@notify/contracts/retry";
import type { SessionsPayload } from "@notify/contracts/sessions";
import { useCallback, useEffect, useRef, useState } from "react";
import { AddMachine } from "./add-machine.js";
import { deliver, pendingBodies, type SendOutcome, sendAnswer } from "./answer-sender.js";
import { type CardState, type NoticeCard, type Opened, openCard, type QuestionCard } from "./cards.js";
import { deviceKeys } from "./device-keys.js";
import type { Answer } from "./form-card.js";
import { InboxList } from "./inbox-list.js";
import { NotificationsToggle } from "./notifications-toggle.js";
import { PairScreen } from "./pair-screen.js";
import { claim, envelopes, RelayStatusError } from "./relay-client.js";
import { SessionsView } from "./sessions-view.js";
import { type DeviceKeys, get, type Pairing, put, remove, UNPAIRED_REASON, wipePairing } from "./storage.js";
import { useNow } from "./use-now.js";

/** Between two failed polls of the relay: 2 s, doubling, at most 30 s, with jitter. */
const POLL_BACKOFF = { baseMs: 2_000, maxMs: 30_000 };

interface Inbox {
  questions: QuestionCard[];
  notices: NoticeCard[];
  /** Each machine's newest sessions summary, by the envelope's sender (installation) id (issue 37, item 1). */
  sessions?: Record<string, SessionsPayload>;
}

/** A name the owner recognises in `notify relay devices`. */
function deviceName(): string {
  const platform = /Android/.test(navigator.userAgent)
    ? "Android"
    : /iPhone|iPad/.test(navigator.userAgent)
      ? "iPhone"
      : "Browser";
  return `${platform} phone`;
}

export function App() {
  const [pairing, setPairing] = useState<Pairing | null | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [inbox, setInbox] = useState<Inbox>({ questions: [], notices: [] });
  const keys = useRef<DeviceKeys | undefined>(undefined);
  const now = useNow();

  const unpair = useCallback(async (why: string) => {
    // The reason is kept until the next pairing: the app opened again later (or reloaded at once) still says why.
    await wipePairing(why);
    keys.current = undefined;
    setInbox({ questions: [], notices: [] });
    setPairing(null);
    setMessage(why);
  }, []);

  const pair = useCallback(async (code: string) => {
    setBusy(true);
    setMessage("Pairing…");
    try {
      const made = await deviceKeys();
      const claimed = await claim(code, deviceName(), made.publicJwk);
      const stored: Pairing = {
        deviceId: claimed.device_id,
        token: claimed.token,
        ownerId: claimed.owner_id,
        deviceName: deviceName(),
      };
      await put("pairing", stored);
      await remove(UNPAIRED_REASON);
      keys.current = made;
      setPairing(stored);
      setMessage(undefined);
    } catch (error) {
      setMessage(
        error instanceof RelayStatusError && error.status === 400
          ? "That code is unknown, used or expired. Ask for a new one."
          : "Pairing failed. Check the connection and try again.",
      );
    } finally {
      setBusy(false);
    }
  }, []);

  // Start: the stored pairing, or the code in the link (/app/#pair=<code>), which is removed from the address. A
  // link opened while the app is already showing arrives as a hash change.
  useEffect(() => {
    const fromHash = (): string | null => {
      const code = new URLSearchParams(location.hash.slice(1)).get("pair");
      if (code) history.replaceState(null, "", location.pathname);
      return code;
    };
    const onHash = () => {
      const code = fromHash();
      if (code) void get<Pairing>("pairing").then((stored) => (stored ? undefined : pair(code)));
    };
    window.addEventListener("hashchange", onHash);
    void (async () => {
      const stored = (await get<Pairing>("pairing")) ?? null;
      const code = fromHash();
      if (stored) {
        keys.current = await get<DeviceKeys>("keys");
        setInbox((await get<Inbox>("cards")) ?? { questions: [], notices: [] });
        setPairing(stored);
        return;
      }
      setMessage(await get<string>(UNPAIRED_REASON));
      setPairing(null);
      if (code) await pair(code);
    })();
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register("/app/sw.js", { scope: "/app/", type: "module" }).catch(() => {});
    }
    return () => window.removeEventListener("hashchange", onHash);
  }, [pair]);

  const update = useCallback((change: (inbox: Inbox) => Inbox) => {
    setInbox((current) => {
      const next = change(current);
      void put("cards", next);
      return next;
    });
  }, []);

  const setState = useCallback(
    (interactionId: string, state: CardState) =>
      update((current) => ({
        ...current,
        questions: current.questions.map((card) => (card.question.id === interactionId ? { ...card, state } : card)),
      })),
    [update],
  );

  const settle = useCallback(
    async (interactionId: string, outcome: SendOutcome) => {
      if (outcome.kind === "unpaired") await unpair("This phone was unpaired. Pair it again to get questions.");
      else setState(interactionId, outcome);
    },
    [setState, unpair],
  );

  // While open: envelopes by long poll, decrypted here. 401 unpairs; 403 and failures back off and keep it.
  useEffect(() => {
    if (!pairing) return;
    const controller = new AbortController();
    void (async () => {
      for (const [interactionId, stored] of Object.entries(await pendingBodies())) {
        void deliver(interactionId, stored.body, stored.expiresAt, stored.label, pairing).then((outcome) =>
          settle(interactionId, outcome),
        );
      }
      let failures = 0;
      while (!controller.signal.aborted) {
        try {
          const cursor = await get<string>("cursor");
          const page = await envelopes(pairing.token, cursor, 25, controller.signal);
          failures = 0;
          const key = keys.current?.privateKey;
          const opened: Opened[] = [];
          for (const row of page.envelopes) {
            if (key) opened.push(await openCard(row.envelope_id, row.envelope, pairing.deviceId, key));
          }
          update((current) => {
            const next = { ...current, questions: [...current.questions], notices: [...current.notices] };
            for (const card of opened) {
              if (card && "sessions" in card) {
                // One summary per machine: the newest replaces the one before (envelopes may arrive out of order).
                const machine = card.sessions.senderId ?? "";
                const known = next.sessions?.[machine];
                if (known === undefined || Date.parse(known.sent_at) <= Date.parse(card.sessions.summary.sent_at)) {
                  next.sessions = { ...next.sessions, [machine]: card.sessions.summary };
                }
              } else if (card && "question" in card) {
                if (!next.questions.some((known) => known.question.id === card.question.question.id)) {
                  next.questions.unshift(card.question);
                }
              } else if (card && "notice" in card) {
                // Beyond v1: a notice that a question settled elsewhere closes its card instead of listing. A
                // question's companion notification (interaction_id, no status) is not listed: its card says it.
                const { interaction_id: closed, interaction_status: status } = card.notice.notification;
                if (closed !== undefined && status === undefined) continue;
                if (closed !== undefined) {
                  // A follow-up nobody needs to answer any more (the person typed at the terminal, or it was
                  // cancelled or replaced) leaves the inbox: a finished turn that went on is nothing to act on.
                  const withdrawn = status === "cancelled" || status === "superseded";
                  next.questions = next.questions.filter(
                    (known) => !(withdrawn && known.question.id === closed && isFollowUp(known.question)),
                  );
                  next.questions = next.questions.map((known) =>
                    known.question.id === closed && known.state.kind === "open"
                      ? { ...known, state: { kind: "elsewhere", status: status ?? "answered" } }
                      : known,
                  );
                } else next.notices.unshift(card.notice);
              }
            }
            return next;
          });
          await put("cursor", page.next_cursor);
        } catch (error) {
          if (controller.signal.aborted) return;
          if (error instanceof RelayStatusError && error.status === 401) {
            await unpair("This phone was unpaired. Pair it again to get questions.");
            return;
          }
          failures++;
          await delay(backoffMs(failures, POLL_BACKOFF), controller.signal);
        }
      }
    })();
    return () => controller.abort();
  }, [pairing, update, unpair, settle]);

  /** One answer: the card shows it sending, then how it ended; resolves with that. */
  const send = useCallback(
    async (card: QuestionCard, value: Answer) => {
      if (!pairing) return { kind: "open" } as const;
      setState(card.question.id, { kind: "sending" });
      const outcome = await sendAnswer(card, pairing, value);
      await settle(card.question.id, outcome);
      return outcome;
    },
    [pairing, setState, settle],
  );
  const answer = useCallback((card: QuestionCard, value: Answer) => void send(card, value), [send]);

  if (pairing === undefined) return <main aria-busy="true" />;
  if (pairing === null) return <PairScreen busy={busy} message={message} onPair={pair} />;
  return (
    <main>
      <header className="top">
        <h1>Notify</h1>
        <p className="paired">Paired as {pairing.deviceName}</p>
      </header>
      <SessionsView machines={Object.values(inbox.sessions ?? {})} now={now} />
      <NotificationsToggle token={pairing.token} />
      <InboxList
        questions={inbox.questions}
        notices={inbox.notices}
        now={now}
        onChoice={(card, choice_id, label) => answer(card, { choice_id, label })}
        onText={(card, text) => answer(card, { text })}
        onSend={send}
      />
      <AddMachine token={pairing.token} />
    </main>
  );
}
