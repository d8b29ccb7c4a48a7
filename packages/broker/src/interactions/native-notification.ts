import type { DomainBus } from "../domain/bus.js";
import type { NotificationService } from "../notifications/service.js";
import type { NotificationInput } from "../notifications/types.js";
import type { NotificationLink } from "./service.js";
import { type InteractionDto, isTerminal } from "./types.js";

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

/** The notification half of a native question, created in the question's unit of work (InteractionService). */
export function nativeNotificationFor(notifications: NotificationService): NotificationLink {
  return (interaction) => notifications.create(nativeNotificationInput(interaction)).notification.id;
}

/**
 * A settled question closes its condition, in the unit of work that settles it, whichever path the answer took
 * (HTTP respond, ARC response.submitted, relay) and whichever way it settled:
 * - answered: the notification it was opened for resolves (an ARC request's condition, or a native question's);
 * - cancelled, superseded or expired: only a native question's own notification resolves. An ARC condition
 *   outlives its question (an update supersedes it, the producer resolves).
 * The outbox's "closed" notice to the phone subscribes to the same event (outbox/interaction-outbox.ts).
 */
export function closeConditions(
  bus: DomainBus,
  notificationIdOf: (interactionId: string) => string | undefined,
  notifications: NotificationService,
): void {
  bus.onRecorded("interaction.changed", (interaction) => {
    if (!isTerminal(interaction.status)) return;
    const notificationId = notificationIdOf(interaction.id);
    if (notificationId === undefined) return;
    if (interaction.status === "answered") {
      notifications.resolve(notificationId);
      return;
    }
    const notification = notifications.get(notificationId);
    if (notification.metadata?.interaction_id === interaction.id) notifications.resolve(notificationId);
  });
}
