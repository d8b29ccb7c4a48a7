import { INSTALL_SCOPES, INTERACTION_KINDS, SERVICE_PLATFORMS } from "@notify/contracts/enums";
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../version.js";
import { reportFailure } from "./exit-status.js";

/** Every command, each loading its module only when it runs. */
function buildProgram(): Command {
  const program = new Command("notify")
    .description("Notify: the local attention broker for AI coding agents")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  program
    .command("serve")
    .description("run the broker in the foreground on 127.0.0.1")
    .option("--port <port>", "listening port (wins over NOTIFY_PORT and config.json)")
    .option("--data-dir <dir>", "data directory (default: NOTIFY_DATA_DIR or the per-user data dir)")
    .option("--token <token>", "bearer token to accept instead of config.json's authToken")
    .action(async (options) => (await import("./commands/serve.js")).serve(options));

  clientCommand(program, "start", "run the broker in the background without a service manager (docs/cli.md)")
    .option("--wait <seconds>", "how long to wait for it to answer (default 30)")
    .action(async (options) => (await import("./commands/start.js")).start(options));
  clientCommand(program, "stop", "stop the broker `notify start` started")
    .option("--wait <seconds>", "how long to wait for it to exit (default 30)")
    .action(async (options) => (await import("./commands/stop.js")).stop(options));
  program
    .command("logs")
    .description("print the log of the broker `notify start` started")
    .option("-f, --follow", "keep printing lines as they are written, until interrupted")
    .option("-n, --lines <n>", "how many of the last lines to print first (default 50)")
    .option("--data-dir <dir>", "data directory (default: NOTIFY_DATA_DIR or the per-user data dir)")
    .action(async (options) => (await import("./commands/logs.js")).logs(options));

  program
    .command("token")
    .description("print the bearer token from config.json (NOTIFY_TOKEN does not change it)")
    .option("--data-dir <dir>", "data directory (default: NOTIFY_DATA_DIR or the per-user data dir)")
    .action(async (options) => (await import("./commands/token.js")).token(options));

  clientCommand(program, "send [title] [message]", "create a notification (or update the one with the same --key)")
    .option("--title <title>", "title, 1-200 chars (wins over the positional title)")
    .option("--message <message>", "message, 1-4000 chars (wins over the positional message)")
    .option("--type <type>", "type ID; hyphens become underscores (default info)")
    .option("--priority <priority>", "low, normal, high or critical")
    .option("--agent <agent>", "agent name (default unknown)")
    .option("--agent-instance <instance>", "agent instance")
    .option("--project <project>", "project")
    .option("--key <key>", "dedup key: an active notification with this key is updated in place")
    .option("--cwd <dir>", "working directory of the agent")
    .option("--pid <pid>", "process id of the agent")
    .option("--metadata <json>", "JSON object of extra data (at most 8192 bytes)")
    .option("--json", "print the whole notification as JSON instead of its id")
    .action(async (title, message, options) =>
      (await import("./commands/send.js")).send({
        ...options,
        title: options.title ?? title,
        message: options.message ?? message,
      }),
    );

  clientCommand(program, "list", "list notifications, newest first")
    .option("--unresolved", "only active notifications")
    .option("--type <type>", "only this type ID")
    .option("--status <status>", "only this status: active, dismissed or resolved")
    .option("--project <project>", "only this project")
    .option("--agent <agent>", "only this agent")
    .option("--limit <n>", "at most n rows, 1-500 (default 100)")
    .option("--json", "print the JSON array instead of a table")
    .action(async (options) => (await import("./commands/list.js")).list(options));

  clientCommand(program, "ask <prompt>", "ask a question and wait for the answer (printed on stdout)")
    .addOption(new Option("--kind <kind>", "question kind (default permission)").choices(INTERACTION_KINDS))
    .option("--choice <id=label[:detail]>", "a choice; repeat for each (2-12)", collect, [])
    .option("--text-max-length <n>", "longest text answer, 1-2000 (default 500)")
    .option("--ttl <seconds>", "seconds until the question expires, 30-3600 (default 600)")
    .option("--key <key>", "dedup key: a pending question with this key is reused or superseded")
    .option("--agent <agent>", "agent name (default unknown)")
    .option("--project <project>", "project")
    .option("--session <id>", "session id")
    .option("--json", "print the final interaction as JSON (without its nonce)")
    .action(async (prompt, options) => (await import("./commands/ask.js")).ask({ ...options, prompt }));

  clientCommand(program, "answer <id>", "answer a pending interaction")
    .option("--choice <choiceId>", "the chosen choice id (permission and single_choice)")
    .option("--text <text>", "the text answer (text kind)")
    .option("--json", "print the answered interaction as JSON (without its nonce)")
    .action(async (id, options) => (await import("./commands/answer.js")).answer({ ...options, id }));

  clientCommand(program, "test [route]", "send a test notification through every enabled route (or one)")
    .option("--json", "print {routes: [...]} as JSON")
    .action(async (route, options) =>
      (await import("./commands/test-routes.js")).testRoutes({ ...options, ...(route ? { route } : {}) }),
    );
  clientCommand(program, "sessions", "list the agent sessions: working, waiting on you, finished")
    .option("--json", "print {sessions: [...]} as JSON")
    .action(async (options) => (await import("./commands/sessions.js")).sessions(options));
  clientCommand(program, "pending", "list open questions, newest first")
    .option("--agent <agent>", "only this agent")
    .option("--project <project>", "only this project")
    .option("--session <id>", "only this session")
    .option("--limit <n>", "at most n rows, 1-500 (default 100)")
    .option("--json", "print the JSON array (without nonces)")
    .action(async (options) => (await import("./commands/pending.js")).pending(options));

  clientCommand(program, "show <id>", "show one question (int_...) or notification (ntf_...) in full")
    .option("--json", "print it as JSON (a question without its nonce)")
    .action(async (id, options) => (await import("./commands/show.js")).show({ ...options, id }));

  clientCommand(program, "cancel <id>", "cancel a pending question (its waiters wake)")
    .option("--json", "print the interaction as JSON (without its nonce)")
    .action(async (id, options) => (await import("./commands/cancel.js")).cancel({ ...options, id }));

  clientCommand(program, "reopen <id>", "make a dismissed or resolved notification active again")
    .option("--json", "print the notification as JSON")
    .action(async (id, options) => (await import("./commands/reopen.js")).reopen({ ...options, id }));

  clientCommand(program, "dismiss <id>", "dismiss a notification").action(async (id, options) =>
    (await import("./commands/dismiss.js")).dismiss({ ...options, id }),
  );

  clientCommand(program, "resolve <id>", "mark a notification resolved").action(async (id, options) =>
    (await import("./commands/resolve.js")).resolve({ ...options, id }),
  );

  clientCommand(program, "open", "open the web UI in a browser with a fresh one-time login link")
    .option("--print", "print the link instead of opening a browser")
    .action(async (options) => (await import("./commands/open.js")).open(options));

  clientCommand(program, "status", "show whether the broker runs, and its version, pid, uptime and active count")
    .option("--json", "print the health object as JSON")
    .action(async (options) => (await import("./commands/status.js")).status(options));

  clientCommand(program, "presence", "show whether you are at this computer, and what says so (docs/routing.md)")
    .option("--json", "print {state, since, sources} as JSON")
    .action(async (options) => (await import("./commands/presence.js")).presence(options));

  clientCommand(program, "apply <file>", "upsert declarative configuration from a JSON or YAML file (docs/apply.md)")
    .option("--prune", "also delete what the file does not name, within the sections it has")
    .option("--dry-run", "print the plan and change nothing")
    .option("--json", "print a summary object on stdout")
    .action(async (file, options) => (await import("./commands/apply.js")).apply({ ...options, file }));

  clientCommand(program, "hook <agent> <event> [payload]", "run as an agent's hook (reads the agent's JSON on stdin)")
    .option("--ttl <seconds>", "seconds a permission question stays open (default 600)")
    .action(async (agent, event, payload, options) =>
      (await import("./commands/hook.js")).hook({ ...options, agent, event, payload }),
    );

  clientCommand(
    program,
    "doctor",
    "check the broker, service, hooks, router, relay, desktop and data dir (exit 1 on a fail)",
  )
    .option("--json", "print {checks: [{name, status, detail, fix?}]}")
    .action(async (options) => (await import("./commands/doctor.js")).doctor(options));

  clientCommand(program, "uninstall", "remove hooks, MCP entries and the service (--purge: the data dir too)")
    .option("--purge", "also delete the data dir (token, databases, backups of the agents' files)")
    .action(async (options) => (await import("./commands/uninstall.js")).uninstall(options));

  const service = program
    .command("service")
    .description("run the broker as a per-user service that starts at login (docs/install.md)");
  const platform = () =>
    new Option("--platform <platform>", "systemd or launchd (default: this system's)").choices(SERVICE_PLATFORMS);
  clientCommand(service, "install", "write the systemd user unit (launchd agent on macOS), enable and start it")
    .option("--print", "print the unit (or plist) instead of writing it")
    .option("--json", "print {platform, file, changed, manager, broker_running} as JSON")
    .addOption(platform())
    .action(async (options) => (await import("./commands/service.js")).serviceInstall(options));
  clientCommand(service, "uninstall", "stop the service and remove only the file install wrote")
    .addOption(platform())
    .action(async (options) => (await import("./commands/service.js")).serviceUninstall(options));
  clientCommand(service, "status", "whether the service is installed, enabled and running, and where its logs are")
    .option("--json", "print the status object as JSON")
    .addOption(platform())
    .action(async (options) => (await import("./commands/service.js")).serviceStatus(options));

  const hooks = program.command("hooks").description("install Notify as a coding agent's hook (docs/hooks.md)");
  clientCommand(hooks, "install <agent>", "add Notify's hooks (claude-code, codex, copilot, gemini, opencode)")
    .addOption(new Option("--scope <scope>", "user settings or this project's").choices(INSTALL_SCOPES))
    .addOption(
      new Option(
        "--kind <kind>",
        "claude-code: http (Claude Code posts to the broker), command (a notify process), auto (http when supported)",
      )
        .choices(["auto", "http", "command"])
        .default("auto"),
    )
    .option("--json", "print {agent, scope, file, changed, backup} as JSON")
    .action(async (agent, options) => (await import("./commands/hooks.js")).hooksInstall({ ...options, agent }));
  clientCommand(
    hooks,
    "uninstall [agent]",
    "remove Notify's hooks, from every agent where they are when none is named (restores the file byte for byte when untouched)",
  )
    .addOption(new Option("--scope <scope>", "user settings or this project's").choices(INSTALL_SCOPES))
    .option("--json", "print {agent, scope, file, changed, backup} as JSON")
    .action(async (agent, options) => (await import("./commands/hooks.js")).hooksUninstall({ ...options, agent }));
  clientCommand(hooks, "status", "show what is installed where, and whether the broker answers")
    .option("--json", "print {installs, broker} as JSON")
    .action(async (options) => (await import("./commands/hooks.js")).hooksStatus(options));

  const mcp = clientCommand(
    program,
    "mcp",
    "run Notify's MCP server on stdio, or install it into an agent (docs/mcp.md)",
  ).action(async (options) => (await import("./commands/mcp.js")).mcp(options));
  clientCommand(mcp, "install <agent>", "register `notify mcp` in an agent's MCP config (backup first; docs/mcp.md)")
    .addOption(new Option("--scope <scope>", "user config or this project's").choices(INSTALL_SCOPES))
    .option("--json", "print {agent, scope, file, changed, backup} as JSON")
    // optsWithGlobals: `notify mcp` takes --port/--data-dir/--token too, and commander gives them to it.
    .action(async (agent, _options, command: Command) =>
      (await import("./commands/mcp.js")).mcpInstall({ ...command.optsWithGlobals(), agent }),
    );
  clientCommand(mcp, "uninstall <agent>", "remove it (restores the file byte for byte when untouched)")
    .addOption(new Option("--scope <scope>", "user config or this project's").choices(INSTALL_SCOPES))
    .option("--json", "print {agent, scope, file, changed, backup} as JSON")
    .action(async (agent, _options, command: Command) =>
      (await import("./commands/mcp.js")).mcpUninstall({ ...command.optsWithGlobals(), agent }),
    );
  mcp
    .command("status")
    .description("show where Notify's MCP server is registered")
    .option("--json", "print {installs} as JSON")
    .action(async (options) => (await import("./commands/mcp.js")).mcpStatus(options));

  const outbound = program
    .command("outbound")
    .description("outbound delivery: provider profiles, routes and the outbox");
  clientCommand(outbound, "list", "list provider profiles, routes with their gates, and outbox counts")
    .option("--json", "print {providers, routes, outbox} as JSON")
    .action(async (options) => (await import("./commands/outbound.js")).outboundList(options));
  clientCommand(outbound, "test <provider>", "send the fixed test payload through a provider (id or name)")
    .option("--json", "print the delivery result as JSON")
    .action(async (provider, options) =>
      (await import("./commands/outbound.js")).outboundTest({ ...options, provider }),
    );
  clientCommand(outbound, "retry <id>", "queue a dead-lettered outbox item again, with a fresh attempt budget")
    .option("--json", "print the outbox item as JSON")
    .action(async (id, options) => (await import("./commands/outbound.js")).outboundRetry({ ...options, id }));
  clientCommand(outbound, "dead-letters", "list outbox items that gave up (DeadLetter), newest first")
    .option("--limit <n>", "at most n rows, 1-500 (default 100)")
    .option("--json", "print the JSON array of outbox items")
    .action(async (options) => (await import("./commands/outbound.js")).outboundDeadLetters(options));

  const relay = program
    .command("relay")
    .description("the relay: enroll this broker, pair phones, list and revoke them");
  clientCommand(relay, "enroll <url>", "enroll at a relay and enable a relay provider and route to it")
    .requiredOption("--enrollment-token <token>", "the relay operator's enrollment token")
    .option("--name <name>", "provider and route name (default relay)")
    .option("--machine <name>", "this machine's name on the phone's cards (default: the host name)")
    .option("--json", "print the provider profile as JSON")
    .action(async (url, options) => (await import("./commands/relay.js")).relayEnroll({ ...options, url }));
  clientCommand(relay, "pair", "make a one-time pairing code: its link and a QR code for the phone")
    .option("--join", "a code for another machine of yours to join this owner instead (notify relay join)")
    .option("--provider <name>", "relay provider (default: the enabled one)")
    .option("--json", "print {code, link, expires_at} as JSON")
    .action(async (options) => (await import("./commands/relay.js")).relayPair(options));
  clientCommand(relay, "join <url> <code>", "join the owner of another machine of yours (its notify relay pair --join)")
    .option("--name <name>", "provider and route name (default relay)")
    .option("--machine <name>", "this machine's name on the phone's cards (default: the host name)")
    .option("--json", "print the saved provider as JSON")
    .action(async (url, code, options) => (await import("./commands/relay.js")).relayJoin({ ...options, url, code }));
  clientCommand(relay, "machines", "list the owner's machines at the relay (* marks this one)")
    .option("--provider <name>", "relay provider (default: the enabled one)")
    .option("--json", "print {machines: [...]} as JSON")
    .action(async (options) => (await import("./commands/relay.js")).relayMachines(options));
  clientCommand(relay, "leave", "leave the owner: delete this machine at the relay (the phones stay for the others)")
    .option("--provider <name>", "relay provider (default: the enabled one)")
    .option("--json", "print what was deleted as JSON")
    .action(async (options) => (await import("./commands/relay.js")).relayUnenroll(options));
  clientCommand(relay, "devices", "list the paired phones")
    .option("--provider <name>", "relay provider (default: the enabled one)")
    .option("--json", "print the JSON array")
    .action(async (options) => (await import("./commands/relay.js")).relayDevices(options));
  clientCommand(relay, "revoke <device-id>", "unpair a phone: its token stops working at once")
    .option("--provider <name>", "relay provider (default: the enabled one)")
    .action(async (deviceId, options) => (await import("./commands/relay.js")).relayRevoke({ ...options, deviceId }));
  clientCommand(relay, "unenroll", "leave the relay: delete this installation and its phone pairings there")
    .option("--provider <name>", "relay provider (default: the enabled one)")
    .option("--json", "print {url, installation_id, deleted, provider, routes}")
    .action(async (options) => (await import("./commands/relay.js")).relayUnenroll(options));

  const router = program
    .command("router")
    .description("the provider router under /router/v1: its switch, key, ledger and agent connectors");
  clientCommand(router, "status", "show whether the router is on, its base URL, key, counts and routing settings")
    .option("--json", "print the status object (with base_url) as JSON")
    .action(async (options) => (await import("./commands/router.js")).routerStatus(options));
  clientCommand(router, "key", "print the router key from config.json (no broker needed)")
    .option("--regenerate", "ask the running broker for a new key (the old one stops working), then print it")
    .action(async (options) => (await import("./commands/router.js")).routerKey(options));
  clientCommand(router, "activity", "list the newest router requests with their attempts (the ledger)")
    .option("--limit <n>", "at most n requests, 1-500 (default 50)")
    .option("--json", "print the JSON array of requests, each with its attempts")
    .action(async (options) => (await import("./commands/router.js")).routerActivity(options));
  clientCommand(
    router,
    "agents",
    "list the accounts of Codex and Claude Code, whether each is connected, and the selectors",
  )
    .option("--json", "print {accounts, selectors} as JSON")
    .action(async (options) => (await import("./commands/router.js")).routerAgents(options));
  clientCommand(router, "connect <agent>", "point every installed account of codex or claude-code at the router")
    .option("--model <selector>", "provider/model, alias or combo/<name> (default: the default route, else the first)")
    .option("--effort <level>", "reasoning effort: low, medium, high, xhigh or max")
    .option("--subagent-model <selector>", "the model subagents use")
    .option("--subagent-effort <level>", "the subagents' reasoning effort (Codex)")
    .option("--review-model <selector>", "the /review model (Codex)")
    .option("--small-model <selector>", "the model behind the small built-in entry (Claude Code's haiku)")
    .option("--replace-lineup", "Claude Code: the picker shows the routed rows instead of its own lineup")
    .option("--json", "print {accounts} as JSON")
    .action(async (agent, options) => (await import("./commands/router.js")).routerConnect({ ...options, agent }));
  clientCommand(router, "disconnect <agent>", "take the router's settings out of every account of the agent")
    .option("--json", "print {accounts} as JSON")
    .action(async (agent, options) => (await import("./commands/router.js")).routerDisconnect({ ...options, agent }));

  return program;
}

/** A command that talks to a running broker; they all share how the broker and its token are found. */
function clientCommand(program: Command, nameAndArgs: string, description: string): Command {
  return program
    .command(nameAndArgs)
    .description(description)
    .option("--port <port>", "broker port (default: NOTIFY_PORT, then config.json, then 47821)")
    .option(
      "--data-dir <dir>",
      "data directory holding config.json (default: NOTIFY_DATA_DIR or the per-user data dir)",
    )
    .option("--token <token>", "bearer token (default: NOTIFY_TOKEN, then config.json authToken)");
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Runs one command line through commander and returns the exit status: every command, `--help`, and the forms of
 * `hook` and `--version` the light path of main.ts leaves to it.
 */
export async function runProgram(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    return reportFailure(error);
  }
}
