import { type AnswerSurfaceWords, answerSurfaceOfKind } from "@notify/contracts/ui-surfaces";
import type { ProviderAdapter, ProviderProfile } from "../outbox/types.js";
import type { ChatQuestions } from "./questions.js";
import type { SurfaceLoop } from "./supervisor.js";

/** A secret's shape as `notify apply` checks it before sending anything (docs/outbound.md). */
export interface SecretShape {
  valid(value: string): boolean;
  /** What it should look like, never the value: `xoxb-…`. */
  expected: string;
}

/**
 * One answer surface (issue 34, item 1): a folder under surfaces/ with the same files — `api.ts` (the remote API),
 * `send.ts` (the provider adapter that posts a question), `loop.ts` (the loop that takes answers), `surface.ts`
 * (this entry) — and one line in registry.ts. Its words (source, label, settings example) are the contract's
 * (`@notify/contracts/ui-surfaces`), which the web page and the timeline read.
 */
export interface AnswerSurface {
  /** The provider kind. */
  kind: string;
  words: AnswerSurfaceWords;
  /** The provider adapter; with `chat` a question goes out with buttons and is recorded (chat apps). */
  adapter(chat: ChatQuestions | undefined): ProviderAdapter;
  /** Whether a provider of this kind runs the loop (Telegram: only with `answers: true`). */
  answers(profile: ProviderProfile): boolean;
  loop: SurfaceLoop;
  /** Whether `notify outbound list`, the page and `notify doctor` show the loop's connection state. */
  listsConnection: boolean;
  /** The shapes of its secrets that `notify apply` checks. */
  secretShapes: Record<string, SecretShape>;
}

/** The contract's words for `kind`; a surface without them is a programming error. */
export function wordsOf(kind: string): AnswerSurfaceWords {
  const words = answerSurfaceOfKind(kind);
  if (!words) throw new Error(`no words for answer surface ${kind} in @notify/contracts/ui-surfaces`);
  return words;
}

/**
 * A chat app's entry (Telegram, Slack, Discord...): its words are the contract's for `kind`, its loop's connection
 * is listed, and every provider of the kind takes answers unless `answers` says otherwise.
 */
export function chatSurface(
  entry: Pick<AnswerSurface, "kind" | "adapter" | "loop" | "secretShapes"> & Partial<Pick<AnswerSurface, "answers">>,
): AnswerSurface {
  return { words: wordsOf(entry.kind), answers: () => true, listsConnection: true, ...entry };
}
