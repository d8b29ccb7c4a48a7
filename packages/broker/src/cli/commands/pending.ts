import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, parseIntegerOption, printJson, withoutNonce } from "../../client/client.js";
import type { Choice, InteractionDto } from "../../interactions/types.js";

export interface PendingOptions extends ClientOptions {
  agent?: string | undefined;
  project?: string | undefined;
  session?: string | undefined;
  limit?: string | undefined;
  json?: boolean | undefined;
}

/** `notify pending`: the open questions, newest first (GET /v1/interactions?pending=true). */
export async function pending(options: PendingOptions): Promise<void> {
  const limit = parseIntegerOption("--limit", options.limit);
  const client = createClient(options);
  const list = await client.request<InteractionDto[]>("GET", "/v1/interactions", {
    query: {
      pending: "true",
      agent: options.agent,
      project: options.project,
      session: options.session,
      limit: limit === undefined ? undefined : String(limit),
    },
    flags: { agent: "--agent", project: "--project", session: "--session", limit: "--limit" },
  });
  if (options.json) {
    printJson(list.map(withoutNonce));
    return;
  }
  if (list.length === 0) {
    process.stderr.write("notify: no open questions\n");
    return;
  }
  const now = Date.now();
  for (const interaction of list) {
    const left = Math.max(0, Math.round((Date.parse(interaction.expires_at) - now) / 1000));
    const answers = interaction.kind === "text" ? "--text <text>" : interaction.choices.map(choiceText).join("|");
    const where = terminalText([interaction.agent, interaction.project].filter((part) => part !== undefined).join("/"));
    const firstLine = terminalText(interaction.prompt.split("\n")[0] ?? "");
    process.stdout.write(
      `${interaction.id}  ${interaction.kind.padEnd(13)} ${where.padEnd(24)} ${`${left}s`.padStart(6)}  ${answers}  ${firstLine}\n`,
    );
  }
}

/**
 * A choice as the person answers it: its id, and its label when that says more (`option_1 (SQLite)` for Claude
 * Code's AskUserQuestion, plain `allow` for a permission question's `Allow`). Agent text, so escaped.
 */
function choiceText(choice: Choice): string {
  const id = terminalText(choice.id);
  return choice.label.toLowerCase() === choice.id.toLowerCase() ? id : `${id} (${terminalText(choice.label)})`;
}
