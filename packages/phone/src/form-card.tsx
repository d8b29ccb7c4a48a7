import {
  checkFieldAnswer,
  type FormContext,
  type FormField,
  fieldChoices,
  fieldHint,
  fieldInitialValue,
  fieldInputType,
  isChoiceField,
} from "@notify/contracts/form-context";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { AgentText, agentString } from "./agent-text.js";
import type { SendOutcome } from "./answer-sender.js";
import type { QuestionCard as Card } from "./cards.js";
import { stateLine } from "./question-card.js";
import { remaining } from "./use-now.js";

/** An answer as sendAnswer takes it: a choice with the label the card then shows, or typed text. */
export type Answer = { choice_id: string; label: string } | { text: string; label?: string };

export interface FormCardProps {
  /** The form's decision question (accept, decline, cancel): the card is its card. */
  decision: Card;
  context: FormContext;
  /** The field questions of the form this phone has, by field name. */
  fields: Map<string, Card>;
  now: number;
  onSend(card: Card, answer: Answer): Promise<SendOutcome>;
}

/** How one field's question ended, as far as this phone knows; undefined while it is open. */
function fieldState(card: Card): string | undefined {
  switch (card.state.kind) {
    case "open":
      return undefined;
    case "sending":
      return "Sending…";
    case "recorded":
      return `Sent: ${agentString(card.state.answer)}`;
    case "elsewhere":
      if (card.state.status === "expired") return "Expired";
      return card.state.status === "cancelled" || card.state.status === "superseded"
        ? "Withdrawn"
        : "Answered elsewhere";
    case "refused":
      return card.state.status === 403 ? "Not allowed to answer this (403)" : `Refused (${card.state.status})`;
    default: {
      const exhaustive: never = card.state;
      return exhaustive;
    }
  }
}

/** Why a field's send did not take: said at the field, and the decision is not sent. */
function sendProblem(field: FormField, outcome: SendOutcome): string | undefined {
  switch (outcome.kind) {
    case "recorded":
    case "unpaired":
      return undefined;
    case "open":
      return `${field.title} could not be sent: the form expired`;
    case "elsewhere":
      return `${field.title} was answered elsewhere meanwhile: check the form, then accept again`;
    case "refused":
      return `The relay refused ${field.title} (${outcome.status}): the form was not sent`;
    default:
      return `${field.title} could not be sent`;
  }
}

/**
 * An MCP server's form (docs/hooks.md, "MCP elicitation") as one card: the decision question's card shows the whole
 * form, with an input for each field whose question this phone has. Accept checks every field first as the broker
 * will (`checkFieldAnswer`), then sends each filled field's answer (one relay answer per field question, through the
 * outbox like any answer), then the decision; a field the relay does not take says so at the field and the decision
 * stays unsent. An optional field left empty is not sent. Decline and Cancel send the decision only. URL mode shows
 * the URL as text, never a link.
 */
export function FormCard({ decision, context, fields, now, onSend }: FormCardProps) {
  const question = decision.question;
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(context.fields.map((field) => [field.name, fieldInitialValue(field)])),
  );
  // A number input holding what is not a number reads as empty: remembered, so it is not taken as left empty.
  const [unreadable, setUnreadable] = useState<ReadonlySet<string>>(new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [sendingFields, setSendingFields] = useState(false);
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const base = useId();
  const inputId = (index: number) => `${base}-field-${index}`;

  const closedAsExpired = decision.state.kind === "elsewhere" && decision.state.status === "expired";
  const expired = closedAsExpired || Date.parse(question.expires_at) <= now;
  const editable = !expired && decision.state.kind === "open" && decision.senderId !== null;
  const busy =
    sendingFields ||
    decision.state.kind === "sending" ||
    [...fields.values()].some((card) => card.state.kind === "sending");
  const status = sendingFields ? "Sending the answers…" : stateLine(decision);
  const url = context.mode === "url";
  const choices = question.choices ?? [];
  const acceptChoice = choices.find((choice) => choice.id === "accept");

  const focusField = (index: number) => {
    const element = document.getElementById(inputId(index));
    const target =
      element?.tagName === "FIELDSET"
        ? (element.querySelector<HTMLInputElement>("input:checked") ?? element.querySelector<HTMLInputElement>("input"))
        : element;
    target?.focus();
  };
  // The first bad field takes the focus once the errors are on the page (a field whose send failed is shown
  // differently by then).
  const focusAfter = useRef<number | undefined>(undefined);
  const showErrors = (found: Record<string, string>) => {
    const first = context.fields.findIndex((field) => found[field.name] !== undefined);
    focusAfter.current = first < 0 ? undefined : first;
    setErrors(found);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each Accept's errors are rendered
  useEffect(() => {
    if (focusAfter.current === undefined) return;
    focusField(focusAfter.current);
    focusAfter.current = undefined;
  }, [errors]);

  const accept = async (event: FormEvent) => {
    event.preventDefault();
    if (!editable || busy || acceptChoice === undefined) return;
    const found: Record<string, string> = {};
    const toSend: { field: FormField; card: Card; answer: Answer }[] = [];
    for (const field of context.fields) {
      const card = fields.get(field.name);
      if (card === undefined) {
        if (field.required) found[field.name] = `${field.title} has not reached this phone yet: wait, then accept`;
        continue;
      }
      if (card.state.kind === "recorded") continue;
      if (card.state.kind !== "open") {
        const answered = card.state.kind === "elsewhere" && (card.state.status ?? "answered") === "answered";
        if (field.required && !answered) found[field.name] = `${field.title} can no longer be answered here`;
        continue;
      }
      const raw = values[field.name] ?? "";
      const empty = field.type === "string" ? raw === "" : raw.trim() === "";
      if (empty && !unreadable.has(field.name)) {
        // An optional field left empty is not sent: the agent gets its default, or nothing.
        if (field.required) found[field.name] = `${field.title} is required`;
        continue;
      }
      if (isChoiceField(field)) {
        const choice = (card.question.choices ?? []).find((entry) => entry.id === raw);
        const checked = checkFieldAnswer(field, { choice_id: raw });
        if (!checked.ok || choice === undefined)
          found[field.name] = checked.ok ? `${field.title}: unknown choice` : checked.error;
        else toSend.push({ field, card, answer: { choice_id: raw, label: choice.label } });
      } else {
        const checked = checkFieldAnswer(field, { text: raw });
        const room = card.question.text_max_length;
        if (!checked.ok) found[field.name] = checked.error;
        else if (Array.from(raw).length > room) found[field.name] = `${field.title} must be at most ${room} characters`;
        else {
          // A long list's answer is the option's value; the card says its label.
          const option = field.type === "enum" ? field.options?.find((entry) => entry.value === raw) : undefined;
          toSend.push({ field, card, answer: option ? { text: raw, label: option.label } : { text: raw } });
        }
      }
    }
    if (Object.keys(found).length > 0) {
      showErrors(found);
      return;
    }
    setErrors({});
    setSendingFields(true);
    // Every field's answer is stored at the relay before the decision: the broker takes them in that order.
    const outcomes = await Promise.all(toSend.map(({ card, answer }) => onSend(card, answer)));
    setSendingFields(false);
    if (outcomes.some((outcome) => outcome.kind === "unpaired")) return;
    toSend.forEach(({ field }, index) => {
      const problem = sendProblem(field, outcomes[index] as SendOutcome);
      if (problem !== undefined) found[field.name] = problem;
    });
    if (Object.keys(found).length > 0) {
      showErrors(found);
      return;
    }
    await onSend(decision, { choice_id: acceptChoice.id, label: acceptChoice.label });
  };

  const decide = (choice: { id: string; label: string }) => {
    if (!editable || busy) return;
    setErrors({});
    void onSend(decision, { choice_id: choice.id, label: choice.label });
  };

  const setValue = (field: FormField, value: string, bad: boolean) => {
    setValues((current) => ({ ...current, [field.name]: value }));
    // A changed field's error goes: Accept checks it again.
    setErrors((current) => {
      if (current[field.name] === undefined) return current;
      const { [field.name]: _changed, ...rest } = current;
      return rest;
    });
    setUnreadable((current) => {
      if (bad === current.has(field.name)) return current;
      const next = new Set(current);
      if (bad) next.add(field.name);
      else next.delete(field.name);
      return next;
    });
  };

  return (
    <article
      className={`card form-card${editable ? "" : " card-closed"}`}
      aria-label={`${url ? "Page to open" : "Form"} from ${agentString(context.server)}`}
      data-form-id={context.form}
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
      <p className="form-from">
        The MCP server{" "}
        <strong>
          <AgentText text={context.server} />
        </strong>{" "}
        {url ? "asks you to open a page" : "asks you to fill in a form"}
      </p>
      <p className="prompt">
        <AgentText text={context.message} />
      </p>
      {url && context.url !== undefined ? (
        <div className="form-url">
          <p className="ctx-label">The page (not opened from here)</p>
          <p className="form-url-text">
            <code>
              <AgentText text={context.url} />
            </code>
          </p>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              const copy = navigator.clipboard?.writeText(context.url ?? "");
              (copy ?? Promise.reject(new Error("no clipboard"))).then(
                () => setCopied("Copied"),
                () => setCopied("Could not copy: select the text above"),
              );
            }}
          >
            Copy the URL
          </button>
          <p className="hint" role="status">
            {copied ?? ""}
          </p>
        </div>
      ) : null}
      {decision.state.kind === "recorded" || (decision.state.kind === "elsewhere" && !closedAsExpired) ? null : (
        <p className="countdown" role="timer">
          {expired ? "Expired" : `Expires in ${remaining(question.expires_at, now)}`}
        </p>
      )}
      <form className="form-body" noValidate aria-label="The server's form" onSubmit={(event) => void accept(event)}>
        {context.fields.map((field, index) => (
          <FieldRow
            key={field.name}
            field={field}
            card={fields.get(field.name)}
            id={inputId(index)}
            value={values[field.name] ?? ""}
            error={errors[field.name]}
            disabled={!editable || busy}
            onChange={(value, bad) => setValue(field, value, bad)}
          />
        ))}
        <ul className="choices form-decision">
          {choices.map((choice) => {
            const detailId = `${base}-${choice.id}-detail`;
            const primary = choice.id === "accept";
            return (
              <li key={choice.id}>
                <button
                  type={primary ? "submit" : "button"}
                  className={primary ? undefined : "secondary"}
                  disabled={!editable || busy}
                  aria-describedby={choice.detail === undefined ? undefined : detailId}
                  onClick={primary ? undefined : () => decide(choice)}
                >
                  <AgentText text={choice.label} />
                </button>
                {choice.detail === undefined ? null : (
                  <p className="detail" id={detailId}>
                    <AgentText text={choice.detail} />
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      </form>
      {status === undefined ? null : (
        <p className="state" role="status">
          {status}
        </p>
      )}
    </article>
  );
}

interface FieldRowProps {
  field: FormField;
  /** The field's own question on this phone, if its envelope came. */
  card: Card | undefined;
  id: string;
  value: string;
  error: string | undefined;
  disabled: boolean;
  onChange(value: string, unreadable: boolean): void;
}

/** One field: its title, a required mark, what it takes, an input for its type, its error and how it ended. */
function FieldRow({ field, card, id, value, error, disabled, onChange }: FieldRowProps) {
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const invalid = error === undefined ? undefined : true;
  // The required mark is outside the label (the input's name is the field's title alone); `required` says it too.
  const mark = field.required ? (
    <>
      {" "}
      <span className="form-required" aria-hidden="true">
        required
      </span>
    </>
  ) : null;
  const title = <AgentText text={field.title} />;
  // What a typed field takes; a choice shows its options already.
  const what = isChoiceField(field) || field.type === "enum" ? undefined : fieldHint(field);
  const hint = field.required ? what : what === undefined ? "optional" : `${what}; optional`;
  const hasHelp = field.description !== undefined || hint !== undefined;
  const describedBy =
    [hasHelp ? helpId : undefined, error === undefined ? undefined : errorId].filter(Boolean).join(" ") || undefined;
  const help = !hasHelp ? null : (
    <p id={helpId} className="form-help">
      {field.description === undefined ? null : (
        <>
          <AgentText text={field.description} />{" "}
        </>
      )}
      {hint === undefined ? null : (
        <span className="form-hint">
          (<AgentText text={hint} />)
        </span>
      )}
    </p>
  );
  const errorLine =
    error === undefined ? null : (
      <p id={errorId} className="field-error">
        <AgentText text={error} />
      </p>
    );
  const done = card === undefined ? "Not on this phone yet" : fieldState(card);
  if (card === undefined || done !== undefined) {
    return (
      <div className="form-field form-field-done">
        {/* Focusable from a script only: Accept moves the focus here when this field's send failed. */}
        <p className="form-head" id={id} tabIndex={-1} aria-describedby={error === undefined ? undefined : errorId}>
          <span className="form-label">{title}</span>
          {mark}
        </p>
        {help}
        <p className="form-field-state">{done}</p>
        {errorLine}
      </div>
    );
  }
  if (isChoiceField(field)) {
    const choices = card.question.choices ?? fieldChoices(field);
    return (
      <fieldset className="form-field form-choice" id={id} aria-describedby={describedBy}>
        <legend className="form-head">
          <span className="form-label">{title}</span>
          {mark}
        </legend>
        {help}
        <div className="form-options">
          {choices.map((choice) => (
            <label key={choice.id} className="form-option">
              <input
                type="radio"
                name={id}
                value={choice.id}
                checked={value === choice.id}
                required={field.required}
                disabled={disabled}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onChange={() => onChange(choice.id, false)}
              />
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
    "aria-invalid": invalid,
    "aria-describedby": describedBy,
  };
  const number = field.type === "number" || field.type === "integer";
  return (
    <div className="form-field">
      <div className="form-head">
        <label htmlFor={id} className="form-label">
          {title}
        </label>
        {mark}
      </div>
      {help}
      {field.type === "enum" ? (
        // More options than buttons fit: a list; its answer is the option's value, as text.
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
          {...(number
            ? {
                inputMode: field.type === "integer" ? ("numeric" as const) : ("decimal" as const),
                step: field.type === "integer" ? 1 : "any",
                ...(field.minimum === undefined ? {} : { min: field.minimum }),
                ...(field.maximum === undefined ? {} : { max: field.maximum }),
              }
            : {
                ...(field.min_length === undefined ? {} : { minLength: field.min_length }),
                ...(field.max_length === undefined ? {} : { maxLength: field.max_length }),
                ...(field.format === "date-time" ? { placeholder: "2026-05-01T09:30:00Z" } : {}),
                ...(field.format === "email" ? { autoComplete: "email" } : {}),
              })}
          onChange={(event) => onChange(event.target.value, event.target.validity.badInput)}
          // A number input going from empty to what is not a number keeps the value "": React sees no change.
          onInput={(event) => onChange(event.currentTarget.value, event.currentTarget.validity.badInput)}
        />
      )}
      {errorLine}
    </div>
  );
}
