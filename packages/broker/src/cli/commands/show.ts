import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, HttpFailure, printJson, withoutNonce } from "../../client/client.js";
import type { InteractionDto } from "../../interactions/types.js";
import type { NotificationDto } from "../../notifications/types.js";

export interface ShowOptions extends ClientOptions {
  id: string;
  json?: boolean | undefined;
}

/**
 * `notify show ID`: one question (int_…) or notification (ntf_…) in full; the prompt is printed whole. An id of
 * neither form is looked up as a question, then as a notification.
 */
export async function show(options: ShowOptions): Promise<void> {
  const client = createClient(options);
  const id = encodeURIComponent(options.id);
  const asNotification = options.id.startsWith("ntf_");
  if (!asNotification) {
    try {
      const interaction = await client.request<InteractionDto>("GET", `/v1/interactions/${id}`);
      return printInteraction(interaction, options.json);
    } catch (error) {
      if (!(error instanceof HttpFailure && error.status === 404) || options.id.startsWith("int_")) throw error;
    }
  }
  const notification = await client.request<NotificationDto>("GET", `/v1/notifications/${id}`);
  if (options.json) return printJson(notification);
  const lines: [string, string | undefined][] = [
    ["id", notification.id],
    ["status", notification.status],
    ["type", notification.type],
    ["priority", notification.priority],
    ["agent", notification.agent],
    ["project", notification.project],
    ["key", notification.key],
    ["created", notification.createdAt],
    ["updated", notification.updatedAt],
    ["title", notification.title],
  ];
  process.stdout.write(`${format(lines)}\n${terminalText(notification.message, { lines: true })}\n`);
}

function printInteraction(interaction: InteractionDto, json: boolean | undefined): void {
  if (json) {
    printJson(withoutNonce(interaction));
    return;
  }
  const response = interaction.response;
  const lines: [string, string | undefined][] = [
    ["id", interaction.id],
    ["status", interaction.status],
    ["kind", interaction.kind],
    ["agent", interaction.agent],
    ["project", interaction.project],
    ["session", interaction.session_id],
    ["key", interaction.key],
    ["created", interaction.created_at],
    ["expires", interaction.expires_at],
    [
      "answer",
      response === undefined
        ? undefined
        : `${response.choice_id ?? JSON.stringify(response.text)} (from ${response.source}, ${response.created_at})`,
    ],
  ];
  const choices = interaction.choices.map(
    (choice) =>
      `  ${terminalText(choice.id)}: ${terminalText(choice.label)}${choice.detail !== undefined ? ` (${terminalText(choice.detail)})` : ""}\n`,
  );
  const prompt = terminalText(interaction.prompt, { lines: true });
  process.stdout.write(`${format(lines)}${choices.length > 0 ? `choices\n${choices.join("")}` : ""}\n${prompt}\n`);
}

/** One `name value` line each (values from agents, so escaped to one line); undefined values are left out. */
function format(lines: [string, string | undefined][]): string {
  return lines
    .filter((line): line is [string, string] => line[1] !== undefined)
    .map(([name, value]) => `${name.padEnd(9)}${terminalText(value)}\n`)
    .join("");
}
