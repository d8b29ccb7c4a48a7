#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { SettingsError } from "../config/settings.js";
import { VERSION } from "../version.js";
import { ExitError } from "./exit-error.js";

/**
 * The `notify-relay` entry: parses arguments, loads the one command it needs, and is the only place that calls
 * process.exit. stdout carries data, stderr messages.
 */
function buildProgram(): Command {
  const program = new Command("notify-relay")
    .description("notify-relay: the relay between a Notify broker and paired phones")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  const storeOptions = (command: Command) =>
    command
      .option("--data-dir <dir>", "data directory (default: RELAY_DATA_DIR or the per-user data dir)")
      .option("--database-url <url>", "PostgreSQL URL (default: RELAY_DATABASE_URL; SQLite in the data dir if unset)");

  storeOptions(
    program
      .command("serve")
      .description("run the relay in the foreground")
      .option("--port <port>", "listening port (default: RELAY_PORT or 47822)")
      .option("--host <host>", "listening address (default: RELAY_HOST or 127.0.0.1)")
      .option("--public-url <url>", "the URL phones use (default: RELAY_PUBLIC_URL or http://HOST:PORT)")
      .option("--trust-proxy [addresses]", "trust X-Forwarded-For from these proxies (all when no list is given)")
      .option(
        "--metrics-port <port>",
        "serve Prometheus metrics on this port too, unauthenticated (RELAY_METRICS_PORT)",
      )
      .option("--metrics-host <host>", "address of the metrics listener (default: RELAY_METRICS_HOST or 127.0.0.1)")
      .option(
        "--allow-loopback-push",
        "accept Web Push endpoints on loopback, for tests (default: RELAY_ALLOW_LOOPBACK_PUSH; never in production)",
      ),
  ).action(async (options) => (await import("./commands/serve.js")).serve(options));

  program
    .command("enrollment-token")
    .description("print the operator's enrollment token (generated into the data dir on first use)")
    .option("--data-dir <dir>", "data directory (default: RELAY_DATA_DIR or the per-user data dir)")
    .action(async (options) => (await import("./commands/enrollment-token.js")).enrollmentTokenCommand(options));

  storeOptions(program.command("installations").description("list enrolled installations (brokers)"))
    .option("--json", "print JSON instead of a table")
    .action(async (options) => (await import("./commands/listings.js")).installations(options));

  storeOptions(program.command("devices").description("list paired devices (phones), revoked ones included"))
    .option("--json", "print JSON instead of a table")
    .action(async (options) => (await import("./commands/listings.js")).devices(options));

  return program;
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    if (error instanceof ExitError) {
      if (error.message) process.stderr.write(`${error.message}\n`);
      process.exit(error.exitCode);
    }
    if (error instanceof SettingsError) {
      process.stderr.write(`notify-relay: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`notify-relay: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

await main();
