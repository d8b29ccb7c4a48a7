import { type ClientOptions, createClient, HttpFailure, parseIntegerOption, printJson } from "../../client/client.js";
import { normalizeTypeId } from "../../notifications/type-ids.js";
import type { NotificationDto } from "../../notifications/types.js";
import { ExitError } from "../exit-error.js";

export interface SendOptions extends ClientOptions {
  title?: string | undefined;
  message?: string | undefined;
  type?: string | undefined;
  priority?: string | undefined;
  agent?: string | undefined;
  agentInstance?: string | undefined;
  project?: string | undefined;
  key?: string | undefined;
  cwd?: string | undefined;
  pid?: string | undefined;
  metadata?: string | undefined;
  json?: boolean | undefined;
}

/** The flag of each field of the request body, for the broker's 400s (issue 21, item 21). */
const SEND_FLAGS = {
  title: "--title",
  message: "--message",
  type: "--type",
  priority: "--priority",
  agent: "--agent",
  agentInstance: "--agent-instance",
  project: "--project",
  key: "--key",
  cwd: "--cwd",
  pid: "--pid",
  metadata: "--metadata",
};

/** `notify send`: POST /v1/notifications; prints the id (the whole notification with --json). */
export async function send(options: SendOptions): Promise<void> {
  let metadata: unknown;
  if (options.metadata !== undefined) {
    try {
      metadata = JSON.parse(options.metadata);
    } catch {
      throw new ExitError(1, '--metadata must be JSON, e.g. \'{"branch":"main"}\'');
    }
  }
  // Field rules are the broker's; the CLI only shapes the body and leaves validation (and its 400) to it.
  const body: Record<string, unknown> = {
    title: options.title,
    message: options.message,
    // docs/api.md, "Type IDs", rule 3: the CLI accepts hyphens and normalizes them to underscores.
    type: options.type !== undefined ? normalizeTypeId(options.type) : undefined,
    priority: options.priority,
    agent: options.agent,
    agentInstance: options.agentInstance,
    project: options.project,
    key: options.key,
    cwd: options.cwd,
    pid: parseIntegerOption("--pid", options.pid),
    metadata,
  };
  const client = createClient(options);
  let notification: NotificationDto;
  try {
    notification = await client.request<NotificationDto>("POST", "/v1/notifications", { body, flags: SEND_FLAGS });
  } catch (error) {
    // docs/desktop.md, "Local presentation rules", rule 9: send exits 2 on a 401 and 1 on any other failed response
    // (429 included).
    if (error instanceof HttpFailure && error.status === 401) throw new ExitError(2, error.message);
    throw error;
  }
  if (options.json) printJson(notification);
  else process.stdout.write(`${notification.id}\n`);
}
