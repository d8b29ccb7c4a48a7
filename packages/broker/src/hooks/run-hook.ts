import { ArcHttpError, ArcProducer } from "@notify/contracts/producer";
import type { BrokerClient } from "../cli/client.js";
import { waitUntilSettled } from "../cli/settle-wait.js";
import type { InteractionDto } from "../interactions/types.js";
import { type AgentId, QUESTION_TTL_SECONDS } from "./agents.js";
import { type Decision, decisionOutput } from "./decision-output.js";
import { parseHookInput } from "./hook-input.js";
import { type HookPlan, planHook, toolKeyPrefix } from "./mapping.js";

export interface HookRun {
  agent: AgentId;
  /** The event named on the command line; the payload's hook_event_name wins. */
  event: string;
  /** The agent's JSON (stdin, or Codex's legacy notify argument). */
  payload: string;
  broker: { baseUrl: string; token: string | undefined };
  client: BrokerClient;
  /** Aborted when the agent stops the hook (SIGTERM, SIGINT): the person answered in the agent's own prompt. */
  signal: AbortSignal;
  ttlSeconds?: number;
  pid?: number;
  /** One line of diagnostics (stderr); never carries the token or a nonce. */
  log: (line: string) => void;
  now?: () => number;
  /** Reconnect backoff of the wait; tests shorten it. */
  backoff?: { baseMs: number; maxMs: number };
}

/** The allow/deny choices of every hook question: their ids are what the decision is read from. */
export const HOOK_CHOICES = [
  { id: "allow", label: "Allow" },
  { id: "deny", label: "Deny" },
];

/**
 * Runs one hook invocation and returns what to print on stdout: the decision in the agent's format, or undefined.
 * It never throws: a broker that is down, a bad token, an expired or cancelled question all end in "no decision",
 * so the agent falls back to its own prompt (an unanswered question is never consent and never refusal).
 */
export async function runHook(run: HookRun): Promise<string | undefined> {
  const input = parseHookInput(run.payload);
  if (input === undefined) {
    run.log("the agent's hook input is not a JSON object; nothing to do");
    return undefined;
  }
  const plan = planHook(run.agent, run.event, input, run.pid !== undefined ? { pid: run.pid } : {});
  if (run.broker.token === undefined) {
    run.log("no broker token (run `notify serve` once); the agent decides");
    return undefined;
  }
  const producer = new ArcProducer({ baseUrl: run.broker.baseUrl, token: run.broker.token, sender: plan.sender });
  try {
    if (plan.settle !== undefined) await settle(run, producer, plan);
    if (plan.notify !== undefined) {
      const { key, kind, title, message } = plan.notify;
      await producer.create({ key, kind, title, message }, { context: plan.context });
    }
    if (plan.ask !== undefined) return await ask(run, producer, plan, plan.ask);
  } catch (error) {
    run.log(describe(error));
  }
  return undefined;
}

async function ask(
  run: HookRun,
  producer: ArcProducer,
  plan: HookPlan,
  question: NonNullable<HookPlan["ask"]>,
): Promise<string | undefined> {
  const now = run.now ?? Date.now;
  const expiresAt = new Date(now() + (run.ttlSeconds ?? QUESTION_TTL_SECONDS) * 1000).toISOString();
  const created = await producer.create(
    {
      key: question.key,
      kind: "permission",
      message: question.message,
      response: { kind: "permission", choices: HOOK_CHOICES, expires_at: expiresAt },
    },
    { context: plan.context },
  );
  const interaction = created.interaction as InteractionDto | null;
  if (interaction === null) return undefined;
  run.log(`waiting for an answer to interaction ${interaction.id}`);
  let settled: InteractionDto;
  try {
    settled = await waitUntilSettled(run.client, interaction, {
      signal: run.signal,
      ...(run.backoff !== undefined ? { backoff: run.backoff } : {}),
      onRetry: (attempt) => {
        if (attempt === 1) run.log("lost the broker; reconnecting until the question expires");
      },
    });
  } catch (error) {
    if (run.signal.aborted) {
      // The agent stopped waiting for us (the person answered in its own prompt): withdraw the question.
      await producer.resolve(question.key, "not_needed").catch(() => undefined);
      run.log(`stopped by the agent; withdrew interaction ${interaction.id}`);
      return undefined;
    }
    throw error;
  }
  if (settled.status === "answered") {
    const choice = settled.response?.choice_id;
    if (choice === "allow" || choice === "deny") {
      return decisionOutput(question.format, choice as Decision, settled.response?.source ?? "notify");
    }
    return undefined;
  }
  if (settled.status === "expired") {
    // Nobody answered in time: the agent's own prompt decides, so the notification stops asking too.
    await producer.resolve(question.key, "expired").catch(() => undefined);
  }
  run.log(`interaction ${interaction.id} ended ${settled.status}; the agent decides`);
  return undefined;
}

/**
 * Withdraws the question of this tool call, or every open hook question of the session. The open questions are
 * read first (a GET, not rate limited and no write), so the PostToolUse of every tool call that never asked costs
 * one read instead of a refused event.
 */
async function settle(run: HookRun, producer: ArcProducer, plan: HookPlan): Promise<void> {
  const target = plan.settle;
  if (target === undefined) return;
  const session = "session" in target ? target.session : plan.context.session_id;
  const open = await run.client.request<InteractionDto[]>("GET", "/v1/interactions", {
    query: { pending: "true", session, agent: plan.sender.id, limit: "500" },
  });
  const prefix = toolKeyPrefix(run.agent);
  const keys = open
    .map((interaction) => interaction.key)
    .filter(
      (key): key is string => key !== undefined && ("key" in target ? key === target.key : key.startsWith(prefix)),
    );
  for (const key of new Set(keys)) {
    try {
      await producer.resolve(key, "not_needed");
    } catch (error) {
      // Settled meanwhile (answered, expired): nothing left to withdraw.
      if (!(error instanceof ArcHttpError && error.status === 404)) throw error;
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof ArcHttpError) {
    if (error.status === 401) return "the broker refused the token (401); the agent decides";
    return `the broker answered ${error.status} ${error.error}; the agent decides`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TypeError) return "cannot reach the broker; the agent decides";
  return `${message}; the agent decides`;
}
