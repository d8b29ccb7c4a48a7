import type { Choice, InteractionDto } from "../../interactions/types.js";
import { type ClientOptions, createClient, parseIntegerOption, printJson, withoutNonce } from "../client.js";
import { ExitError } from "../exit-error.js";

export interface AskOptions extends ClientOptions {
  prompt: string;
  kind?: string | undefined;
  /** Repeated `--choice id=label[:detail]`. */
  choice?: string[] | undefined;
  textMaxLength?: string | undefined;
  ttl?: string | undefined;
  key?: string | undefined;
  agent?: string | undefined;
  project?: string | undefined;
  session?: string | undefined;
  json?: boolean | undefined;
}

/** Seconds per long-poll (spec 1: wait timeout 1-300, default 60); the client allows some slack on top. */
const WAIT_SECONDS = 60;
const WAIT_REQUEST_TIMEOUT_MS = (WAIT_SECONDS + 30) * 1000;

/**
 * `notify ask`: opens an interaction and blocks until it is terminal. Answered: the choice id (or the text) on
 * stdout, exit 0. Expired, cancelled or superseded: exit 1. SIGINT cancels the interaction and exits 130.
 */
export async function ask(options: AskOptions): Promise<void> {
  const choices = (options.choice ?? []).map(parseChoice);
  const body = {
    kind: options.kind,
    prompt: options.prompt,
    choices: choices.length > 0 ? choices : undefined,
    text_max_length: parseIntegerOption("--text-max-length", options.textMaxLength),
    ttl_seconds: parseIntegerOption("--ttl", options.ttl),
    key: options.key,
    agent: options.agent,
    project: options.project,
    session_id: options.session,
  };
  const client = createClient(options);
  let interaction = await client.request<InteractionDto>("POST", "/v1/interactions/request", { body });
  const path = `/v1/interactions/${encodeURIComponent(interaction.id)}`;

  const interrupted = new AbortController();
  const onSigint = (): void => interrupted.abort();
  // `once`: a second Ctrl-C while the cancel is on its way gets the default behaviour and ends the process.
  process.once("SIGINT", onSigint);
  try {
    process.stderr.write(
      `notify: waiting for an answer to interaction ${interaction.id} (${answerHint(interaction)})\n`,
    );
    while (interaction.status === "pending") {
      try {
        // Spec 1, wait: a timeout returns the still pending interaction and the caller waits again.
        interaction = await client.request<InteractionDto>("GET", `${path}/wait`, {
          query: { timeout: String(WAIT_SECONDS) },
          signal: interrupted.signal,
          timeoutMs: WAIT_REQUEST_TIMEOUT_MS,
        });
      } catch (error) {
        if (!interrupted.signal.aborted) throw error;
        try {
          await client.request<InteractionDto>("POST", `${path}/cancel`);
        } catch {
          throw new ExitError(130, `interrupted; could not cancel interaction ${interaction.id}`);
        }
        throw new ExitError(130, `interrupted; cancelled interaction ${interaction.id}`);
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
  }

  if (options.json) printJson(withoutNonce(interaction));
  switch (interaction.status) {
    case "answered": {
      if (options.json) return;
      const response = interaction.response;
      const answer = interaction.kind === "text" ? response?.text : response?.choice_id;
      process.stdout.write(`${answer ?? ""}\n`);
      return;
    }
    case "expired":
      throw new ExitError(1, `interaction ${interaction.id} expired without an answer`);
    case "cancelled":
      throw new ExitError(1, `interaction ${interaction.id} was cancelled`);
    case "superseded":
      throw new ExitError(1, `interaction ${interaction.id} was superseded by a newer request with the same key`);
    default: {
      const _exhaustive: never = interaction.status;
      throw new ExitError(1, `interaction ${interaction.id} ended as ${String(_exhaustive)}`);
    }
  }
}

/** `id=label[:detail]`; the label ends at the first colon, so a detail may hold more colons. */
export function parseChoice(spec: string): Choice {
  const equals = spec.indexOf("=");
  if (equals <= 0 || equals === spec.length - 1) {
    throw new ExitError(1, `--choice ${spec}: expected id=label[:detail]`);
  }
  const id = spec.slice(0, equals);
  const rest = spec.slice(equals + 1);
  const colon = rest.indexOf(":");
  if (colon === -1) return { id, label: rest };
  const detail = rest.slice(colon + 1);
  return detail === "" ? { id, label: rest.slice(0, colon) } : { id, label: rest.slice(0, colon), detail };
}

function answerHint(interaction: InteractionDto): string {
  if (interaction.kind === "text") return `answer with: notify answer ${interaction.id} --text <text>`;
  const ids = interaction.choices.map((choice) => choice.id).join("|");
  return `answer with: notify answer ${interaction.id} --choice ${ids}`;
}
