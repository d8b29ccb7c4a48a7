import { showBidiControls } from "@notify/contracts/text";
import type { InteractionDto } from "../interactions/types.js";
import type { TypeRegistry } from "../notifications/type-ids.js";
import type { NotificationDto, Priority } from "../notifications/types.js";

/**
 * docs/desktop.md, "Local presentation rules", rule 7: the lifetime of a toast whose type has no enabled definition.
 */
export const FALLBACK_TOAST_MS = 7000;

/** One button on a toast: `choice:<choice_id>` answers a question, `default` opens the web UI at the item. */
export interface ToastAction {
  key: string;
  label: string;
}

/**
 * What a desktop adapter shows; platform-neutral (docs/desktop.md, "Adapter interface (macOS and Windows)"). Title,
 * body and action labels carry no bidi control: each is shown as a visible `<U+202E>` token
 * (docs/security.md, "Bidi controls").
 */
export interface Toast {
  /** `n:<notification id>` or `q:<interaction id>` for a question that has no notification of its own. */
  key: string;
  title: string;
  body: string;
  priority: Priority;
  typeId: string;
  /** The styling's type: the type itself when it has an enabled definition or is built in, else `info`. */
  styleTypeId: string;
  icon: string;
  /** Milliseconds; 0 = until closed (an answerable question stays until it settles). */
  lifetimeMs: number;
  actions: ToastAction[];
  notificationId?: string;
  /** The pending question whose choices are the toast's actions. */
  interactionId?: string;
  /**
   * A pending text question: a server with the `inline-reply` capability shows a reply field (its placeholder
   * here), and the reply answers the question (a follow-up to a finished turn, docs/hooks.md "Follow-ups").
   */
  replyPlaceholder?: string;
}

/** The public id of a toast's item (a notification's, or a question's without one), from the toast's key. */
export function itemIdOfToastKey(key: string): string | undefined {
  return key.startsWith("n:") || key.startsWith("q:") ? key.slice(2) : undefined;
}

/** Built-in types' icons (freedesktop Icon Naming Specification names a notification server knows). */
const BUILT_IN_ICONS: Record<string, string> = {
  info: "dialog-information",
  input_required: "dialog-question",
  permission_required: "dialog-password",
  blocked: "dialog-warning",
  error: "dialog-error",
  completed: "emblem-default",
};

/** Built-in tone per built-in type when neither the per-type choice nor a definition names one. */
export const DEFAULT_TYPE_SOUNDS: Record<string, string> = {
  info: "chime",
  input_required: "ping",
  permission_required: "ping",
  blocked: "knock",
  error: "alert",
  completed: "chime",
};

export interface Styling {
  styleTypeId: string;
  icon: string;
  lifetimeMs: number;
  /** The definition's sound, if it names one. */
  sound?: string;
}

/**
 * docs/desktop.md, "Local presentation rules", rule 7: an enabled custom definition supplies the presentation fields; a
 * built-in type has its own icon; any other type ID falls back to `info` styling. The lifetime is the definition's
 * `toastSeconds`, else 7 seconds.
 */
export function stylingOf(typeId: string, types: TypeRegistry): Styling {
  const definition = types.enabled(typeId);
  if (definition) {
    const styling: Styling = {
      styleTypeId: typeId,
      icon: definition.icon ?? BUILT_IN_ICONS[typeId] ?? BUILT_IN_ICONS.info ?? "",
      lifetimeMs:
        definition.toastSeconds !== undefined ? Math.round(definition.toastSeconds * 1000) : FALLBACK_TOAST_MS,
    };
    if (definition.sound !== undefined) styling.sound = definition.sound;
    return styling;
  }
  const builtIn = BUILT_IN_ICONS[typeId];
  if (builtIn !== undefined) return { styleTypeId: typeId, icon: builtIn, lifetimeMs: FALLBACK_TOAST_MS };
  return { styleTypeId: "info", icon: BUILT_IN_ICONS.info ?? "", lifetimeMs: FALLBACK_TOAST_MS };
}

/** Permission and single-choice questions are answerable from a toast; a text question needs the web page. */
export function isAnswerableOnToast(interaction: InteractionDto): boolean {
  return (
    interaction.status === "pending" && (interaction.kind === "permission" || interaction.kind === "single_choice")
  );
}

export function choiceActions(interaction: InteractionDto): ToastAction[] {
  return interaction.choices.map((choice) => ({ key: `choice:${choice.id}`, label: showBidiControls(choice.label) }));
}

const OPEN_ACTION: ToastAction = { key: "default", label: "Open" };

export function notificationToast(notification: NotificationDto, types: TypeRegistry): Toast {
  const styling = stylingOf(notification.type, types);
  return {
    key: `n:${notification.id}`,
    title: showBidiControls(notification.title),
    body: showBidiControls(notification.message),
    priority: notification.priority,
    typeId: notification.type,
    styleTypeId: styling.styleTypeId,
    icon: styling.icon,
    lifetimeMs: styling.lifetimeMs,
    actions: [OPEN_ACTION],
    notificationId: notification.id,
  };
}

/** A question opened without a notification of its own (POST /v1/interactions) gets a toast of its own. */
export function questionToast(interaction: InteractionDto, types: TypeRegistry, summary?: string): Toast {
  const typeId = interaction.kind === "permission" ? "permission_required" : "input_required";
  const styling = stylingOf(typeId, types);
  const toast: Toast = {
    key: `q:${interaction.id}`,
    title: showBidiControls(
      `${interaction.kind === "permission" ? "Permission needed" : "Question"} from ${interaction.agent}`,
    ),
    body: showBidiControls(interaction.prompt),
    priority: "high",
    typeId,
    styleTypeId: styling.styleTypeId,
    icon: styling.icon,
    lifetimeMs: styling.lifetimeMs,
    actions: [OPEN_ACTION],
  };
  return withQuestion(toast, interaction, summary);
}

/**
 * Adds a pending question's choices to a toast; it then stays until the question settles. `summary` is the one line
 * of what it asks about (`src/db.ts +12 -4`, contextSummary in @notify/contracts/item-context), added to the body.
 */
export function withQuestion(toast: Toast, interaction: InteractionDto, summary?: string): Toast {
  if (summary !== undefined && summary !== "" && !toast.body.endsWith(showBidiControls(summary))) {
    toast = { ...toast, body: `${toast.body}\n${showBidiControls(summary)}` };
  }
  if (interaction.status === "pending" && interaction.kind === "text") {
    return { ...toast, interactionId: interaction.id, replyPlaceholder: `Reply to ${interaction.agent}` };
  }
  if (!isAnswerableOnToast(interaction)) return { ...toast, interactionId: interaction.id };
  return {
    ...toast,
    interactionId: interaction.id,
    lifetimeMs: 0,
    actions: [...choiceActions(interaction), OPEN_ACTION],
  };
}
