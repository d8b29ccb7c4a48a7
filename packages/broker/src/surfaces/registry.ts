import type { ProviderAdapter } from "../outbox/types.js";
import { discordSurface } from "./discord/surface.js";
import type { ChatQuestions } from "./questions.js";
import { relaySurface } from "./relay/surface.js";
import { slackSurface } from "./slack/surface.js";
import type { AnswerSurface } from "./surface.js";
import { telegramSurface } from "./telegram/surface.js";

/**
 * Every answer surface, one line each (issue 34, item 1): the provider kinds through which a person answers a
 * question away from this computer. The supervisor runs their loops, the outbound registry takes their adapters,
 * `notify apply` checks their secrets' shapes; their words are the contract's (`@notify/contracts/ui-surfaces`).
 */
export const SURFACES: readonly AnswerSurface[] = [relaySurface, telegramSurface, slackSurface, discordSurface];

/** The surface of a provider kind, if it is one. */
export function surfaceOf(kind: string): AnswerSurface | undefined {
  return SURFACES.find((surface) => surface.kind === kind);
}

/** The adapters of every surface; with `chat`, the chat apps post questions with buttons and record them. */
export function surfaceAdapters(chat: ChatQuestions | undefined): ProviderAdapter[] {
  return SURFACES.map((surface) => surface.adapter(chat));
}

/** `adapters` with each surface's own replaced by the one that asks through `chat` (broker.ts). */
export function withSurfaceAdapters(
  adapters: ReadonlyMap<string, ProviderAdapter>,
  chat: ChatQuestions,
): ReadonlyMap<string, ProviderAdapter> {
  const all = new Map(adapters);
  for (const adapter of surfaceAdapters(chat)) all.set(adapter.kind, adapter);
  return all;
}
