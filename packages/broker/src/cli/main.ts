#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { VERSION } from "../version.js";
import { ExitError } from "./exit-error.js";

/**
 * The `notify` entry: parses arguments, loads the one command it needs, and is the only place that calls
 * process.exit. stdout carries data, stderr messages.
 */
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

  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof ExitError) {
      if (error.message) process.stderr.write(`notify: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    process.stderr.write(`notify: ${(error as Error).message}\n`);
    return 1;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 1;
  },
);
