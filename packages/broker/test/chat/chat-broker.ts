import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { brokerApi, type Json, until } from "@notify/test-kit";
import { type BrokerProcess, spawnBroker } from "@notify/test-kit/broker-process";
import { expect } from "vitest";
import { type CliProcess, cliEnv, spawnCli } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

/** What `notify ask` prints on stderr while it waits; group 1 is the interaction id. */
export const WAITING = /^notify: waiting for an answer to interaction (\S+) \(/m;

/**
 * The set-up the chat e2e suites (Slack, Telegram) share: a real broker process on a fresh data dir with one
 * enabled chat provider and the route "all" to it (the message included), a `/ui/api` and `/v1` caller, and the
 * real CLI's `notify ask` against it.
 */
export class ChatBroker {
  broker!: BrokerProcess;
  private authToken = "";
  private readonly api = brokerApi(
    () => this.broker.url,
    () => this.authToken,
  );

  private constructor(readonly dataDir: string) {}

  /** Starts the broker and adds `provider` (kind, name, settings, secrets) enabled, with the route "all". */
  static async start(prefix: string, provider: { name: string } & Json): Promise<ChatBroker> {
    const chat = new ChatBroker(tempDir(prefix));
    await chat.spawn();
    const created = await chat.call("POST", "/ui/api/outbound/providers", { ...provider, enabled: true });
    expect(created.status).toBe(201);
    const route = { name: "all", provider: provider.name, includeMessage: true, enabled: true };
    expect((await chat.call("POST", "/ui/api/outbound/routes", route)).status).toBe(201);
    return chat;
  }

  /** (Re)starts the broker process on the same data dir. */
  async spawn(): Promise<void> {
    this.broker = await spawnBroker(this.dataDir);
    const config = JSON.parse(readFileSync(join(this.dataDir, "config.json"), "utf8")) as { authToken: string };
    this.authToken = config.authToken;
  }

  /** Kills the broker process (SIGKILL: nothing gets to shut down cleanly) and waits for it to exit. */
  async kill(): Promise<void> {
    this.broker.child.kill("SIGKILL");
    await this.broker.exited;
  }

  /** A call with the bearer token and `X-Notify-UI: 1`. */
  call(method: string, path: string, body?: unknown) {
    return this.api.call(method, path, body, { "x-notify-ui": "1" });
  }

  /** The real `notify ask` against this broker. */
  ask(...args: string[]): CliProcess {
    return spawnCli(["ask", ...args, "--port", String(this.broker.port), "--data-dir", this.dataDir], cliEnv());
  }

  /** Every file under the data dir (database, logs, config), for checking that no secret reached the disk. */
  files(): string[] {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(this.dataDir);
    return files;
  }
}

/** The first message `messages()` lists whose text holds `prompt`, once the broker has sent it (30 s). */
export async function messageWith(messages: () => Json[], prompt: string): Promise<Json> {
  let found: Json;
  await until(() => {
    found = messages().find((message: Json) => message.text.includes(prompt));
    return found !== undefined;
  }, 30_000);
  return found;
}

/**
 * What the chat e2e suites call, on whichever ChatBroker the current test started (`broker`): its HTTP API, the
 * real `notify ask`, and the question message it sent whose text holds a prompt (`messages`: the chat app's).
 */
export function suiteCalls(suite: { broker: () => ChatBroker; messages: () => Json[] }) {
  return {
    call: (method: string, path: string, body?: unknown) => suite.broker().call(method, path, body),
    ask: (...args: string[]) => suite.broker().ask(...args),
    questionMessage: (prompt: string): Promise<Json> => messageWith(suite.messages, prompt),
  };
}

/** Ends a chat e2e test: its broker process killed, then its loopback chat app closed. */
export async function endTest(chat: ChatBroker, app: { close(): Promise<void> }): Promise<void> {
  await chat.kill();
  await app.close();
}
