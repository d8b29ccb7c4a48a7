import { checkFieldAnswer, formFieldOf } from "@notify/contracts/form-context";
import type { ContextStore } from "../store/context-store.js";
import type { AnswerCheck } from "./service.js";

/**
 * An answer to a question of an MCP form (docs/hooks.md, "MCP elicitation") is checked against its field before it
 * is accepted, whichever surface sent it: a number field takes a number within its bounds, an email field an email
 * address, and so on. The refusal names the field and what it takes ("Age must be at least 18"), and the question
 * stays open for a valid answer. Questions without a form context pass unchecked.
 */
export function formAnswerCheck(contexts: Pick<ContextStore, "forInteraction">): AnswerCheck {
  return (interaction, answer) => {
    const field = formFieldOf(contexts.forInteraction(interaction.id));
    if (field === undefined) return undefined;
    const checked = checkFieldAnswer(field, answer);
    return checked.ok ? undefined : checked.error;
  };
}
