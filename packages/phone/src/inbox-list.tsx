import { useEffect } from "react";
import { AgentText, agentString } from "./agent-text.js";
import type { SendOutcome } from "./answer-sender.js";
import { groupKey, type NoticeCard, type QuestionCard as Question } from "./cards.js";
import { type Answer, FormCard } from "./form-card.js";
import { arrange } from "./form-groups.js";
import { QuestionCard } from "./question-card.js";
import { reportReceipt } from "./relay-client.js";

/**
 * Receipts (docs/relay.md, "Receipts"): every envelope listed is `shown` once the page is on screen (at once, or when
 * it next becomes visible).
 */
function useShownReceipts(envelopeIds: string[]): void {
  const ids = envelopeIds.join(" ");
  useEffect(() => {
    if (ids === "") return;
    const report = () => {
      if (document.visibilityState !== "visible") return false;
      for (const id of ids.split(" ")) void reportReceipt(id, "shown");
      return true;
    };
    if (report()) return;
    const onVisible = () => {
      if (report()) document.removeEventListener("visibilitychange", onVisible);
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [ids]);
}

export interface InboxProps {
  questions: Question[];
  notices: NoticeCard[];
  now: number;
  onChoice(card: Question, choiceId: string, label: string): void;
  onText(card: Question, text: string): void;
  /** One answer of an MCP form's card, resolved when the relay took it or refused it. */
  onSend(card: Question, answer: Answer): Promise<SendOutcome>;
}

interface Group {
  key: string;
  project: string | undefined;
  senderId: string | null;
  questions: Question[];
  notices: NoticeCard[];
}

/** Phone behaviour 6: one group per (envelope sender_id, normalized project), with an explicit "No project" group. */
export function InboxList({ questions, notices, now, onChoice, onText, onSend }: InboxProps) {
  const groups = new Map<string, Group>();
  const groupOf = (senderId: string | null, project: string | null | undefined): Group => {
    const key = groupKey({ senderId, project });
    let group = groups.get(key);
    if (!group) {
      const name = project?.trim();
      group = { key, project: name === "" ? undefined : name, senderId, questions: [], notices: [] };
      groups.set(key, group);
    }
    return group;
  };
  for (const card of questions) groupOf(card.senderId, card.question.project).questions.push(card);
  for (const notice of notices) groupOf(notice.senderId, notice.notification.project).notices.push(notice);
  const senders = new Set([...groups.values()].map((group) => group.senderId));
  useShownReceipts([...questions.map((card) => card.envelopeId), ...notices.map((notice) => notice.envelopeId)]);
  if (groups.size === 0) return <p className="empty">No questions. Answers you give here go straight to the agent.</p>;
  return (
    <>
      {[...groups.values()].map((group) => (
        <section key={group.key} className="group" aria-label={agentString(group.project ?? "No project")}>
          <h2>
            <AgentText text={group.project ?? "No project"} />
            {senders.size > 1 && group.senderId ? (
              <span className="sender"> · {group.senderId.slice(0, 12)}</span>
            ) : null}
          </h2>
          {arrange(group.questions, now).map((shown) =>
            shown.kind === "form" ? (
              <FormCard
                key={shown.decision.envelopeId}
                decision={shown.decision}
                context={shown.context}
                fields={shown.fields}
                now={now}
                onSend={onSend}
              />
            ) : shown.kind === "gathering" ? (
              <p key={`gathering-${shown.form}`} className="form-gathering hint" role="status">
                A form from <AgentText text={shown.server} /> is arriving…
              </p>
            ) : (
              <QuestionCard
                key={shown.card.envelopeId}
                card={shown.card}
                now={now}
                onChoice={(choiceId, label) => onChoice(shown.card, choiceId, label)}
                onText={(text) => onText(shown.card, text)}
              />
            ),
          )}
          {group.notices.map((notice) => (
            <article
              key={notice.envelopeId}
              className="notice"
              aria-label={agentString(notice.notification.title)}
              onPointerDown={() => void reportReceipt(notice.envelopeId, "opened")}
            >
              <p className="meta">
                <span className="agent">
                  <AgentText text={notice.notification.agent} />
                </span>
              </p>
              <h3>
                <AgentText text={notice.notification.title} />
              </h3>
              {notice.notification.message ? (
                <p className="message">
                  <AgentText text={notice.notification.message} />
                </p>
              ) : null}
            </article>
          ))}
        </section>
      ))}
    </>
  );
}
