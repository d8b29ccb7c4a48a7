import {
  type ClientOptions,
  createClient,
  HttpFailure,
  parseIntegerOption,
  printJson,
  withoutNonce,
} from "../../client/client.js";
import { waitUntilSettled } from "../../client/settle-wait.js";
import type { Choice, InteractionDto } from "../../interactions/types.js";
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

/**
 * `notify ask` exit codes (docs/cli.md): each way a question can end has its own, so a script can tell them
 * apart. The answer is printed on stdout whenever there is one, a denial included.
 */
export const ASK_EXIT = {
  answered: 0,
  /** The broker failed (unreachable at the start, an error answer, lost until the question expired). */
  brokerError: 1,
  /** The token was refused (401), as `send`. */
  unauthorized: 2,
  /** A permission question answered with its `deny` choice. */
  denied: 3,
  expired: 4,
  cancelled: 5,
  superseded: 6,
  /** 128 + the signal's number, as a shell reports a process ended by it. */
  sigint: 130,
  sigterm: 143,
} as const;

/**
 * `notify ask`: opens an interaction and blocks until it is settled, as durable as the question: a broker that
 * restarts is reconnected with backoff until the question expires. SIGINT and SIGTERM end the wait; the question
 * is cancelled only when it has no key (a keyed one may be shared by another waiter, who keeps waiting).
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
  if (options.kind === "text" && choices.length > 0) throw new ExitError(1, "--choice is not allowed with --kind text");
  const client = createClient(options);
  let interaction: InteractionDto;
  try {
    interaction = await client.request<InteractionDto>("POST", "/v1/interactions/request", { body, flags: ASK_FLAGS });
  } catch (error) {
    throw withAskCode(error);
  }
  const path = `/v1/interactions/${encodeURIComponent(interaction.id)}`;

  const interrupted = new AbortController();
  let signal: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals) => (): void => {
    signal ??= name;
    interrupted.abort();
  };
  const onSigint = onSignal("SIGINT");
  const onSigterm = onSignal("SIGTERM");
  // `once`: a second signal while the cancel is on its way gets the default behaviour and ends the process.
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigterm);
  let lost = false;
  try {
    process.stderr.write(
      `notify: waiting for an answer to interaction ${interaction.id} (${answerHint(interaction)})\n`,
    );
    interaction = await waitUntilSettled(client, interaction, {
      signal: interrupted.signal,
      onRetry: () => {
        if (!lost) process.stderr.write("notify: lost the broker; reconnecting until the question expires\n");
        lost = true;
      },
    });
  } catch (error) {
    if (!interrupted.signal.aborted) throw withAskCode(error);
    const code = signal === "SIGTERM" ? ASK_EXIT.sigterm : ASK_EXIT.sigint;
    if (interaction.key !== undefined) {
      throw new ExitError(code, `interrupted; left keyed interaction ${interaction.id} open for its other waiters`);
    }
    try {
      await client.request<InteractionDto>("POST", `${path}/cancel`);
    } catch {
      throw new ExitError(code, `interrupted; could not cancel interaction ${interaction.id}`);
    }
    throw new ExitError(code, `interrupted; cancelled interaction ${interaction.id}`);
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  }

  if (options.json) printJson(withoutNonce(interaction));
  switch (interaction.status) {
    case "answered": {
      const response = interaction.response;
      const answer = interaction.kind === "text" ? response?.text : response?.choice_id;
      if (!options.json) process.stdout.write(`${answer ?? ""}\n`);
      if (interaction.kind === "permission" && response?.choice_id === "deny") {
        throw new ExitError(ASK_EXIT.denied);
      }
      return;
    }
    case "expired":
      throw new ExitError(ASK_EXIT.expired, `interaction ${interaction.id} expired without an answer`);
    case "cancelled":
      throw new ExitError(ASK_EXIT.cancelled, `interaction ${interaction.id} was cancelled`);
    case "superseded":
      throw new ExitError(
        ASK_EXIT.superseded,
        `interaction ${interaction.id} was superseded by a newer request with the same key`,
      );
    case "pending":
      throw new ExitError(ASK_EXIT.brokerError, `interaction ${interaction.id} is still pending`);
    default: {
      const _exhaustive: never = interaction.status;
      throw new ExitError(ASK_EXIT.brokerError, `interaction ${interaction.id} ended as ${String(_exhaustive)}`);
    }
  }
}

/** The flag of each field of the request body, for the broker's 400s (issue 21, item 21). */
const ASK_FLAGS = {
  kind: "--kind",
  prompt: "the prompt",
  choices: "--choice",
  text_max_length: "--text-max-length",
  ttl_seconds: "--ttl",
  key: "--key",
  agent: "--agent",
  project: "--project",
  session_id: "--session",
};

/** A 401 exits 2 (as `send`); every other failure keeps exit 1. */
function withAskCode(error: unknown): unknown {
  if (error instanceof HttpFailure && error.status === 401) return new ExitError(ASK_EXIT.unauthorized, error.message);
  return error;
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
