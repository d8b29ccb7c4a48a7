import type { FieldValue, FormDecision } from "@notify/contracts/form-context";
import type { ItemContextInput } from "@notify/contracts/item-context";
import { ArcHttpError, type ArcProducer } from "@notify/contracts/producer";
import { delay } from "@notify/contracts/retry";
import { HttpFailure } from "../client/client.js";
import { waitUntilSettled } from "../client/settle-wait.js";
import type { InteractionDto } from "../interactions/types.js";
import { QUESTION_TTL_SECONDS } from "./agents.js";
import { elicitationOutput, fieldValue } from "./elicitation.js";
import type { HookPlan } from "./mapping.js";
import type { HookRun } from "./run-hook.js";

/** What askForm needs of run-hook.ts. */
export interface FormTools {
  markSession(run: HookRun, plan: HookPlan): void;
}

/** A form opens two requests per question; past the broker's POST limit (30 a second) it waits and goes on. */
const RATE_LIMIT_TRIES = 10;

const rateLimited = (error: unknown): boolean =>
  (error instanceof HttpFailure || error instanceof ArcHttpError) && error.status === 429;

/** `send`, again after a second each time the broker says 429 (its window is one second: docs/api.md, "Limits"). */
async function paced<T>(send: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!rateLimited(error) || attempt >= RATE_LIMIT_TRIES) throw error;
      await delay(1_000, signal);
      signal.throwIfAborted();
    }
  }
}

/**
 * Claude Code's Elicitation (docs/hooks.md, "MCP elicitation"): opens the form's questions (each field, then the
 * decision), each with the whole form as its context, and waits for the decision. Accept: the hook waits for every
 * required field still open, then prints the content (an optional field left unanswered sends its default, or
 * nothing). Decline or cancel: printed at once, the fields withdrawn. The decision expiring or dismissed, the agent
 * stopping the hook, a context that cannot be posted (a field could not be checked without it), the broker gone:
 * every question withdrawn and nothing printed, so Claude Code asks in the terminal (in `-p`: cancelled).
 */
export async function askForm(
  run: HookRun,
  producer: ArcProducer,
  plan: HookPlan,
  form: NonNullable<HookPlan["form"]>,
  deadline: AbortSignal,
  tools: FormTools,
): Promise<string | undefined> {
  const now = run.now ?? Date.now;
  const expiresAt = new Date(now() + (run.ttlSeconds ?? QUESTION_TTL_SECONDS) * 1000).toISOString();
  const opened: InteractionDto[] = [];
  // The questions seen settled: nothing of theirs to withdraw.
  const settledKeys = new Set<string>();
  const withdraw = async (): Promise<void> => {
    const open = form.keys.slice(0, opened.length).filter((key) => !settledKeys.has(key));
    await Promise.all(open.map((key) => producer.resolve(key, "not_needed").catch(() => undefined)));
  };
  const signal = AbortSignal.any([run.signal, deadline]);
  try {
    tools.markSession(run, plan);
    for (const [index, question] of form.questions.entries()) {
      // Without its context a field's answer could not be checked: no context, no form.
      const context: ItemContextInput = question.context;
      const { id: contextId } = await paced(
        // Bounded by the run's deadline too, as the other questions' context post is (run-hook.ts, postContext).
        () => run.client.request<{ id: string }>("POST", "/v1/contexts", { body: context, timeoutMs: 10_000, signal }),
        signal,
      );
      const created = await paced(
        () =>
          producer.create(
            {
              key: form.keys[index] as string,
              kind: "question",
              title: question.title,
              message: question.message,
              response: { ...question.response, expires_at: expiresAt },
            },
            { context: plan.context, extensions: { "x-notify-context": { id: contextId } } },
          ),
        signal,
      );
      const interaction = created.interaction as InteractionDto | null;
      if (interaction === null) throw new Error("the broker opened no question");
      opened.push(interaction);
    }
  } catch (error) {
    await withdraw();
    throw error;
  }
  const decision = opened.at(-1) as InteractionDto;
  run.log(`waiting for the form ${decision.id} (${opened.length - 1} fields)`);
  const seen = (index: number, settled: InteractionDto | undefined): InteractionDto | undefined => {
    if (settled !== undefined && settled.status !== "pending") settledKeys.add(form.keys[index] as string);
    return settled;
  };
  const settle = async (index: number): Promise<InteractionDto | undefined> =>
    seen(
      index,
      await waitUntilSettled(run.client, opened[index] as InteractionDto, {
        signal,
        ...(run.backoff !== undefined ? { backoff: run.backoff } : {}),
      }).catch(() => undefined),
    );
  const decided = await settle(opened.length - 1);
  const action = decided?.status === "answered" ? (decided.response?.choice_id as FormDecision) : undefined;
  if (action === undefined) {
    await withdraw();
    run.log(
      run.signal.aborted
        ? "stopped by the agent; withdrew the form"
        : `the form ${decision.id} ended ${decided?.status ?? "unanswered"}; Claude Code asks in the terminal`,
    );
    return undefined;
  }
  const by = decided?.response?.source ?? "notify";
  if (action !== "accept") {
    await withdraw();
    run.log(`the form was answered ${action} (from ${by})`);
    return elicitationOutput(action);
  }
  // Accepted: every required field must have its answer; the optional ones count as they are now.
  // No prototype: a field's name is only ever the content's own key.
  const content: Record<string, FieldValue> = Object.create(null);
  for (const [index, question] of form.questions.entries()) {
    const field = question.field;
    if (field === undefined) continue;
    const interaction = opened[index] as InteractionDto;
    let settled: InteractionDto | undefined;
    if (field.required) {
      settled = await settle(index);
    } else {
      const read = await run.client
        .request<InteractionDto>("GET", `/v1/interactions/${encodeURIComponent(interaction.id)}`)
        .catch(() => undefined);
      settled = seen(index, read);
    }
    const value = settled !== undefined ? fieldValue(field, settled) : undefined;
    if (value !== undefined) content[field.name] = value;
    else if (field.default !== undefined && !field.required) content[field.name] = field.default;
    else if (field.required) {
      await withdraw();
      run.log(`the form's required field ${field.name} was not answered; Claude Code asks in the terminal`);
      return undefined;
    }
  }
  await withdraw();
  run.log(`the form was accepted (from ${by})`);
  return elicitationOutput("accept", content);
}
