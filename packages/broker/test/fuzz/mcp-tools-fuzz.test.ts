/**
 * Issue 31, "Must show": a fuzz pass over the MCP tool inputs. The official SDK client spawns the built `notify mcp`
 * against a real broker and calls `ask_person` and `notify_person` with every mutant of a valid argument object
 * (the route fuzz's mutations: wrong types, NUL, lone surrogates, huge and fractional numbers, unknown fields, deep
 * nesting) and with random JSON in a random field. Properties: every call ends (a question it opened is cancelled
 * over /v1 and the call then returns `cancelled`); a refusal is a tool error or an MCP invalid-params error with a
 * message that names what is wrong, never a stack trace or a broker 5xx; the server process lives through it all;
 * the broker answered /health throughout and logged no 5xx.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Json } from "@notify/test-kit";
import { bodyMutants } from "@notify/test-kit/fuzz-mutations";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, startCliBroker } from "../cli/cli-harness.js";
import { type McpHost, startMcpHost, textOf } from "../mcp/mcp-harness.js";

const CLIENT = "fuzz-host";
let cli: CliBroker;
let mcp: McpHost;
let project: string;
let calls = 0;
const health = { requests: 0, failures: [] as string[], running: true };
let healthLoop: Promise<void>;

beforeAll(async () => {
  cli = await startCliBroker();
  project = mkdtempSync(join(tmpdir(), "notify-mcp-fuzz-"));
  mkdirSync(join(project, ".git"));
  mcp = await startMcpHost(cli.target, { clientName: CLIENT, cwd: project });
  healthLoop = (async () => {
    while (health.running) {
      try {
        const response = await fetch(`${cli.broker.url}/health`, { signal: AbortSignal.timeout(10_000) });
        if (response.status !== 200) health.failures.push(`HTTP ${response.status}`);
      } catch (error) {
        health.failures.push(String(error));
      }
      health.requests += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
});

afterAll(async () => {
  health.running = false;
  await healthLoop;
  await mcp?.close().catch(() => undefined);
  await cli?.close();
  rmSync(project, { recursive: true, force: true });
});

const VALID_ASK: Json = {
  prompt: "Use Postgres or SQLite for the new service?",
  kind: "single_choice",
  choices: [
    { id: "postgres", label: "Postgres", detail: "One more server to run" },
    { id: "sqlite", label: "SQLite" },
  ],
  ttl_seconds: 600,
  text_max_length: 200,
};
const VALID_NOTIFY: Json = { title: "Tests pass", message: "All 212 tests pass.", type: "completed", priority: "low" };

/** The arguments each mutant stands for, when it is a JSON object at all (MCP arguments are an object). */
function argumentsOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    // The SDK client serialises with JSON.stringify: a value it cannot write (nesting past its stack) never
    // reaches a server through it.
    JSON.stringify(value);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Questions this host has open on the broker. */
async function pendingIds(): Promise<string[]> {
  const { status, body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${CLIENT}`);
  expect(status).toBe(200);
  return body.map((interaction: Json) => interaction.id as string);
}

type Outcome = { kind: "result"; result: Json } | { kind: "mcp-error"; code: number; message: string };

/**
 * One tool call that must end: while it runs, any question this host opened is cancelled over /v1, so an accepted
 * ask_person returns `cancelled`. A call that has not ended 20 s after its question was cancelled fails the test.
 */
async function call(name: string, args: Record<string, unknown>, label: string): Promise<Outcome> {
  calls += 1;
  let settled = false;
  const outcome = mcp.client
    .callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
    .then((result): Outcome => ({ kind: "result", result: result as Json }))
    .catch((error: unknown): Outcome => {
      if (error instanceof McpError) return { kind: "mcp-error", code: error.code, message: error.message };
      throw error;
    })
    .finally(() => {
      settled = true;
    });
  const deadline = Date.now() + 40_000;
  while (!settled) {
    for (const id of await pendingIds()) {
      const cancelled = await cli.api("POST", `/v1/interactions/${id}/cancel`);
      expect([200, 409], `${label}: cancel ${id}`).toContain(cancelled.status);
    }
    if (Date.now() > deadline) throw new Error(`${label}: the ${name} call did not end`);
    await Promise.race([outcome.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 25))]);
  }
  return outcome;
}

function expectClearOutcome(outcome: Outcome, label: string, accepted: (result: Json) => void): void {
  if (outcome.kind === "mcp-error") {
    // The SDK's own input validation: invalid params, with the field in the message.
    expect(outcome.code, label).toBe(-32602);
    expect(outcome.message, label).toMatch(/invalid/i);
    expect(outcome.message, label).not.toMatch(/\n\s+at /);
    return;
  }
  const { result } = outcome;
  if (result.isError) {
    const text = textOf(result as never);
    expect(text.length, label).toBeGreaterThan(3);
    expect(text, label).not.toMatch(/\n\s+at |TypeError|ReferenceError|undefined is not|HTTP 5\d\d|\(5\d\d\)/);
    return;
  }
  accepted(result);
}

describe("MCP tool input fuzz (issue 31)", () => {
  it("ask_person: every mutant of a valid argument object ends with a clear refusal or a cancelled question", async () => {
    let refused = 0;
    let opened = 0;
    for (const mutant of bodyMutants(VALID_ASK, 65_536)) {
      const args = argumentsOf(mutant.text);
      if (args === undefined) continue;
      const outcome = await call("ask_person", args, mutant.label);
      expectClearOutcome(outcome, mutant.label, (result) => {
        expect(result.structuredContent, mutant.label).toEqual({ status: "cancelled" });
        opened += 1;
      });
      if (outcome.kind === "mcp-error" || outcome.result.isError) refused += 1;
      // A refusal the schema is sure of opens nothing.
      if (mutant.mustRefuse) expect(outcome.kind === "mcp-error" || outcome.result.isError, mutant.label).toBe(true);
    }
    expect(refused).toBeGreaterThan(50);
    expect(opened).toBeGreaterThan(5);
    expect(await pendingIds()).toEqual([]);
  }, 300_000);

  it("notify_person: every mutant ends with a clear refusal or a stored notification", async () => {
    let stored = 0;
    for (const mutant of bodyMutants(VALID_NOTIFY, 65_536)) {
      const args = argumentsOf(mutant.text);
      if (args === undefined) continue;
      const outcome = await call("notify_person", args, mutant.label);
      expectClearOutcome(outcome, mutant.label, (result) => {
        const id = result.structuredContent?.id;
        expect(id, mutant.label).toMatch(/^ntf_/);
        stored += 1;
      });
    }
    expect(stored).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it.each([
    ["ask_person", VALID_ASK],
    ["notify_person", VALID_NOTIFY],
  ] as const)(
    "%s: random JSON in a random field (fast-check)",
    async (name, valid) => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.keys(valid)), fc.jsonValue({ maxDepth: 6 }), async (key, value) => {
          const label = `${key} = ${JSON.stringify(value).slice(0, 80)}`;
          const outcome = await call(name, { ...valid, [key]: value }, label);
          expectClearOutcome(outcome, label, (result) => {
            if (name === "ask_person") expect(result.structuredContent, label).toEqual({ status: "cancelled" });
            else expect(result.structuredContent?.id, label).toMatch(/^ntf_/);
          });
        }),
        { numRuns: 40, seed: 31 },
      );
    },
    300_000,
  );

  it("afterwards: the server still answers, the broker answered /health throughout and logged no 5xx", async () => {
    expect(calls).toBeGreaterThan(200);
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      "ask_person",
      "notify_person",
    ]);
    expect(mcp.stderr()).not.toMatch(/\n\s+at |Unhandled|uncaught/i);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(health.requests).toBeGreaterThan(0);
    expect(health.failures).toEqual([]);
    let log = "";
    try {
      log = readFileSync(join(cli.dataDir, "logs", "broker.log"), "utf8");
    } catch {
      // No log file: the broker logged nothing to disk.
    }
    expect(log).not.toMatch(/"statusCode":5\d\d/);
  });
});
