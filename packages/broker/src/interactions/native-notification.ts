import type { NotificationService } from "../notifications/service.js";
import type { NotificationInput } from "../notifications/types.js";
import type { InteractionService } from "./service.js";
import type { InteractionDto } from "./types.js";

/**
 * The notification half of a native question (POST /v1/interactions/request, `notify ask`), so a question reaches
 * the person however it was opened: an inbox row, a toast and the outbound routes, as an answerable ARC request
 * gets. Type by kind as ARC's (permission: permission_required; single_choice and text: input_required), priority
 * high, the prompt as the message; `metadata.interaction_id` names the question. The notification resolves when
 * the question settles, whichever way: answered, cancelled, superseded or expired (docs/api.md).
 */
export function nativeNotificationInput(interaction: InteractionDto): NotificationInput {
  const permission = interaction.kind === "permission";
  const input: NotificationInput = {
    agent: interaction.agent,
    type: permission ? "permission_required" : "input_required",
    priority: "high",
    title: `${permission ? "Permission needed" : "Question"} from ${interaction.agent}`,
    message: interaction.prompt,
    metadata: { interaction_id: interaction.id },
  };
  if (interaction.agent_instance !== undefined) input.agentInstance = interaction.agent_instance;
  if (interaction.project !== undefined) input.project = interaction.project;
  return input;
}

/** Wires the notification half into the services (broker.ts); both hooks run inside the question's transaction. */
export function linkNativeQuestions(interactions: InteractionService, notifications: NotificationService): void {
  interactions.onNativeRequestInTransaction(
    (interaction) => notifications.create(nativeNotificationInput(interaction)).notification.id,
  );
  interactions.onSettledWithoutAnswerInTransaction((interaction) => {
    const notificationId = interactions.notificationIdOf(interaction.id);
    if (notificationId === undefined) return;
    // An ARC condition outlives its question (an update supersedes it, the producer resolves): only a native
    // question's own notification closes with it.
    const notification = notifications.get(notificationId);
    if (notification.metadata?.interaction_id === interaction.id) notifications.resolve(notificationId);
  });
}
