import type { InteractionDto } from "../interactions/types.js";
import { cut } from "./prompt.js";

/**
 * Claude Code's own question tool, AskUserQuestion (issue 26, item 3). Its input is `{questions: [{question,
 * header, options: [{label, description}], multiSelect}]}` (1-4 questions of 2-4 options each); Claude Code shows
 * them in the terminal and sends the model `{answers: {<question text>: <answer>}}`. A PreToolUse hook that allows
 * the call with `updatedInput` = the input plus `answers` answers it instead of the terminal (checked with Claude
 * Code 2.1.330 in a terminal: the model reads `Your questions have been answered: "Which database?"="SQLite"`). In
 * `-p` (print mode) Claude Code disables the tool, so the hook never runs there.
 *
 * Each question becomes one Notify question: single_choice with one choice per option (`option_1`...), or, for a
 * multiSelect question (Notify has no multiple choice), a text question that lists the options and takes their
 * labels separated by commas, which is how Claude Code itself joins several selected labels. No I/O here.
 */

export const ASK_USER_QUESTION = "AskUserQuestion";

/** The choice that asks for the person's own words (Claude Code's free-text "Other"); a second question takes them. */
export const OTHER_CHOICE_ID = "other";

export interface AskedQuestion {
  /** The question's text: the key of its answer in `answers`. */
  question: string;
  header?: string;
  labels: string[];
  multiSelect: boolean;
}

/** One Notify question per asked question: what the ARC request says, and how its answer is read back. */
export interface QuestionRequest {
  title: string;
  message: string;
  response:
    | { kind: "single_choice"; choices: { id: string; label: string; detail?: string }[] }
    | { kind: "text"; text_max_length: number };
}

const MAX_QUESTIONS = 4;
const MAX_OPTIONS = 12;
const TEXT_MAX = 2000;

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const nonBlank = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined;

/**
 * The questions of an AskUserQuestion call, or undefined when the input is not one Notify can ask faithfully (no
 * questions, an option without a label, two questions with the same text): the hook then stays out of the way and
 * Claude Code asks in the terminal as usual.
 */
export function askedQuestions(toolInput: unknown): AskedQuestion[] | undefined {
  const questions = asRecord(toolInput)?.questions;
  if (!Array.isArray(questions) || questions.length === 0 || questions.length > MAX_QUESTIONS) return undefined;
  const asked: AskedQuestion[] = [];
  for (const entry of questions) {
    const record = asRecord(entry);
    const question = nonBlank(record?.question);
    const options = record?.options;
    if (record === undefined || question === undefined || !Array.isArray(options)) return undefined;
    if (options.length < 2 || options.length > MAX_OPTIONS) return undefined;
    const labels: string[] = [];
    for (const option of options) {
      const label = nonBlank(asRecord(option)?.label);
      if (label === undefined) return undefined;
      labels.push(label);
    }
    if (asked.some((other) => other.question === question)) return undefined;
    const header = nonBlank(record.header);
    asked.push({ question, labels, multiSelect: record.multiSelect === true, ...(header ? { header } : {}) });
  }
  return asked;
}

/** An option's description as Notify shows it (cut to 500 characters), or undefined when it has none. */
const descriptionOf = (toolInput: unknown, index: number, option: number): string | undefined => {
  const questions = asRecord(toolInput)?.questions as unknown[];
  const options = asRecord(questions[index])?.options as unknown[];
  const description = nonBlank(asRecord(options[option])?.description);
  return description !== undefined ? cut(description, 500) : undefined;
};

/** The Notify questions for `asked` (`who` and `where` name the agent and the project in the title). */
export function questionRequests(
  asked: AskedQuestion[],
  toolInput: unknown,
  who: string,
  where: string,
): QuestionRequest[] {
  return asked.map((entry, index) => {
    const part = asked.length > 1 ? ` (${index + 1} of ${asked.length})` : "";
    const title = cut(`${who} asks${where}${entry.header ? `: ${entry.header}` : ""}${part}`, 200);
    if (!entry.multiSelect) {
      return {
        title,
        message: cut(entry.question, 2000),
        response: {
          kind: "single_choice",
          choices: [
            ...entry.labels.map((label, option) => {
              const detail = descriptionOf(toolInput, index, option);
              return {
                id: `option_${option + 1}`,
                label: cut(label, 200),
                ...(detail !== undefined ? { detail } : {}),
              };
            }),
            // Claude Code's own "Other": the answer is the text typed (issue 36, item 4).
            ...(entry.labels.length < MAX_OPTIONS
              ? [{ id: OTHER_CHOICE_ID, label: "Other…", detail: "Type your own answer" }]
              : []),
          ],
        },
      };
    }
    // Each option with its description, as the single-choice ones carry them in `detail` (issue 36, item 4).
    const list = entry.labels
      .map((label, option) => {
        const detail = descriptionOf(toolInput, index, option);
        return detail !== undefined ? `- ${label}: ${detail}` : `- ${label}`;
      })
      .join("\n");
    const hint = "\n\nChoose one or more; answer with their names separated by commas.";
    const room = 2000 - Array.from(hint).length - 1;
    return {
      title,
      message: `${cut(`${entry.question}\n\n${list}`, room)}${hint}`,
      response: { kind: "text", text_max_length: TEXT_MAX },
    };
  });
}

/** A settled question's answer as Claude Code takes it: the chosen option's label, or the text typed. */
export function answerOf(asked: AskedQuestion, settled: InteractionDto): string | undefined {
  if (settled.status !== "answered") return undefined;
  const text = settled.response?.text;
  if (text !== undefined) return text.trim() === "" ? undefined : text;
  const choice = settled.response?.choice_id;
  const match = choice !== undefined ? /^option_(\d+)$/.exec(choice) : null;
  return match ? asked.labels[Number(match[1]) - 1] : undefined;
}

/** The PreToolUse output that answers the call: allow, with the tool's input plus `answers`. */
export function answersOutput(toolInput: unknown, answers: Record<string, string>, answeredBy: string): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: `Answered in Notify (from ${answeredBy})`,
      updatedInput: { ...(asRecord(toolInput) ?? {}), answers },
    },
  });
}
