import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { BrokerClient } from "../client/client.js";
import { HttpFailure } from "../client/client.js";
import { BrokerLost, waitUntilSettled } from "../client/settle-wait.js";
import { projectOf } from "../hooks/mapping.js";
import type { InteractionDto } from "../interactions/types.js";
import type { NotificationDto } from "../notifications/types.js";
import { VERSION } from "../version.js";
import {
  ASK_PERSON,
  ASK_PERSON_DESCRIPTION,
  type AskPersonArgs,
  askPersonInput,
  askPersonOutput,
  askResult,
  askResultText,
  NOTIFY_PERSON,
  NOTIFY_PERSON_DESCRIPTION,
  type NotifyPersonArgs,
  notifyPersonInput,
  notifyPersonOutput,
} from "./tools.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Claude Code defers MCP tools behind its ToolSearch tool, so a model sees their names only after searching: a model
 * that does not know it can ask its person will not search for a way to. `anthropic/alwaysLoad` keeps both tools in
 * the prompt (the same as `alwaysLoad` in the server's entry, which `notify mcp install` writes too).
 */
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true };

/**
 * Sent with the question and with every wait (docs/mcp.md, "When the asker dies"): the broker withdraws the question
 * a few seconds after the last wait of this server ends without an answer, so a server killed outright (SIGKILL, a
 * crash, the host's whole process group gone) leaves no question escalating to the phone and the chats.
 */
const ABANDON = { abandon: "cancel" } as const;

/** The same client with the opt-in on every request: the long-poll's waits go through it. */
function withAbandon(client: BrokerClient): BrokerClient {
  return {
    baseUrl: client.baseUrl,
    request: (method, path, options = {}) =>
      client.request(method, path, { ...options, query: { ...options.query, ...ABANDON } }),
  };
}

/** Seconds between progress notifications while a question waits (the first goes out as soon as it is open). */
export const PROGRESS_INTERVAL_MS = 15_000;

export interface NotifyMcpOptions {
  /**
   * The broker and its token, resolved at every call: a broker started (or a token created) after the host started
   * this server is found without a restart. Throws for an unusable config (its message becomes the tool error).
   */
  broker: () => { client: BrokerClient; token: string | undefined };
  /** The host's working directory: the question's project. */
  cwd: string;
  /** The host's environment: where a session id may come from (sessionOf). */
  env: NodeJS.ProcessEnv;
  progressIntervalMs?: number;
  /** Reconnect backoff of the wait; tests shorten it. */
  backoff?: { baseMs: number; maxMs: number };
  /** One line of diagnostics on stderr (hosts log a server's stderr); never a token or a nonce. */
  log: (line: string) => void;
}

export interface NotifyMcp {
  server: McpServer;
  /** Withdraws every question still waiting (the host went away) and stops the waits. */
  withdrawAll(): Promise<void>;
}

/** What the host calls itself in `initialize`, as the question's agent: the names Notify's hooks use for the same agents. */
export function agentOf(clientName: string | undefined): string {
  const name = (clientName ?? "").trim();
  if (name === "") return "unknown";
  if (/^claude[-_ ]?code/i.test(name)) return "claude-code";
  if (/^codex/i.test(name)) return "codex";
  // Copilot CLI 1.0.102 says "copilot-cli", Gemini CLI 0.61 "gemini-cli-mcp-client", OpenCode 1.18 "opencode".
  if (/^(?:github[-_ ]?)?copilot/i.test(name)) return "copilot";
  if (/^gemini[-_ ]?cli/i.test(name)) return "gemini";
  if (/^opencode$/i.test(name)) return "opencode";
  return Array.from(name).slice(0, 100).join("");
}

/**
 * The host's session, when it says which: a `_meta` field of the call (Claude Code's `claudecode/sessionId`, or a
 * plain `sessionId`/`session_id`), else the environment the host started this server with (Claude Code's
 * CLAUDE_CODE_SESSION_ID, Codex's CODEX_THREAD_ID). docs/api.md, "POST /v1/interactions/request", caps session_id at
 * 100 characters; a longer one is left out.
 */
export function sessionOf(meta: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = [
    meta?.["claudecode/sessionId"],
    meta?.sessionId,
    meta?.session_id,
    env.CLAUDE_CODE_SESSION_ID,
    env.CODEX_THREAD_ID,
  ];
  for (const value of candidates) {
    if (typeof value === "string" && value !== "" && Array.from(value).length <= 100) return value;
  }
  return undefined;
}

const toolError = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/** A failed broker call as the sentence a model (and its person) can act on. */
function brokerProblem(error: unknown): string {
  if (error instanceof HttpFailure) {
    if (error.status === 401) {
      return "Notify refused the broker token (401). Run `notify token` and give this server the token it prints (NOTIFY_TOKEN), or restart the host after `notify serve` created it.";
    }
    return `Notify's broker refused the request: ${error.status} ${error.serverMessage}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/cannot reach the broker|did not answer in time/.test(message)) {
    return `${message}. Start it with \`notify serve\` (or \`notify service install\`), then try again.`;
  }
  return message;
}

export function createNotifyMcp(options: NotifyMcpOptions): NotifyMcp {
  const server = new McpServer(
    { name: "notify", version: VERSION },
    {
      instructions:
        "Notify reaches the person this agent works for, wherever they are. Call ask_person only for a decision only they can make; call notify_person to tell them something worth knowing while they are away.",
    },
  );
  const project = projectOf(options.cwd);
  /** Questions still waiting, by id: withdrawn when the host goes away. */
  const waiting = new Map<string, { client: BrokerClient; stop: AbortController }>();

  const agent = (): string => agentOf(server.server.getClientVersion()?.name);

  /** The broker, or the reason no call can go out (the token is missing, or config.json cannot be read). */
  const connect = (): { client: BrokerClient } | { problem: string } => {
    try {
      const { client, token } = options.broker();
      if (token === undefined) {
        return {
          problem:
            "Notify has no broker token here: run `notify serve` once (it creates the token in config.json), or set NOTIFY_TOKEN for this server, then try again.",
        };
      }
      return { client };
    } catch (error) {
      return { problem: brokerProblem(error) };
    }
  };

  server.registerTool(
    ASK_PERSON,
    {
      title: "Ask the person",
      description: ASK_PERSON_DESCRIPTION,
      inputSchema: askPersonInput,
      outputSchema: askPersonOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
      _meta: ALWAYS_LOAD,
    },
    async (args: AskPersonArgs, extra: Extra): Promise<CallToolResult> => {
      const connection = connect();
      if ("problem" in connection) return toolError(connection.problem);
      const { client } = connection;
      const session = sessionOf(extra._meta as Record<string, unknown> | undefined, options.env);
      let interaction: InteractionDto;
      try {
        interaction = await client.request<InteractionDto>("POST", "/v1/interactions/request", {
          query: ABANDON,
          body: {
            kind: args.kind,
            prompt: args.prompt,
            choices: args.choices,
            ttl_seconds: args.ttl_seconds,
            text_max_length: args.text_max_length,
            agent: agent(),
            project,
            session_id: session,
          },
        });
      } catch (error) {
        return toolError(brokerProblem(error));
      }
      // The host may have given up while the question was being opened.
      const stop = new AbortController();
      const onAbort = (): void => stop.abort();
      extra.signal.addEventListener("abort", onAbort, { once: true });
      waiting.set(interaction.id, { client, stop });
      options.log(`waiting for an answer to interaction ${interaction.id}`);
      const progress = startProgress(extra, interaction, options.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
      try {
        if (extra.signal.aborted) stop.abort();
        const settled = await waitUntilSettled(withAbandon(client), interaction, {
          signal: stop.signal,
          ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
          onRetry: (attempt) => {
            if (attempt === 1) options.log("lost the broker; reconnecting until the question expires");
          },
        });
        const result = askResult(settled);
        return {
          content: [{ type: "text", text: askResultText(settled, result) }],
          structuredContent: { ...result },
        };
      } catch (error) {
        if (stop.signal.aborted) {
          await withdraw(client, interaction.id, options.log);
          return toolError(`The question was withdrawn (interaction ${interaction.id}).`);
        }
        if (error instanceof BrokerLost) {
          return toolError(
            `Lost Notify's broker until the question (interaction ${interaction.id}) expired. Start it with \`notify serve\`, then ask again if it still matters.`,
          );
        }
        return toolError(brokerProblem(error));
      } finally {
        progress.stop();
        extra.signal.removeEventListener("abort", onAbort);
        waiting.delete(interaction.id);
      }
    },
  );

  server.registerTool(
    NOTIFY_PERSON,
    {
      title: "Notify the person",
      description: NOTIFY_PERSON_DESCRIPTION,
      inputSchema: notifyPersonInput,
      outputSchema: notifyPersonOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      _meta: ALWAYS_LOAD,
    },
    async (args: NotifyPersonArgs): Promise<CallToolResult> => {
      const connection = connect();
      if ("problem" in connection) return toolError(connection.problem);
      try {
        const notification = await connection.client.request<NotificationDto>("POST", "/v1/notifications", {
          body: {
            title: args.title,
            message: args.message,
            type: args.type,
            priority: args.priority,
            agent: agent(),
            project,
            cwd: options.cwd,
          },
        });
        return {
          content: [{ type: "text", text: `Sent to the person (notification ${notification.id}).` }],
          structuredContent: { id: notification.id },
        };
      } catch (error) {
        return toolError(brokerProblem(error));
      }
    },
  );

  return {
    server,
    async withdrawAll() {
      const open = [...waiting.entries()];
      for (const [, entry] of open) entry.stop.abort();
      await Promise.all(open.map(([id, entry]) => withdraw(entry.client, id, options.log)));
    },
  };
}

/** Cancels a question nobody waits for any more (idempotent: one settled meanwhile stays as it is). */
async function withdraw(client: BrokerClient, id: string, log: (line: string) => void): Promise<void> {
  try {
    await client.request("POST", `/v1/interactions/${encodeURIComponent(id)}/cancel`, { timeoutMs: 5_000 });
    log(`withdrew interaction ${id}`);
  } catch (error) {
    log(`could not withdraw interaction ${id}: ${(error as Error).message}`);
  }
}

/**
 * MCP progress notifications while the question waits, when the host asked for them (a progressToken): one at once,
 * naming the question, then one per interval, so the host can show that the call is alive.
 */
function startProgress(extra: Extra, interaction: InteractionDto, intervalMs: number): { stop(): void } {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { stop() {} };
  let count = 0;
  const started = Date.now();
  const send = (): void => {
    count += 1;
    const seconds = Math.round((Date.now() - started) / 1000);
    extra
      .sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: count,
          message: `waiting for the person to answer in Notify (interaction ${interaction.id}, ${seconds}s so far)`,
        },
      })
      .catch(() => undefined);
  };
  send();
  const timer = setInterval(send, intervalMs);
  return { stop: () => clearInterval(timer) };
}
