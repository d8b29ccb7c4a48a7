import { isFollowUp } from "@notify/contracts/enums";
import type { ItemContext } from "@notify/contracts/item-context";
import { answerSurfaceOfSource } from "@notify/contracts/ui-surfaces";
import type { InteractionDto } from "../interactions/types.js";
import { readableText } from "../outbox/providers/readable-text.js";
import { messageOf, truncate } from "../outbox/providers/text-limits.js";
import type { OutboundPayload, OutboundQuestion } from "../outbox/types.js";

/**
 * The text of a question message: the title, the prompt, then each choice's detail below it (the buttons carry
 * the labels). A text question asks for a reply. Controls are made visible (readableText) before the cut, so the
 * message is what the limit counts; the caller escapes it for its markup, if any.
 */
export function questionBody(
  payload: OutboundPayload,
  question: OutboundQuestion,
  max: number,
  replyHint: string,
): string {
  const lines = [payload.title];
  if (payload.message !== undefined) lines.push("", payload.message);
  const details = question.choices.filter((choice) => choice.detail !== undefined);
  if (details.length > 0) {
    lines.push("");
    for (const choice of details) lines.push(`${choice.label}: ${choice.detail}`);
  }
  if (question.kind === "text") lines.push("", replyHint);
  return truncate(readableText(lines.join("\n")), max);
}

/**
 * What a question asks about, as plain lines for a chat message's code block (docs/hooks.md, "Approvals with
 * context"): each file's header (`src/db.ts +12 -4`) and its diff lines, the command with where and why, the URL, or
 * the input. At most `max` characters: lines past it go, and a last line says how many ("… 40 more lines on the
 * desktop"). Undefined for no context, a turn (chat shows the last message only), or no room.
 */
export function contextBlock(context: ItemContext | undefined, max: number): string | undefined {
  // A form's question says what its field takes in its own prompt (docs/hooks.md, "MCP elicitation").
  if (context === undefined || context.kind === "turn" || context.kind === "form" || max < 80) return undefined;
  const lines: string[] = [];
  const notShown: { count: number } = { count: 0 };
  switch (context.kind) {
    case "diff":
      for (const file of context.files ?? []) {
        const status = file.status === "added" ? "new file " : file.status === "deleted" ? "deleted " : "";
        const stale = file.changed_on_disk ? " (changed on disk since the agent read it)" : "";
        lines.push(`${status}${file.path} +${file.added} -${file.removed}${stale}`);
        if (file.diff !== "") lines.push(...file.diff.split("\n"));
        notShown.count += file.cut_lines ?? 0;
      }
      break;
    case "command":
      lines.push(`$ ${context.command ?? ""}`);
      if (context.cwd !== undefined) lines.push(`(in ${context.cwd})`);
      if (context.reason !== undefined) lines.push(`Reason: ${context.reason}`);
      break;
    case "url":
      lines.push(context.url ?? "");
      if (context.reason !== undefined) lines.push(`Reason: ${context.reason}`);
      break;
    default:
      lines.push(...(context.json ?? "").split("\n"));
  }
  const readable = lines.map((line) => readableText(line));
  const marker = (count: number): string => `… ${count} more ${count === 1 ? "line" : "lines"} on the desktop`;
  const kept: string[] = [];
  let size = 0;
  for (const [index, line] of readable.entries()) {
    const left = readable.length - index + notShown.count;
    const reserve = marker(left).length + 1;
    if (size + line.length + 1 + (index < readable.length - 1 || notShown.count > 0 ? reserve : 0) > max) {
      kept.push(marker(left));
      return kept.join("\n");
    }
    kept.push(line);
    size += line.length + 1;
  }
  if (notShown.count > 0) kept.push(marker(notShown.count));
  return kept.join("\n");
}

/** A notification's text (no question): the title, and after a blank line its message, if it has one. */
export function notificationText(payload: OutboundPayload): string {
  const message = messageOf(payload);
  return message === undefined ? payload.title : `${payload.title}\n\n${message}`;
}

/** Display names of people who answered in a chat, by response id (the outcome line names them). */
const names = new Map<string, string>();

/**
 * `name` as the outcome line shows it on its surface: readable (readableText) and escaped for that surface's
 * markup by the caller (Telegram sends plain text; Slack a `<@U…>` mention of a user id it checked).
 */
export function rememberName(responseId: string, name: string): void {
  names.set(responseId, name);
  if (names.size > 1000) names.delete(names.keys().next().value as string);
}

/** "12:01" in the broker's local time. */
function clock(iso: string | undefined): string {
  const date = iso ? new Date(iso) : new Date();
  return `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}

/**
 * The outcome line a question message is edited to (issue 25): "Allowed by Ann at 12:01" when answered in this
 * chat app, "Answered on the desktop", "Answered on the phone", "Answered in Slack" elsewhere, "Expired",
 * "Cancelled", "Superseded by a newer question". A choice's label and an answer's text are made readable and then
 * passed through `markup` (Slack's mrkdwn escaping; Telegram's edits are plain text); a remembered name is used as
 * stored (rememberName).
 */
export function outcomeLine(
  interaction: InteractionDto,
  here: string,
  markup: (text: string) => string = (text) => text,
): string {
  const response = interaction.response;
  switch (interaction.status) {
    case "pending":
      return "";
    case "expired":
      return "Expired";
    case "cancelled":
      // A follow-up is withdrawn when the session goes on without it (a prompt typed in the terminal).
      return isFollowUp(interaction) ? "Withdrawn: no reply needed" : "Cancelled";
    case "superseded":
      return "Superseded by a newer question";
    case "answered": {
      if (!response) return "Answered";
      const choice = interaction.choices.find((candidate) => candidate.id === response.choice_id);
      const what = markup(
        choice !== undefined
          ? interaction.kind === "permission"
            ? permissionVerb(choice.id, readableText(choice.label))
            : `Answered "${readableText(choice.label)}"`
          : `Answered "${truncate(readableText(response.text ?? ""), 200)}"`,
      );
      if (response.source === here) {
        const who =
          names.get(response.response_id) ??
          markup(readableText(response.device_id?.replace(/^[a-z]+:/, "user ") ?? "someone"));
        return `${what} by ${who} at ${clock(response.created_at)}`;
      }
      if (response.source === "relay") return `Answered on the phone at ${clock(response.created_at)}`;
      // Another chat app: its words in the surface registry (@notify/contracts/ui-surfaces).
      const surface = answerSurfaceOfSource(response.source);
      if (surface && surface.kind !== "relay") return `${what} ${surface.where} at ${clock(response.created_at)}`;
      return `Answered on the desktop at ${clock(response.created_at)}`;
    }
    default:
      return "";
  }
}

function permissionVerb(id: string, label: string): string {
  if (id === "allow") return "Allowed";
  if (id === "deny") return "Denied";
  return `Answered "${label}"`;
}
