import { agentDisplayName, isFollowUp } from "@notify/contracts/markdown";
import type { UiInteraction, UiRespondBody } from "@notify/contracts/ui";
import { useEffect, useState } from "react";
import { AgentMarkdown, TurnDetails } from "../agent-markdown.js";
import { AgentText, agentString } from "../agent-text.js";
import { ApiError, api } from "../api/client.js";
import { inboxStore } from "../api/inbox-store.js";
import { countdown, shortTime } from "../format.js";
import { Link } from "../navigation.js";
import { ToolContextDetails } from "../tool-context.js";
import { FormCard } from "./form-card.js";

const KIND_LABEL = { permission: "Permission", single_choice: "Choice", text: "Text answer" };

/** Cards whose answer lost to another one; kept across the list's unmounting of rows that scroll away. */
const answeredElsewhere = new Set<string>();

type Sending =
  | { state: "idle" }
  | { state: "sending" }
  | { state: "failed"; message: string; retry?: UiRespondBody }
  | { state: "elsewhere" };

/**
 * A question from an agent: the full prompt, what it asks about when a hook sent that (a diff, a command, a URL:
 * docs/hooks.md, "Approvals with context: what you see"), and a way to answer it while it is open. A follow-up (the
 * agent finished a turn, docs/hooks.md "Follow-ups") shows the agent's last message as Markdown and a reply box.
 */
export function QuestionCard({
  interaction: q,
  detailLink = true,
}: {
  interaction: UiInteraction;
  detailLink?: boolean;
}) {
  // An MCP form's decision question is the form's card (its field questions are no cards of their own: one-item.ts).
  if (q.form !== undefined && q.form.field === undefined) return <FormCard interaction={q} detailLink={detailLink} />;
  const promptId = `q-${q.id}`;
  const followUp = isFollowUp(q);
  return (
    <article
      className={`card question status-${q.status}${followUp ? " follow-up" : ""}`}
      aria-labelledby={promptId}
      data-item-id={q.id}
    >
      <div className="meta">
        <span className="badge question-badge">{followUp ? "Follow-up" : `Question · ${KIND_LABEL[q.kind]}`}</span>
        <span className="who">
          <AgentText text={q.agent} />
        </span>
        {q.project && (
          <span className="who">
            <AgentText text={q.project} />
          </span>
        )}
        <time dateTime={q.created_at}>{shortTime(q.created_at)}</time>
        {q.status === "pending" && <Countdown expiresAt={q.expires_at} />}
        {detailLink && (
          <Link className="details" href={`/ui/questions/${encodeURIComponent(q.id)}`} aria-label="Question details">
            Details
          </Link>
        )}
      </div>
      {followUp ? (
        <>
          <h2 id={promptId} className="follow-up-title">
            <AgentText text={`${agentDisplayName(q.agent)} finished a turn`} />
          </h2>
          <div className="prompt follow-up-message">
            <AgentMarkdown text={q.prompt} />
          </div>
          {q.has_context ? <TurnDetails interactionId={q.id} agent={q.agent} /> : null}
        </>
      ) : (
        <>
          <h2 id={promptId} className="prompt">
            <AgentText text={q.prompt} />
          </h2>
          {q.has_context ? <ToolContextDetails interactionId={q.id} requestDigest={q.request_digest} /> : null}
        </>
      )}
      {q.status === "pending" && !answeredElsewhere.has(q.id) ? <Answer q={q} /> : <Outcome q={q} />}
    </article>
  );
}

export function Countdown({ expiresAt }: { expiresAt: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const left = Date.parse(expiresAt) - now;
  return (
    <span className="countdown" title={`Expires ${new Date(expiresAt).toLocaleString()}`}>
      {left > 0 ? `expires in ${countdown(left)}` : "expiring"}
    </span>
  );
}

function Answer({ q }: { q: UiInteraction }) {
  const [sending, setSending] = useState<Sending>({ state: "idle" });
  const [text, setText] = useState("");
  const textId = `a-${q.id}`;

  // One response_id per click, made here and kept for a retry of the same answer
  // (docs/api.md, "POST /v1/interactions/{id}/respond": replay).
  const send = async (body: UiRespondBody) => {
    setSending({ state: "sending" });
    try {
      const answered = await api.respond(q.id, body);
      inboxStore.apply({ kind: "interaction", item: answered });
      setSending({ state: "idle" });
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        answeredElsewhere.add(q.id);
        setSending({ state: "elsewhere" });
        api.interaction(q.id).then(
          (current) => inboxStore.apply({ kind: "interaction", item: current }),
          () => {},
        );
      } else if (error instanceof ApiError && error.status < 500) {
        setSending({ state: "failed", message: error.message });
      } else {
        setSending({ state: "failed", message: "Could not reach the broker.", retry: body });
      }
    }
  };
  const bodyFor = (answer: { choice_id: string } | { text: string }): UiRespondBody => ({
    response_id: crypto.randomUUID(),
    request_digest: q.request_digest,
    nonce: q.nonce,
    ...answer,
  });

  if (sending.state === "elsewhere") {
    return (
      <p className="outcome conflict" role="status">
        This question was answered elsewhere.
      </p>
    );
  }
  const busy = sending.state === "sending";
  return (
    <div className="answer">
      {q.kind === "text" ? (
        <form
          className="text-answer"
          onSubmit={(event) => {
            event.preventDefault();
            if (text.length > 0) void send(bodyFor({ text }));
          }}
        >
          <label htmlFor={textId}>
            {isFollowUp(q)
              ? `Reply to ${agentString(agentDisplayName(q.agent))} (sent as its next instruction)`
              : "Your answer"}
          </label>
          <textarea
            id={textId}
            value={text}
            maxLength={q.text_max_length}
            rows={3}
            onChange={(event) => setText(event.target.value)}
            aria-describedby={`${textId}-count`}
          />
          <div className="text-foot">
            <span id={`${textId}-count`} className="muted">
              {text.length} / {q.text_max_length}
            </span>
            <button type="submit" className="primary" disabled={busy || text.length === 0}>
              Send
            </button>
          </div>
        </form>
      ) : (
        <ul className="choices">
          {q.choices.map((choice) => (
            <li key={choice.id}>
              <button
                type="button"
                className={q.kind === "permission" && choice.id !== "deny" ? "primary" : "choice"}
                disabled={busy}
                aria-describedby={choice.detail ? `${q.id}-${choice.id}-detail` : undefined}
                onClick={() => void send(bodyFor({ choice_id: choice.id }))}
              >
                <AgentText text={choice.label} />
              </button>
              {choice.detail && (
                <p id={`${q.id}-${choice.id}-detail`} className="choice-detail">
                  <AgentText text={choice.detail} />
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {sending.state === "failed" && (
        <p className="error" role="alert">
          {sending.message}{" "}
          {sending.retry && (
            <button type="button" onClick={() => sending.retry && void send(sending.retry)}>
              Retry
            </button>
          )}
        </p>
      )}
    </div>
  );
}

export function Outcome({ q }: { q: UiInteraction }) {
  const elsewhere = answeredElsewhere.has(q.id);
  let text: string;
  switch (q.status) {
    case "answered":
      text = answeredText(q);
      break;
    case "expired":
      text = `Expired at ${shortTime(q.expires_at)} without an answer`;
      break;
    case "cancelled":
      text = "Cancelled by the agent";
      break;
    case "superseded":
      text = "Replaced by a newer question";
      break;
    default:
      text = "Waiting for the broker…";
  }
  return (
    <p className={`outcome outcome-${q.status}`} role="status">
      {elsewhere && <strong>Answered elsewhere. </strong>}
      {text}
    </p>
  );
}

/**
 * Who answered, in words (docs/api.md, /ui/api): the page's own answers carry `answered_via: "ui"` (their stored
 * `source` is `desktop`, as a toast's answer is); the relay's are the phone's.
 */
export function answeredBy(q: UiInteraction): string {
  const source = q.response?.source;
  if (q.answered_via === "ui") return " from this computer's web page";
  switch (source) {
    case undefined:
      return "";
    case "desktop":
      return " from a desktop notification";
    case "relay":
    case "phone":
      return " on the phone";
    case "cli":
      return " from the command line";
    case "api":
      return " over the local API";
    default:
      return ` by ${agentString(source)}`;
  }
}

/** "Allowed from this computer's web page at 12:01", "Answered “Staging” on the phone at 9:14". */
function answeredText(q: UiInteraction): string {
  const response = q.response;
  const choice = q.choices.find((entry) => entry.id === response?.choice_id);
  let what: string;
  if (q.kind === "permission" && choice?.id === "allow") what = "Allowed";
  else if (q.kind === "permission" && choice?.id === "deny") what = "Denied";
  else if (choice) what = `Answered “${agentString(choice.label)}”`;
  else if (response?.text !== undefined) what = `Answered “${agentString(response.text)}”`;
  else what = "Answered";
  return `${what}${answeredBy(q)}${q.answered_at ? ` at ${shortTime(q.answered_at)}` : ""}`;
}
