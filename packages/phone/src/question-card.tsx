import { checkFieldAnswer, formFieldOf } from "@notify/contracts/form-context";
import { agentDisplayName, isFollowUp } from "@notify/contracts/markdown";
import { useId, useState } from "react";
import { AgentMarkdown, TurnDetails } from "./agent-markdown.js";
import { AgentText, agentString } from "./agent-text.js";
import type { QuestionCard as Card } from "./cards.js";
import { reportReceipt } from "./relay-client.js";
import { ToolContextView } from "./tool-context.js";
import { remaining } from "./use-now.js";

export interface QuestionCardProps {
  card: Card;
  now: number;
  onChoice(choiceId: string, label: string): void;
  onText(text: string): void;
}

/** What a closed notice's interaction_status means to the person holding the phone. */
const CLOSED_TEXT: Record<string, string> = {
  answered: "Answered elsewhere",
  cancelled: "Cancelled: no answer needed",
  superseded: "Replaced by a newer question",
};

export function stateLine(card: Card): string | undefined {
  switch (card.state.kind) {
    case "open":
      return undefined;
    case "sending":
      return "Sending…";
    case "recorded":
      return `Sent: ${agentString(card.state.answer)}`;
    case "elsewhere":
      // An expiry is said by the countdown ("Expired"), which stays.
      if (card.state.status === "expired") return undefined;
      return CLOSED_TEXT[card.state.status ?? "answered"] ?? "Closed elsewhere";
    case "refused":
      // A 403 for a question that names its machine: that machine left this phone's owner (issue 37, item 2).
      if (card.state.status === 403 && card.question.machine)
        return `Not sent: ${agentString(card.question.machine)} has left this phone; answer it there`;
      return card.state.status === 403 ? "Not allowed to answer this (403)" : `Refused (${card.state.status})`;
    default: {
      const exhaustive: never = card.state;
      return exhaustive;
    }
  }
}

/**
 * One question (Phone behaviour 1 and 2): project, agent, the full prompt, what it asks about when a hook sent that
 * (a diff, a command, a URL), a countdown, its choices or a text box. A follow-up (the agent finished a turn, docs/hooks.md "Follow-ups") shows the agent's last message as Markdown and a
 * reply box.
 */
export function QuestionCard({ card, now, onChoice, onText }: QuestionCardProps) {
  const { question } = card;
  const [text, setText] = useState("");
  // A field of an MCP form shown on its own (its form's card has not come): checked here as the broker will.
  const [textError, setTextError] = useState<string | undefined>(undefined);
  const textId = useId();
  const errorId = `${textId}-error`;
  const field = formFieldOf(question.context);
  // The broker's expired notice wins over this phone's clock (which may run behind).
  const closedAsExpired = card.state.kind === "elsewhere" && card.state.status === "expired";
  const expired = closedAsExpired || Date.parse(question.expires_at) <= now;
  const disabled = expired || card.state.kind !== "open" || card.senderId === null;
  const status = stateLine(card);
  // A text answer this phone sent stays in its box, after a reload too (the card's state keeps it).
  const sentText = question.kind === "text" && card.state.kind === "recorded" ? card.state.answer : undefined;
  const followUp = isFollowUp(question);
  const agentName = agentString(agentDisplayName(question.agent));
  return (
    <article
      className={`card${disabled ? " card-closed" : ""}${followUp ? " follow-up" : ""}`}
      aria-label={
        followUp ? `${agentName} finished a turn` : `Question from ${agentString(question.agent ?? "an agent")}`
      }
      // Receipts (docs/relay.md): the person opened the card once they touch it or move into it (a choice, the box).
      onPointerDownCapture={() => void reportReceipt(card.envelopeId, "opened")}
      onFocusCapture={() => void reportReceipt(card.envelopeId, "opened")}
    >
      <p className="meta">
        <span className="project">
          <AgentText text={question.project ?? "No project"} />
        </span>
        <span className="agent">
          <AgentText text={question.agent ?? "unknown agent"} />
        </span>
        {/* One phone serves several machines (issue 37, item 2): the card names the one that asks. */}
        {question.machine !== undefined ? (
          <span className="machine">
            on <AgentText text={question.machine} />
          </span>
        ) : null}
      </p>
      {followUp ? (
        <>
          <p className="follow-up-title">{agentName} finished a turn</p>
          <div className="prompt follow-up-message">
            <AgentMarkdown text={question.prompt} />
          </div>
          {question.context?.kind === "turn" ? <TurnDetails context={question.context} agent={question.agent} /> : null}
        </>
      ) : (
        <>
          <p className="prompt">
            <AgentText text={question.prompt} />
          </p>
          {question.context !== undefined && question.context.kind !== "turn" && question.context.kind !== "form" ? (
            <ToolContextView context={question.context} />
          ) : null}
        </>
      )}
      {card.state.kind === "recorded" || (card.state.kind === "elsewhere" && !closedAsExpired) ? null : (
        <p className="countdown" role="timer">
          {expired ? "Expired" : `Expires in ${remaining(question.expires_at, now)}`}
        </p>
      )}
      {question.kind === "text" ? (
        <form
          className="text-answer"
          onSubmit={(event) => {
            event.preventDefault();
            if (text.trim() === "") return;
            const checked = field === undefined ? undefined : checkFieldAnswer(field, { text });
            if (checked !== undefined && !checked.ok) {
              setTextError(checked.error);
              return;
            }
            setTextError(undefined);
            onText(text);
          }}
        >
          <label htmlFor={textId}>
            {followUp ? `Reply to ${agentName} (sent as its next instruction)` : "Your answer"}
          </label>
          <textarea
            id={textId}
            value={sentText ?? text}
            readOnly={sentText !== undefined}
            maxLength={question.text_max_length}
            disabled={disabled}
            rows={3}
            aria-invalid={textError === undefined ? undefined : true}
            aria-describedby={textError === undefined ? undefined : errorId}
            onChange={(event) => setText(event.target.value)}
          />
          {textError === undefined ? null : (
            <p id={errorId} className="field-error">
              <AgentText text={textError} />
            </p>
          )}
          <p className="hint">
            {(sentText ?? text).length}/{question.text_max_length}
          </p>
          <button type="submit" disabled={disabled || text.trim() === ""}>
            Send
          </button>
        </form>
      ) : (
        <ul className="choices">
          {(question.choices ?? []).map((choice) => (
            <li key={choice.id}>
              <button type="button" disabled={disabled} onClick={() => onChoice(choice.id, choice.label)}>
                <AgentText text={choice.label} />
              </button>
              {choice.detail === undefined ? null : (
                <p className="detail">
                  <AgentText text={choice.detail} />
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {status === undefined ? null : (
        <p className="state" role="status">
          {status}
        </p>
      )}
    </article>
  );
}
