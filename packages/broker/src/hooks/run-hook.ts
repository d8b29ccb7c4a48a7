import { randomUUID } from "node:crypto";
import type { ItemContextInput } from "@notify/contracts/item-context";
import { ArcHttpError, ArcProducer } from "@notify/contracts/producer";
import { backoffMs, delay } from "@notify/contracts/retry";
import { replySurface } from "@notify/contracts/ui-timeline-words";
import type { BrokerClient } from "../client/client.js";
import { waitUntilSettled } from "../client/settle-wait.js";
import type { FollowUpResponse } from "../http/routes/follow-up.js";
import type { InteractionDto } from "../interactions/types.js";
import type { SessionObservation } from "../sessions/sessions.js";
import { type AgentId, QUESTION_TTL_SECONDS } from "./agents.js";
import { askForm } from "./ask-form.js";
import { answerOf, answersOutput, OTHER_CHOICE_ID } from "./ask-user-question.js";
import { continueOutput, decisionOutput } from "./decision-output.js";
import { alwaysRule, type DecisionId, decisionChoices, type PermissionUpdate, wordsQuestion } from "./decisions.js";
import type { FollowUpCount } from "./follow-up-count.js";
import { parseHookInput } from "./hook-input.js";
import { type HookPlan, planHook, sessionKey, toolKeyPrefix } from "./mapping.js";
import type { OpenMarks } from "./open-marks.js";
import { cut } from "./prompt.js";
import { toolContextWithRead } from "./tool-context.js";
import { readTurn } from "./transcript.js";

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
  /**
   * The data dir's marks of sessions that may hold an open hook question (open-marks.ts): without one, an event that
   * only withdraws asks the broker nothing. Absent: the broker is always asked.
   */
  marks?: OpenMarks;
  /** Follow-up replies in a row per session (follow-up-count.ts); absent: a finished turn never asks. */
  followUps?: FollowUpCount;
  /**
   * Claude Code's own cap on Stop blocks in a row (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` in the hook's environment,
   * default CLAUDE_STOP_BLOCK_CAP): a block past it is overridden, so a reply past it would be lost.
   */
  stopBlockCap?: number;
  /**
   * Records what the event says about its session (issue 37, item 1): the http hook inside the broker records it
   * directly, a command hook appends it to the data dir's journal (sessions/journal.ts), never a request.
   */
  observe?: (observation: SessionObservation) => void;
}

/** A mark is cleared only when it is older than this before the broker said none is open (a create in flight). */
const MARK_MARGIN_MS = 30_000;

/** Each request but the long-poll gets this long (issue 21, item 10: the hook never waits unbounded). */
const REQUEST_TIMEOUT_MS = 10_000;
/** The hook gives up this long after its question's expiry, when the broker has not said `expired` itself. */
const EXPIRY_GRACE_MS = 5_000;
/** The whole run of an event that asks nothing (a notification, a withdrawal). */
const EVENT_BUDGET_MS = 30_000;
/** The whole run of a finished turn that may wait for a reply: followUp.waitSeconds is at most a day. */
const FOLLOW_UP_BUDGET_MS = 86_400_000 + EXPIRY_GRACE_MS + EVENT_BUDGET_MS;

/** A deadline for the whole run: every request of the hook ends by then, whatever the broker does. */
interface Deadline {
  signal: AbortSignal;
  /** True once the deadline has passed. */
  passed(): boolean;
}

function deadlineIn(ms: number): Deadline {
  const signal = AbortSignal.timeout(Math.max(0, ms));
  return { signal, passed: () => signal.aborted };
}

/**
 * The producer's fetch, bounded: each request ends after REQUEST_TIMEOUT_MS or at the run's deadline. A broker that
 * accepts the connection and then stops (SIGSTOP, a hung process) can no longer hold the hook past its question.
 */
function boundedFetch(deadline: Deadline): typeof globalThis.fetch {
  return (input, init) => {
    const signals = [deadline.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)];
    if (init?.signal) signals.push(init.signal);
    return globalThis.fetch(input, { ...init, signal: AbortSignal.any(signals) });
  };
}

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
  // The question's expiry plus a few seconds, or a short budget for an event that asks nothing.
  const ttlSeconds = run.ttlSeconds ?? QUESTION_TTL_SECONDS;
  const asks = plan.ask !== undefined || plan.questions !== undefined || plan.form !== undefined;
  // A finished turn may wait for a reply (up to followUp.waitSeconds, at most a day): its deadline is its own.
  const deadline = deadlineIn(
    asks ? ttlSeconds * 1000 + EXPIRY_GRACE_MS : plan.followUp !== undefined ? FOLLOW_UP_BUDGET_MS : EVENT_BUDGET_MS,
  );
  const producer = new ArcProducer({
    baseUrl: run.broker.baseUrl,
    token: run.broker.token,
    sender: plan.sender,
    fetch: boundedFetch(deadline),
  });
  try {
    if (plan.session !== undefined && input.sessionId !== undefined) observeSession(run, plan, input.sessionId);
    if (plan.settle !== undefined) await settle(run, producer, plan);
    if (plan.followUp !== undefined && plan.notify !== undefined && run.followUps !== undefined) {
      const output = await followUp(run, producer, plan, plan.followUp, plan.notify, run.followUps);
      if (output !== false) return output;
    }
    if (plan.notify !== undefined) {
      const { key, kind, title, message } = plan.notify;
      await producer.create({ key, kind, title, message }, { context: plan.context });
    }
    if (plan.ask?.gate === true && (await present(run))) {
      run.log("the person is present; the agent's own prompt applies");
      return undefined;
    }
    if (plan.ask !== undefined) return await ask(run, producer, plan, plan.ask, deadline);
    if (plan.questions !== undefined) return await askQuestions(run, producer, plan, plan.questions, deadline);
    if (plan.form !== undefined) {
      return await askForm(run, producer, plan, plan.form, deadline.signal, { markSession });
    }
  } catch (error) {
    run.log(deadline.passed() ? "the broker did not answer in time; the agent decides" : describe(error));
  }
  return undefined;
}

/**
 * A before-tool gate's presence check (issue 38): the broker's combined presence, read as the
 * follow-up reads it. Only `present` keeps the gate out of the way; away, unknown or a broker that cannot say: ask.
 */
async function present(run: HookRun): Promise<boolean> {
  try {
    const state = await run.client.request<FollowUpResponse>("GET", "/v1/follow-up", { timeoutMs: REQUEST_TIMEOUT_MS });
    return state.presence === "present";
  } catch (error) {
    run.log(`cannot read the presence (${describe(error)}); asking`);
    return false;
  }
}

/** Tells the broker what the event says about its session; never a request, and a failure loses only that. */
function observeSession(run: HookRun, plan: HookPlan, sessionId: string): void {
  const session = plan.session;
  if (session === undefined || run.observe === undefined) return;
  try {
    run.observe({
      agent: plan.sender.id,
      sessionId,
      signal: session.signal,
      ...(plan.context.project !== undefined ? { project: plan.context.project } : {}),
      ...(plan.context.cwd !== undefined ? { cwd: plan.context.cwd } : {}),
      ...(session.lastMessage !== undefined ? { lastMessage: cut(session.lastMessage, 500) } : {}),
    });
  } catch (error) {
    run.log(`cannot record the session (${(error as Error).message})`);
  }
}

/**
 * Failures worth sending the same event again for: a broker that took the request and did not answer in time (busy,
 * or stopped and perhaps resumed). A refused connection is a broker that is not running: the agent decides at once.
 */
function retriable(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/** Between two sends of a question the broker did not take: about 1 s, doubling, at most 5 s. */
const RETRY_BACKOFF = { baseMs: 1_000, maxMs: 5_000 };

async function ask(
  run: HookRun,
  producer: ArcProducer,
  plan: HookPlan,
  question: NonNullable<HookPlan["ask"]>,
  deadline: Deadline,
): Promise<string | undefined> {
  const now = run.now ?? Date.now;
  const expiresAt = new Date(now() + (run.ttlSeconds ?? QUESTION_TTL_SECONDS) * 1000).toISOString();
  // The same event (same event_id) is sent again after a timeout: the broker replays it rather than asking twice.
  const eventId = randomUUID();
  // A file changed on disk since the agent last read it is flagged (Claude Code's transcript, tool-context.ts).
  const context = await toolContextWithRead(question.tool.name, question.tool.input, plan.context.cwd, {
    agent: run.agent,
    ...(plan.transcriptPath !== undefined ? { transcriptPath: plan.transcriptPath } : {}),
  });
  const contextId = await postContext(run, context, deadline.signal);
  const { name: toolName, input: toolInput, suggestions } = question.tool;
  const choices = decisionChoices(run.agent, question.format, toolName, toolInput, suggestions);
  let created: Awaited<ReturnType<ArcProducer["create"]>> | undefined;
  for (let attempt = 1; created === undefined; attempt++) {
    try {
      markSession(run, plan);
      created = await producer.create(
        {
          key: question.key,
          kind: "permission",
          message: question.message,
          response: { kind: "permission", choices, expires_at: expiresAt },
        },
        {
          context: plan.context,
          eventId,
          ...(contextId !== undefined ? { extensions: { "x-notify-context": { id: contextId } } } : {}),
        },
      );
    } catch (error) {
      if (deadline.passed()) {
        run.log("the broker did not take the question before it would have expired; the agent decides");
        return undefined;
      }
      if (run.signal.aborted || !retriable(error)) throw error;
      if (attempt === 1) run.log("the broker does not answer; trying again until the question would expire");
      const stop = AbortSignal.any([run.signal, deadline.signal]);
      await delay(backoffMs(attempt, RETRY_BACKOFF), stop);
      stop.throwIfAborted();
    }
  }
  const interaction = created.interaction as InteractionDto | null;
  if (interaction === null) return undefined;
  run.log(`waiting for an answer to interaction ${interaction.id}`);
  const settled = await waitForAnswer(run, producer, question.key, interaction, deadline.signal, {
    lost: "lost the broker; reconnecting until the question expires",
    quiet: "expired while the broker did not answer; the agent decides",
  });
  if (settled === undefined) return undefined;
  if (settled.status === "answered") {
    const by = settled.response?.source ?? "notify";
    switch (settled.response?.choice_id as DecisionId | undefined) {
      case "allow":
        return decisionOutput(question.format, "allow", by);
      case "deny":
        return decisionOutput(question.format, "deny", by);
      case "allow_always":
      case "allow_always_project": {
        const rules = alwaysRule(toolName, toolInput, suggestions);
        if (rules === undefined) return decisionOutput(question.format, "allow", by);
        const update: PermissionUpdate = {
          type: "addRules",
          rules,
          behavior: "allow",
          destination: settled.response?.choice_id === "allow_always" ? "session" : "localSettings",
        };
        return decisionOutput(question.format, "allow", by, { updatedPermissions: [update] });
      }
      case "deny_reason":
      case "edit":
        return await askForWords(run, producer, plan, question, {
          decision: settled.response?.choice_id as "deny_reason" | "edit",
          expiresAt: interaction.expires_at,
          deadline,
        });
      default:
        return undefined;
    }
  }
  if (settled.status === "expired") {
    // Nobody answered in time: the agent's own prompt decides, so the notification stops asking too.
    await producer.resolve(question.key, "expired").catch(() => undefined);
  }
  run.log(`interaction ${interaction.id} ended ${settled.status}; the agent decides`);
  return undefined;
}

/** The key of a question's words question: the same item, the first question's key and `:words`. */
const wordsKey = (key: string): string => `${key}:words`;

/** Opens the text question that takes the person's words after a choice that needs them (a reason, an answer). */
async function openWords(
  producer: ArcProducer,
  plan: HookPlan,
  key: string,
  words: { title: string; message: string; expiresAt: string },
): Promise<InteractionDto | null> {
  const created = await producer.create(
    {
      key,
      kind: "question",
      title: words.title,
      message: words.message,
      response: { kind: "text", text_max_length: 2000, expires_at: words.expiresAt },
    },
    { context: plan.context },
  );
  return created.interaction as InteractionDto | null;
}

/**
 * The second question of a decision that needs words (docs/hooks.md, "Every decision the agent takes"): the reason for a deny, or the
 * edited command, as a text question in the same item until the first question's deadline. A reason goes with the
 * deny (no reason by then: the deny alone, which is what the person chose); an edited command is allowed in place
 * of the agent's (none by then: no decision, and the agent asks in its own prompt).
 */
async function askForWords(
  run: HookRun,
  producer: ArcProducer,
  plan: HookPlan,
  question: NonNullable<HookPlan["ask"]>,
  words: { decision: "deny_reason" | "edit"; expiresAt: string; deadline: Deadline },
): Promise<string | undefined> {
  const { decision, expiresAt, deadline } = words;
  const { title, message } = wordsQuestion(run.agent, decision, question.tool.input);
  const key = wordsKey(question.key);
  const interaction = await openWords(producer, plan, key, { title, message, expiresAt });
  const settled =
    interaction === null
      ? undefined
      : await waitForAnswer(run, producer, key, interaction, deadline.signal, {
          lost: "lost the broker; reconnecting until the question expires",
          quiet: "expired while the broker did not answer",
        });
  const text = settled?.status === "answered" ? settled.response?.text?.trim() : undefined;
  const by = settled?.response?.source ?? "notify";
  if (decision === "deny_reason") {
    return decisionOutput(question.format, "deny", by, text ? { message: text } : {});
  }
  if (!text) {
    run.log("no edited command before the question expired; the agent decides");
    return undefined;
  }
  const input = question.tool.input;
  const updatedInput = { ...(input !== null && typeof input === "object" ? input : {}), command: text };
  return decisionOutput(question.format, "allow", by, { updatedInput });
}

/**
 * Waits for `interaction` to settle. The agent stopping the hook (the person answered or typed in its own terminal)
 * withdraws the question under `key`; the deadline passing while the broker does not answer ends the wait quietly.
 * Both: undefined, one line logged.
 */
async function waitForAnswer(
  run: HookRun,
  producer: ArcProducer,
  key: string,
  interaction: InteractionDto,
  deadline: AbortSignal,
  words: { lost: string; quiet: string },
): Promise<InteractionDto | undefined> {
  try {
    return await waitUntilSettled(run.client, interaction, {
      signal: AbortSignal.any([run.signal, deadline]),
      ...(run.backoff !== undefined ? { backoff: run.backoff } : {}),
      onRetry: (attempt) => {
        if (attempt === 1) run.log(words.lost);
      },
    });
  } catch (error) {
    if (run.signal.aborted) {
      await producer.resolve(key, "not_needed").catch(() => undefined);
      run.log(`stopped by the agent; withdrew interaction ${interaction.id}`);
      return undefined;
    }
    if (deadline.aborted) {
      run.log(`interaction ${interaction.id} ${words.quiet}`);
      return undefined;
    }
    throw error;
  }
}

/**
 * Claude Code's AskUserQuestion: opens every question at once and waits for them all. All answered: the answers, in
 * the PreToolUse output Claude Code hands the model. One expired or dismissed, the agent stopping the hook (the
 * person pressed Esc), the broker gone: the rest are withdrawn and nothing is printed, so Claude Code asks in the
 * terminal as usual.
 */
async function askQuestions(
  run: HookRun,
  producer: ArcProducer,
  plan: HookPlan,
  questions: NonNullable<HookPlan["questions"]>,
  deadline: Deadline,
): Promise<string | undefined> {
  const now = run.now ?? Date.now;
  const expiresAt = new Date(now() + (run.ttlSeconds ?? QUESTION_TTL_SECONDS) * 1000).toISOString();
  const withdraw = async (keys: string[]): Promise<void> => {
    await Promise.all(keys.map((key) => producer.resolve(key, "not_needed").catch(() => undefined)));
  };
  const opened: InteractionDto[] = [];
  try {
    markSession(run, plan);
    for (const [index, request] of questions.requests.entries()) {
      const created = await producer.create(
        {
          key: questions.keys[index] as string,
          kind: "question",
          title: request.title,
          message: request.message,
          response: { ...request.response, expires_at: expiresAt },
        },
        { context: plan.context },
      );
      const interaction = created.interaction as InteractionDto | null;
      if (interaction === null) throw new Error("the broker opened no question");
      opened.push(interaction);
    }
  } catch (error) {
    await withdraw(questions.keys.slice(0, opened.length));
    throw error;
  }
  run.log(`waiting for answers to ${opened.map((interaction) => interaction.id).join(", ")}`);
  // One question ending unanswered ends the wait for the others.
  const stop = new AbortController();
  const signal = AbortSignal.any([run.signal, deadline.signal, stop.signal]);
  const answers: Record<string, string> = {};
  const sources = new Set<string>();
  const waits = opened.map(async (interaction, index) => {
    let settled: InteractionDto;
    try {
      settled = await waitUntilSettled(run.client, interaction, {
        signal,
        ...(run.backoff !== undefined ? { backoff: run.backoff } : {}),
        onRetry: (attempt) => {
          if (attempt === 1 && index === 0) run.log("lost the broker; reconnecting until the questions expire");
        },
      });
    } catch (error) {
      if (!signal.aborted) run.log(describe(error));
      stop.abort();
      return;
    }
    const asked = questions.asked[index];
    // "Other…": the person's own words, asked for in a text question of the same item.
    if (asked !== undefined && settled.status === "answered" && settled.response?.choice_id === OTHER_CHOICE_ID) {
      const key = wordsKey(questions.keys[index] as string);
      const words = await openWords(producer, plan, key, {
        title: "Your own answer (sent to Claude Code)",
        message: cut(asked.question, 2000),
        expiresAt,
      }).catch(() => null);
      if (words !== null) {
        settled = await waitUntilSettled(run.client, words, { signal }).catch(() => settled);
        questions.keys.push(key);
      }
    }
    const answer = asked !== undefined ? answerOf(asked, settled) : undefined;
    if (asked === undefined || answer === undefined) {
      run.log(`interaction ${interaction.id} ended ${settled.status}; Claude Code asks in the terminal`);
      stop.abort();
      return;
    }
    answers[asked.question] = answer;
    sources.add(settled.response?.source ?? "notify");
  });
  await Promise.allSettled(waits);
  if (Object.keys(answers).length === questions.asked.length) {
    return answersOutput(questions.toolInput, answers, [...sources].join(", "));
  }
  await withdraw(questions.keys);
  if (run.signal.aborted) run.log("stopped by the agent; withdrew its questions");
  return undefined;
}

/** Claude Code honours this many Stop blocks in a row, then overrides the next one (2.1.330; docs/hooks.md). */
export const CLAUDE_STOP_BLOCK_CAP = 8;

/**
 * A finished turn (docs/hooks.md, "Follow-ups"). Present, follow-ups off, the chain of replies at
 * `followUp.maxInARow`, or a broker that does not know follow-ups: `false`, and the turn ends with the plain
 * "finished" notification. Otherwise the session's item becomes a text question (the agent's last message as its
 * prompt) and the turn waits for it: a reply is the agent's next instruction (the agent's continuation output);
 * no reply by the deadline, an empty one, a withdrawal (a prompt typed in the terminal) or the agent stopping the
 * hook: undefined, and the turn ends as it would have.
 */
async function followUp(
  run: HookRun,
  producer: ArcProducer,
  plan: HookPlan,
  follow: NonNullable<HookPlan["followUp"]>,
  notify: NonNullable<HookPlan["notify"]>,
  counts: FollowUpCount,
): Promise<string | undefined | false> {
  const inARow = counts.before(run.agent, follow.session, follow.continued);
  let state: FollowUpResponse;
  try {
    state = await run.client.request<FollowUpResponse>("GET", "/v1/follow-up", { timeoutMs: REQUEST_TIMEOUT_MS });
  } catch (error) {
    run.log(`cannot read the follow-up settings (${describe(error)}); the turn ends`);
    return false;
  }
  if (state.wait_seconds <= 0 || state.presence === "present") return false;
  if (inARow >= state.max_in_a_row) {
    run.log(`${inARow} follow-ups in a row (followUp.maxInARow ${state.max_in_a_row}); the turn ends`);
    return false;
  }
  const agentCap = run.agent === "claude-code" ? (run.stopBlockCap ?? CLAUDE_STOP_BLOCK_CAP) : undefined;
  if (agentCap !== undefined && inARow >= agentCap) {
    run.log(`${inARow} follow-ups in a row (Claude Code's own cap ${agentCap}); the turn ends`);
    return false;
  }
  const now = run.now ?? Date.now;
  const expiresAt = new Date(now() + state.wait_seconds * 1000).toISOString();
  markSession(run, plan);
  const contextId = await postTurnContext(run, follow, now());
  const created = await producer.create(
    {
      key: notify.key,
      kind: "completion",
      title: notify.title,
      message: follow.prompt,
      response: { kind: "text", text_max_length: 2000, expires_at: expiresAt },
    },
    {
      context: plan.context,
      ...(contextId !== undefined ? { extensions: { "x-notify-context": { id: contextId } } } : {}),
    },
  );
  const interaction = created.interaction as InteractionDto | null;
  if (interaction === null) return false;
  run.log(`waiting up to ${state.wait_seconds} s for a follow-up to interaction ${interaction.id}`);
  const waitDeadline = AbortSignal.timeout(state.wait_seconds * 1000 + EXPIRY_GRACE_MS);
  const settled = await waitForAnswer(run, producer, notify.key, interaction, waitDeadline, {
    lost: "lost the broker; reconnecting until the follow-up window ends",
    quiet: "no follow-up while the broker did not answer; the turn ends",
  });
  if (settled === undefined) return undefined;
  const text = settled.status === "answered" ? settled.response?.text?.trim() : undefined;
  if (text === undefined || text === "") {
    run.log(`interaction ${interaction.id} ended ${settled.status} without a reply; the turn ends`);
    return undefined;
  }
  counts.replied(run.agent, follow.session, inARow);
  const from = replySurface(settled.response?.source, undefined);
  run.log(`interaction ${interaction.id}: a reply from ${from} goes to the agent`);
  return continueOutput(text, run.agent);
}

/** How often, and how far apart, a transcript is read again while its last lines are not written yet. */
const TRANSCRIPT_RETRIES = 40;
const TRANSCRIPT_RETRY_MS = 25;

/**
 * The finished turn's context (docs/api.md, "Item context"): how long it took and the messages before the agent's
 * last one, read from the transcript the agent names, posted before the question so the question is published with
 * it. Nothing to read, or the post failed: undefined, and the question goes without (the reply matters more).
 */
async function postTurnContext(
  run: HookRun,
  follow: NonNullable<HookPlan["followUp"]>,
  nowMs: number,
): Promise<string | undefined> {
  if (follow.transcriptPath === undefined) return undefined;
  // Claude Code writes its transcript behind the hook: the turn's last lines may land a moment after the Stop
  // hook starts. Read again until the transcript ends with the agent's last message, for at most a second.
  let turn = readTurn(run.agent, follow.transcriptPath, follow.lastMessage);
  for (let attempt = 0; turn !== undefined && !turn.complete && attempt < TRANSCRIPT_RETRIES; attempt++) {
    await delay(TRANSCRIPT_RETRY_MS);
    turn = readTurn(run.agent, follow.transcriptPath, follow.lastMessage);
  }
  if (turn === undefined) return undefined;
  const duration = turn.startedMs !== undefined ? nowMs - turn.startedMs : undefined;
  const context: ItemContextInput = {
    kind: "turn",
    messages: turn.messages,
    truncated: turn.truncated,
    ...(duration !== undefined && duration >= 0 ? { duration_ms: Math.round(duration) } : {}),
  };
  return postContext(run, context);
}

/**
 * Posts a question's context (docs/api.md, "Item context") and gives its id for the question's event. Nothing to
 * post, or the post failed: undefined, and the question goes without it (an answer matters more than its picture).
 * A question's post also ends at the run's deadline (its expiry and grace): a stopped broker cannot hold the hook
 * past the question it was to carry.
 */
async function postContext(
  run: HookRun,
  context: ItemContextInput | undefined,
  deadline?: AbortSignal,
): Promise<string | undefined> {
  if (context === undefined) return undefined;
  try {
    const posted = await run.client.request<{ id: string }>("POST", "/v1/contexts", {
      body: context,
      timeoutMs: REQUEST_TIMEOUT_MS,
      ...(deadline !== undefined ? { signal: deadline } : {}),
    });
    return posted.id;
  } catch (error) {
    run.log(`cannot post the question's context (${describe(error)}); it goes without`);
    return undefined;
  }
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
  // No hook question was ever opened in this session: nothing to withdraw, and no request (issue 33, item 3).
  if (run.marks !== undefined && session !== undefined && !run.marks.mayHaveOpen(run.agent, session)) return;
  const lookedAt = Date.now();
  const open = await run.client.request<InteractionDto[]>("GET", "/v1/interactions", {
    query: { pending: "true", session, agent: plan.sender.id, limit: "500" },
  });
  const prefix = toolKeyPrefix(run.agent);
  // A session's end of turn withdraws its tool questions and its follow-up (the session's own item).
  const followUpKey = session !== undefined ? sessionKey(run.agent, session) : undefined;
  const keys = open
    .map((interaction) => interaction.key)
    .filter(
      (key): key is string =>
        key !== undefined &&
        ("keys" in target ? target.keys.includes(key) : key.startsWith(prefix) || key === followUpKey),
    );
  if (keys.length === 0 && "session" in target && session !== undefined) {
    run.marks?.clearIfOlder(run.agent, session, lookedAt - MARK_MARGIN_MS);
  }
  for (const key of new Set(keys)) {
    try {
      await producer.resolve(key, "not_needed");
    } catch (error) {
      // Settled meanwhile (answered, expired): nothing left to withdraw.
      if (!(error instanceof ArcHttpError && error.status === 404)) throw error;
    }
  }
}

/** Marks the session before a question is opened in it, so the events that withdraw know to look. */
function markSession(run: HookRun, plan: HookPlan): void {
  const session = plan.context.session_id;
  if (run.marks === undefined || session === undefined) return;
  try {
    run.marks.mark(run.agent, session);
  } catch (error) {
    // Without the mark, a later PostToolUse would not withdraw this question: better not to ask at all.
    throw new Error(`cannot mark the session in the data dir (${(error as Error).message})`);
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
