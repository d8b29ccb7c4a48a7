import {
  checkFieldAnswer,
  type FormContext,
  type FormField,
  fieldHint,
  fieldInitialValue,
  fieldInputType,
} from "@notify/contracts/form-context";
import type { UiInteraction, UiRespondBody } from "@notify/contracts/ui";
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { AgentText, agentString } from "../agent-text.js";
import { ApiError, api } from "../api/client.js";
import { inboxStore, useInbox } from "../api/inbox-store.js";
import { shortTime } from "../format.js";
import { Link } from "../navigation.js";
import { answeredBy, Countdown, Outcome } from "./question-card.js";

type Loaded = { state: "loading" } | { state: "failed" } | { state: "shown"; context: FormContext };

type Sending = { state: "idle" } | { state: "sending" } | { state: "failed"; message: string } | { state: "elsewhere" };

/** An answer as the field's question takes it: a choice (`yes`, `option_2`) or typed text. */
type FieldAnswer = { choice_id: string } | { text: string };

/**
 * The field questions of the form `formId` the page has loaded, by field name (the newest when a field was asked
 * again). The broker names each question's form and field (`UiInteraction.form`, docs/api.md /ui/api).
 */
function useFieldQuestions(formId: string): Map<string, UiInteraction> {
  const { items } = useInbox();
  return useMemo(() => {
    const byField = new Map<string, UiInteraction>();
    for (const entry of items) {
      if (entry.kind !== "interaction") continue;
      const form = entry.item.form;
      if (form?.id !== formId || form.field === undefined || byField.has(form.field)) continue;
      byField.set(form.field, entry.item);
    }
    return byField;
  }, [items, formId]);
}

/** A field's answer in words: the choice's label, an enum's label for its typed value, or the text. */
function answerText(question: UiInteraction, field: FormField): string | undefined {
  const response = question.response;
  if (response === undefined) return undefined;
  const choice = question.choices.find((entry) => entry.id === response.choice_id);
  if (choice !== undefined) return choice.label;
  const typed = response.text?.trim();
  const option = field.options?.find((entry) => entry.value === typed);
  return option?.label ?? response.text;
}

/**
 * An MCP server's form (docs/hooks.md, "MCP elicitation") as one card: the decision question's, with every field of
 * the form (its context) and the field questions the broker opened for them. Accept checks each field here first
 * (the broker's own check, `checkFieldAnswer`), then answers each filled field's question, then the decision; a
 * field the broker refuses shows its words at the field and the decision is not sent. Decline and Cancel answer the
 * decision only. A field already answered (a chat, the CLI) shows its answer, read-only. URL mode shows the URL as
 * text and the three choices.
 */
export function FormCard({ interaction: q, detailLink = true }: { interaction: UiInteraction; detailLink?: boolean }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const formId = q.form?.id ?? "";
  const fieldQuestions = useFieldQuestions(formId);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `request_digest` (the question changed) reads it again
  useEffect(() => {
    let live = true;
    setLoaded({ state: "loading" });
    api.context(q.id).then(
      (context) => {
        if (live) setLoaded(context.kind === "form" ? { state: "shown", context } : { state: "failed" });
      },
      () => {
        if (live) setLoaded({ state: "failed" });
      },
    );
    return () => {
      live = false;
    };
  }, [q.id, q.request_digest]);

  const titleId = `q-${q.id}`;
  const context = loaded.state === "shown" ? loaded.context : undefined;
  const url = context?.mode === "url";
  return (
    <article
      className={`card question form-card status-${q.status}`}
      aria-labelledby={titleId}
      data-item-id={q.id}
      data-form-id={formId}
    >
      <div className="meta">
        <span className="badge question-badge">{url ? "Question · URL" : "Question · Form"}</span>
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
      {context && (
        <p className="form-from">
          The MCP server{" "}
          <strong>
            <AgentText text={context.server} />
          </strong>{" "}
          asks
        </p>
      )}
      <h2 id={titleId} className="prompt">
        <AgentText text={context?.message ?? q.prompt} />
      </h2>
      {loaded.state === "loading" && <p className="tool-context-status muted">Loading the form…</p>}
      {loaded.state === "failed" && (
        <p className="tool-context-status error" role="alert">
          Could not load the form. Reload the page before you answer.
        </p>
      )}
      {context && <FormBody q={q} context={context} fieldQuestions={fieldQuestions} />}
    </article>
  );
}

function FormBody({
  q,
  context,
  fieldQuestions,
}: {
  q: UiInteraction;
  context: FormContext;
  fieldQuestions: Map<string, UiInteraction>;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(context.fields.map((field) => [field.name, fieldInitialValue(field)])),
  );
  // A number input holding what is not a number reads as empty: remembered so it is not taken as left empty.
  const [unreadable, setUnreadable] = useState<ReadonlySet<string>>(new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [sending, setSending] = useState<Sending>({ state: "idle" });
  const [copied, setCopied] = useState(false);
  // One response_id per question and answer: a retry of the same answer replays it (docs/api.md, respond: replay).
  const responseIds = useRef(new Map<string, string>());
  const idPrefix = `f-${q.id}`;
  const inputId = (index: number) => `${idPrefix}-${index}`;

  const bodyFor = (question: UiInteraction, answer: FieldAnswer): UiRespondBody => {
    const key = `${question.id}\n${"choice_id" in answer ? `c:${answer.choice_id}` : `t:${answer.text}`}`;
    let responseId = responseIds.current.get(key);
    if (responseId === undefined) {
      responseId = crypto.randomUUID();
      responseIds.current.set(key, responseId);
    }
    return { response_id: responseId, request_digest: question.request_digest, nonce: question.nonce, ...answer };
  };

  /**
   * Answers one question; the page's copy follows. A refusal comes back as the broker's words; a question answered
   * or closed meanwhile (409, `400 interaction is ...`) as `closed`, read again so the card shows it as it is now.
   */
  const answer = async (question: UiInteraction, value: FieldAnswer): Promise<{ error: string; closed: boolean }> => {
    try {
      inboxStore.apply({ kind: "interaction", item: await api.respond(question.id, bodyFor(question, value)) });
      return { error: "", closed: false };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      const closed = error.status === 409 || /^interaction is /.test(error.message);
      if (closed) {
        api.interaction(question.id).then(
          (current) => inboxStore.apply({ kind: "interaction", item: current }),
          () => {},
        );
      }
      return { error: error.message, closed };
    }
  };

  const decide = async (choiceId: string): Promise<void> => {
    const result = await answer(q, { choice_id: choiceId }).catch(() => ({
      error: "Could not reach the broker.",
      closed: false,
    }));
    if (result.closed) setSending({ state: "elsewhere" });
    else if (result.error !== "") setSending({ state: "failed", message: result.error });
    else setSending({ state: "idle" });
  };

  // The first bad field gets the focus once the page shows its error (and its input is enabled again).
  const [focusOn, setFocusOn] = useState<{ index: number }>();
  useEffect(() => {
    if (focusOn === undefined) return;
    const group = document.getElementById(`${idPrefix}-${focusOn.index}`);
    const target =
      group?.tagName === "FIELDSET"
        ? (group.querySelector<HTMLInputElement>("input:checked") ?? group.querySelector<HTMLInputElement>("input"))
        : group;
    target?.focus();
  }, [focusOn, idPrefix]);
  const focusField = (index: number) => setFocusOn({ index });

  const accept = async (event: FormEvent) => {
    event.preventDefault();
    if (sending.state === "sending") return;
    const found: Record<string, string> = {};
    const toSend: { field: FormField; question: UiInteraction; value: FieldAnswer }[] = [];
    for (const field of context.fields) {
      const question = fieldQuestions.get(field.name);
      if (question?.status === "answered") continue;
      if (question === undefined) {
        if (field.required) found[field.name] = `${field.title} is not loaded on this page: reload it`;
        continue;
      }
      if (question.status !== "pending") {
        if (field.required) found[field.name] = `${field.title} can no longer be answered (${question.status})`;
        continue;
      }
      const raw = values[field.name] ?? "";
      const empty = field.type === "string" ? raw === "" : raw.trim() === "";
      if (empty && !unreadable.has(field.name)) {
        // An optional field left empty is not answered (the agent gets its default, or nothing).
        if (field.required) found[field.name] = `${field.title} is required`;
        continue;
      }
      const value: FieldAnswer = question.kind === "single_choice" ? { choice_id: raw } : { text: raw };
      const checked = checkFieldAnswer(field, value);
      if (!checked.ok) found[field.name] = checked.error;
      else toSend.push({ field, question, value });
    }
    const firstBad = () => context.fields.findIndex((field) => found[field.name] !== undefined);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      focusField(firstBad());
      return;
    }
    setErrors({});
    setSending({ state: "sending" });
    let unreachable = false;
    await Promise.all(
      toSend.map(async ({ field, question, value }) => {
        const result = await answer(question, value).catch(() => {
          unreachable = true;
          return { error: "", closed: false };
        });
        if (result.closed) found[field.name] = `${field.title} was answered or closed meanwhile: check it, then accept`;
        else if (result.error !== "") found[field.name] = result.error;
      }),
    );
    if (unreachable) {
      setSending({ state: "failed", message: "Could not reach the broker. Accept again to retry." });
      return;
    }
    if (Object.keys(found).length > 0) {
      // The broker refused a field: its words at the field, and the decision is not sent.
      setErrors(found);
      setSending({ state: "idle" });
      focusField(firstBad());
      return;
    }
    await decide("accept");
  };

  const pending = q.status === "pending" && sending.state !== "elsewhere";
  const busy = sending.state === "sending";
  const acceptChoice = q.choices.find((choice) => choice.id === "accept");
  const otherChoices = q.choices.filter((choice) => choice.id !== "accept");
  const detailId = (choiceId: string) => `${q.id}-${choiceId}-detail`;
  const choiceButton = (choice: UiInteraction["choices"][number], primary: boolean) => (
    <li key={choice.id}>
      <button
        type={primary ? "submit" : "button"}
        className={primary ? "primary" : "choice"}
        disabled={busy}
        aria-describedby={choice.detail ? detailId(choice.id) : undefined}
        onClick={
          primary
            ? undefined
            : () => {
                setErrors({});
                setSending({ state: "sending" });
                void decide(choice.id);
              }
        }
      >
        <AgentText text={choice.label} />
      </button>
      {choice.detail && (
        <p id={detailId(choice.id)} className="choice-detail">
          <AgentText text={choice.detail} />
        </p>
      )}
    </li>
  );

  return (
    <form className="mcp-form" noValidate aria-label="The server's form" onSubmit={(event) => void accept(event)}>
      {context.mode === "url" && context.url !== undefined && (
        <div className="form-url">
          <p className="ctx-label">The page it asks you to open (not opened from here)</p>
          <p className="form-url-text">
            <code>
              <AgentText text={context.url} />
            </code>
          </p>
          <button
            type="button"
            onClick={() => {
              navigator.clipboard.writeText(context.url ?? "").then(
                () => setCopied(true),
                () => setCopied(false),
              );
            }}
          >
            Copy the URL
          </button>{" "}
          <span role="status" className="muted">
            {copied ? "Copied" : ""}
          </span>
        </div>
      )}
      {context.fields.length > 0 && (
        <div className="form-fields">
          {context.fields.map((field, index) => (
            <FieldRow
              key={field.name}
              field={field}
              question={fieldQuestions.get(field.name)}
              id={inputId(index)}
              value={values[field.name] ?? ""}
              error={errors[field.name]}
              editable={pending}
              disabled={busy}
              onChange={(value, bad) => {
                setValues((current) => ({ ...current, [field.name]: value }));
                setUnreadable((current) => {
                  if (bad === current.has(field.name)) return current;
                  const next = new Set(current);
                  if (bad) next.add(field.name);
                  else next.delete(field.name);
                  return next;
                });
              }}
            />
          ))}
        </div>
      )}
      {pending ? (
        <ul className="choices form-decision">
          {acceptChoice && choiceButton(acceptChoice, true)}
          {otherChoices.map((choice) => choiceButton(choice, false))}
        </ul>
      ) : sending.state === "elsewhere" ? (
        <p className="outcome conflict" role="status">
          This form was answered elsewhere.
        </p>
      ) : (
        <Outcome q={q} />
      )}
      {busy && (
        <p className="muted" role="status">
          Sending…
        </p>
      )}
      {sending.state === "failed" && (
        <p className="error" role="alert">
          {sending.message}
        </p>
      )}
    </form>
  );
}

function FieldRow({
  field,
  question,
  id,
  value,
  error,
  editable,
  disabled,
  onChange,
}: {
  field: FormField;
  question: UiInteraction | undefined;
  id: string;
  value: string;
  error: string | undefined;
  editable: boolean;
  disabled: boolean;
  onChange: (value: string, unreadable: boolean) => void;
}) {
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;

  const required = field.required ? (
    <span className="form-required" aria-hidden="true">
      {" "}
      required
    </span>
  ) : null;
  // What it takes, for a typed field ("A whole number from 18 to 120"); a choice field's options say it themselves.
  const what = question?.kind === "single_choice" ? "" : fieldHint(field);
  const hint = field.required ? what : what === "" ? "Optional" : `${what}, optional`;
  const hasHelp = field.description !== undefined || hint !== "";
  const describedBy = [hasHelp ? helpId : "", error ? errorId : ""].filter(Boolean).join(" ") || undefined;
  const help = hasHelp ? (
    <p id={helpId} className="help form-help">
      {field.description !== undefined && (
        <span className="form-description">
          <AgentText text={field.description} />
        </span>
      )}
      {field.description !== undefined && hint !== "" ? " " : null}
      {hint !== "" && (
        <span className="form-hint-what">
          <AgentText text={hint.charAt(0).toUpperCase() + hint.slice(1)} />
        </span>
      )}
    </p>
  ) : null;
  const errorLine = error ? (
    <p id={errorId} className="error field-error">
      <AgentText text={error} />
    </p>
  ) : null;

  if (!editable || question === undefined || question.status !== "pending") {
    const shown = question ? answerText(question, field) : undefined;
    return (
      <div className="form-field form-field-done">
        <p className="form-head form-label" id={id}>
          <AgentText text={field.title} />
          {required}
        </p>
        <p className="form-answer">
          {shown !== undefined ? (
            <>
              <span className="form-value">
                <AgentText text={shown} />
              </span>{" "}
              <span className="muted">
                answered{question ? answeredBy(question) : ""}
                {question?.answered_at ? ` at ${shortTime(question.answered_at)}` : ""}
              </span>
            </>
          ) : (
            <span className="muted">
              {question === undefined
                ? "Not loaded on this page"
                : question.status === "pending"
                  ? "Not answered yet"
                  : "Not answered"}
            </span>
          )}
        </p>
        {errorLine}
      </div>
    );
  }

  if (question.kind === "single_choice") {
    return (
      <fieldset className="form-field form-choice" id={id} aria-describedby={describedBy}>
        <legend className="form-head form-label">
          <AgentText text={field.title} />
          {required}
        </legend>
        {help}
        <div className="form-options">
          {question.choices.map((choice) => (
            <label key={choice.id} className="form-option">
              <input
                type="radio"
                name={id}
                value={choice.id}
                checked={value === choice.id}
                required={field.required}
                disabled={disabled}
                aria-invalid={error ? true : undefined}
                aria-describedby={describedBy}
                onChange={() => onChange(choice.id, false)}
              />{" "}
              <AgentText text={choice.label} />
            </label>
          ))}
        </div>
        {errorLine}
      </fieldset>
    );
  }

  const common = {
    id,
    required: field.required,
    disabled,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
  };
  return (
    <div className="form-field">
      <div className="form-head">
        <label htmlFor={id} className="form-label">
          <AgentText text={field.title} />
        </label>
        {required}
      </div>
      {help}
      {field.type === "enum" ? (
        <select {...common} value={value} onChange={(event) => onChange(event.target.value, false)}>
          <option value="">Choose…</option>
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {agentString(option.label)}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={fieldInputType(field)}
          value={value}
          {...(field.type === "number" || field.type === "integer"
            ? {
                inputMode: field.type === "integer" ? "numeric" : "decimal",
                step: field.type === "integer" ? 1 : "any",
                ...(field.minimum !== undefined ? { min: field.minimum } : {}),
                ...(field.maximum !== undefined ? { max: field.maximum } : {}),
              }
            : {
                ...(field.min_length !== undefined ? { minLength: field.min_length } : {}),
                ...(field.max_length !== undefined ? { maxLength: field.max_length } : {}),
                ...(field.format === "date-time" ? { placeholder: "2026-05-01T09:30:00Z" } : {}),
              })}
          onChange={(event) => onChange(event.target.value, event.target.validity.badInput)}
          onInput={(event) => onChange(event.currentTarget.value, event.currentTarget.validity.badInput)}
        />
      )}
      {errorLine}
    </div>
  );
}
