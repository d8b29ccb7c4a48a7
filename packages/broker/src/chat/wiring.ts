import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionService } from "../interactions/service.js";
import type { Logger } from "../log/logger.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import { slackAppAdapterWith } from "../outbox/providers/slack-app.js";
import { telegramAdapterWith } from "../outbox/providers/telegram.js";
import type { ProviderAdapter } from "../outbox/types.js";
import type { ChatStore } from "../store/chat-store.js";
import type { ChatQuestions } from "./questions.js";
import { slackLoop } from "./slack/socket.js";
import { ChatSupervisor, type ChatTimings } from "./supervisor.js";
import { telegramLoop } from "./telegram/poller.js";

/** The adapters with their answer halves: the registry's list with `telegram` and `slack_app` able to ask. */
export function chatAdapters(
  adapters: ReadonlyMap<string, ProviderAdapter>,
  chat: ChatQuestions,
): ReadonlyMap<string, ProviderAdapter> {
  const withChat = new Map(adapters);
  withChat.set("telegram", telegramAdapterWith(chat));
  withChat.set("slack_app", slackAppAdapterWith(chat));
  return withChat;
}

/** The supervisor of every chat answer loop (broker.ts). */
export function chatSupervisor(
  outbound: OutboundService,
  interactions: InteractionService,
  store: ChatStore,
  bus: DomainBus,
  unit: UnitOfWork,
  clock: Clock,
  logger: Logger,
  timings?: ChatTimings,
): ChatSupervisor {
  return new ChatSupervisor(
    outbound,
    interactions,
    store,
    bus,
    unit,
    clock,
    logger,
    (profile) => {
      if (profile.kind === "telegram" && profile.settings.answers === true) return telegramLoop;
      if (profile.kind === "slack_app") return slackLoop;
      return undefined;
    },
    timings,
  );
}
