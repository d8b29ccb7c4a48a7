import type { FormContext } from "@notify/contracts/form-context";
import type { QuestionCard } from "./cards.js";

/**
 * How long a field card of an MCP form waits for its form's decision card before it shows on its own. The hook opens
 * the fields first and the decision last, a few milliseconds apart, but their envelopes can reach the phone in
 * different polls; a form whose decision never arrives (cut from its envelope, the hook gone) still gets its fields
 * answered one by one.
 */
export const FORM_GATHER_MS = 5_000;

/** What the inbox shows for its questions, in their order. */
export type Shown =
  | { kind: "card"; card: QuestionCard }
  /** An MCP form as one card: its decision question, and its field questions by field name. */
  | { kind: "form"; decision: QuestionCard; context: FormContext; fields: Map<string, QuestionCard> }
  /** Field cards held back a moment while their form's decision card is on its way. */
  | { kind: "gathering"; form: string; server: string; fields: number };

/** The form context of a card, if it is a question of an MCP form. */
export function formContextOf(card: QuestionCard): FormContext | undefined {
  const context = card.question.context;
  return context?.kind === "form" ? (context as FormContext) : undefined;
}

const formKey = (card: QuestionCard, context: FormContext): string => `${card.senderId ?? ""}\n${context.form}`;

/**
 * The questions as the inbox shows them (docs/hooks.md, "MCP elicitation"): the questions of one form (same sender,
 * same `context.form`) as one card where the decision question is (its fields inside it, not on their own); a field
 * card whose decision has not come yet held back for FORM_GATHER_MS after it arrived, then shown as itself.
 */
export function arrange(questions: QuestionCard[], now: number): Shown[] {
  const decisions = new Map<string, QuestionCard>();
  const fieldsOf = new Map<string, Map<string, QuestionCard>>();
  for (const card of questions) {
    const context = formContextOf(card);
    if (context === undefined) continue;
    const key = formKey(card, context);
    if (context.field === undefined) {
      if (!decisions.has(key)) decisions.set(key, card);
      continue;
    }
    let fields = fieldsOf.get(key);
    if (fields === undefined) {
      fields = new Map();
      fieldsOf.set(key, fields);
    }
    // The newest first (the inbox lists newest first): a field asked again is the one to answer.
    if (!fields.has(context.field)) fields.set(context.field, card);
  }
  const shown: Shown[] = [];
  // Where each held-back form's line is in `shown`, counted as its fields come.
  const waiting = new Map<string, number>();
  for (const card of questions) {
    const context = formContextOf(card);
    if (context === undefined) {
      shown.push({ kind: "card", card });
      continue;
    }
    const key = formKey(card, context);
    const decision = decisions.get(key);
    if (context.field === undefined) {
      if (decision === card) {
        shown.push({ kind: "form", decision: card, context, fields: fieldsOf.get(key) ?? new Map() });
      } else shown.push({ kind: "card", card });
      continue;
    }
    if (decision !== undefined) continue;
    const fresh = card.receivedAt !== undefined && now - card.receivedAt < FORM_GATHER_MS && card.state.kind === "open";
    if (!fresh) {
      shown.push({ kind: "card", card });
      continue;
    }
    const at = waiting.get(key);
    const line = at === undefined ? undefined : shown[at];
    if (line?.kind === "gathering") line.fields++;
    else {
      waiting.set(key, shown.length);
      shown.push({ kind: "gathering", form: context.form, server: context.server, fields: 1 });
    }
  }
  return shown;
}
