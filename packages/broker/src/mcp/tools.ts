import {
  CHOICE_ID_PATTERN,
  INTERACTION_KINDS,
  type InteractionKind,
  NOTIFICATION_TYPE_PATTERN,
  PRIORITIES,
  type Priority,
} from "@notify/contracts/enums";
import { z } from "zod";
import type { InteractionDto } from "../interactions/types.js";

/**
 * The two tools of `notify mcp` (docs/mcp.md, "The tools"): their schemas, the descriptions a model
 * reads to decide when to call them, and how a settled question becomes a tool result. No I/O here.
 *
 * The input limits repeat the broker's (docs/api.md, "POST /v1/interactions/request";
 * docs/api.md, "POST /v1/notifications"), so a model learns them from the schema instead of from a refused call; the
 * broker stays the judge of the rest (a single_choice without choices, a text question with choices), whose 400 message
 * becomes the tool error.
 */

export const ASK_PERSON = "ask_person";
export const NOTIFY_PERSON = "notify_person";

export const ASK_PERSON_DESCRIPTION = [
  "Ask your person a question and wait for their answer. The question reaches them wherever they are (desktop,",
  "web page, phone, chat), and the first answer wins.",
  "Use it only for a decision that only the person can make: a choice between approaches with real trade-offs",
  "(for example Postgres or SQLite for a new service), priorities, taste, scope, an action that is risky or cannot",
  "be undone, or information only they have. Never use it for something you can find out yourself by reading the",
  "code, the docs or the output of a command, and never to report progress (use notify_person for that).",
  'Prefer kind "single_choice" with 2-12 short choices (each an id, a label and an optional detail); use',
  '"permission" for a yes/no go-ahead (choices allow and deny), and "text" only when the answer cannot be a choice.',
  "Write the prompt so it stands on its own: what you are doing, what the options mean, what you recommend.",
  'The result\'s status is "answered" (with choice_id or text), "expired" (nobody answered in time: go on with',
  'the safest choice or stop and say so) or "cancelled" (the person dismissed the question: do not ask it again).',
].join(" ");

export const NOTIFY_PERSON_DESCRIPTION = [
  "Tell your person something without waiting for an answer: a long task finished, you are blocked, something",
  "failed that they should know about. It appears in Notify on their desktop, web page and phone. Use it",
  "sparingly, for what they would want to hear about while away; not for routine progress. To get an answer,",
  "use ask_person instead.",
].join(" ");

export const askPersonInput = {
  prompt: z.string().min(1).max(2000).describe("The question as the person will read it (at most 2000 characters)."),
  kind: z
    .enum(INTERACTION_KINDS)
    .optional()
    .describe('"single_choice" (pick one of choices), "permission" (allow or deny; default) or "text" (free text).'),
  choices: z
    .array(
      z.object({
        id: z
          .string()
          .regex(CHOICE_ID_PATTERN)
          .describe("What the result's choice_id will be: letters, digits, _ or -."),
        label: z.string().min(1).max(200).describe("The button the person sees."),
        detail: z.string().min(1).max(500).optional().describe("One line under the label: what this choice means."),
      }),
    )
    .min(2)
    .max(12)
    .optional()
    .describe("2-12 choices for single_choice (permission defaults to allow and deny; none for text)."),
  ttl_seconds: z
    .number()
    .int()
    .min(30)
    .max(3600)
    .optional()
    .describe("Seconds the question stays open before it expires (30-3600, default 600)."),
  text_max_length: z
    .number()
    .int()
    .min(1)
    .max(2000)
    .optional()
    .describe("Longest text answer for kind text (1-2000, default 500)."),
};

export const ASK_STATUSES = ["answered", "expired", "cancelled"] as const;
export type AskStatus = (typeof ASK_STATUSES)[number];

export const askPersonOutput = {
  status: z.enum(ASK_STATUSES),
  choice_id: z.string().optional(),
  text: z.string().optional(),
  source: z.string().optional(),
};

export interface AskPersonArgs {
  prompt: string;
  kind?: InteractionKind | undefined;
  choices?: { id: string; label: string; detail?: string | undefined }[] | undefined;
  ttl_seconds?: number | undefined;
  text_max_length?: number | undefined;
}

export interface AskPersonResult {
  status: AskStatus;
  choice_id?: string;
  text?: string;
  source?: string;
}

export const notifyPersonInput = {
  title: z.string().min(1).max(200).describe("One line, at most 200 characters."),
  message: z.string().min(1).max(4000).describe("The details, at most 4000 characters."),
  type: z
    .string()
    .regex(NOTIFICATION_TYPE_PATTERN)
    .optional()
    .describe("info (default), completed, blocked, error, input_required, or a type the person defined."),
  priority: z.enum(PRIORITIES).optional().describe("Default: the type's own priority."),
};

export const notifyPersonOutput = { id: z.string() };

export interface NotifyPersonArgs {
  title: string;
  message: string;
  type?: string | undefined;
  priority?: Priority | undefined;
}

/** A settled interaction as ask_person's structured result. */
export function askResult(interaction: InteractionDto): AskPersonResult {
  switch (interaction.status) {
    case "answered": {
      const response = interaction.response;
      const result: AskPersonResult = { status: "answered" };
      if (response?.choice_id !== undefined) result.choice_id = response.choice_id;
      if (response?.text !== undefined) result.text = response.text;
      if (response?.source !== undefined) result.source = response.source;
      return result;
    }
    case "expired":
      return { status: "expired" };
    // ask_person never sets a key, so nothing can supersede its question; were it to happen, it is gone all the same.
    case "cancelled":
    case "superseded":
      return { status: "cancelled" };
    case "pending":
      throw new Error(`interaction ${interaction.id} is still pending`);
    default: {
      const _exhaustive: never = interaction.status;
      throw new Error(`interaction ${interaction.id} ended as ${String(_exhaustive)}`);
    }
  }
}

/** The same result as one sentence for the model (hosts that ignore structuredContent read only this). */
export function askResultText(interaction: InteractionDto, result: AskPersonResult): string {
  const from = result.source !== undefined ? ` (answered from ${result.source})` : "";
  switch (result.status) {
    case "answered": {
      if (result.text !== undefined) return `The person answered${from}: ${result.text}`;
      const choice = interaction.choices.find((entry) => entry.id === result.choice_id);
      const label = choice !== undefined ? ` "${choice.label}"` : "";
      return `The person chose${label} (choice_id: ${result.choice_id ?? ""})${from}.`;
    }
    case "expired":
      return "Nobody answered before the question expired. Go on with the safest choice, or stop and say what you need.";
    case "cancelled":
      return "The person dismissed the question without answering. Do not ask it again; go on without it or stop.";
    default: {
      const _exhaustive: never = result.status;
      return String(_exhaustive);
    }
  }
}
