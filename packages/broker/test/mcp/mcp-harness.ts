import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CLI, cliEnv } from "../cli/cli-harness.js";

/**
 * A host as the agents are one: the official SDK client spawning the built `notify mcp` over stdio (with `args`
 * pointing it at a test broker), under the name `clientName` (what the question's agent becomes).
 */
export interface McpHost {
  client: Client;
  transport: StdioClientTransport;
  /** The server's stderr so far (its diagnostics). */
  stderr: () => string;
  /** The server process's exit, once the transport is closed. */
  pid: number | undefined;
  close(): Promise<void>;
}

export async function startMcpHost(
  args: string[],
  options: { clientName?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<McpHost> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", ...args],
    env: cliEnv(options.env ?? {}) as Record<string, string>,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: options.clientName ?? "test-host", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    pid: transport.pid ?? undefined,
    close: () => client.close(),
  };
}

/** ask_person with progress requested; resolves with the interaction id from the first progress notification. */
export function callAsk(
  host: McpHost,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal } = {},
): { result: Promise<CallToolResult>; id: Promise<string>; progress: string[] } {
  const progress: string[] = [];
  let resolveId: (id: string) => void = () => {};
  const id = new Promise<string>((resolve) => {
    resolveId = resolve;
  });
  const result = host.client.callTool({ name: "ask_person", arguments: args }, undefined, {
    // A question waits as long as it lives: the host's timeout is the question's, not the SDK's 60 s default.
    timeout: 3_700_000,
    onprogress: (notification) => {
      const message = notification.message ?? "";
      progress.push(message);
      const match = /interaction (int_[^,\s)]+)/.exec(message);
      if (match?.[1]) resolveId(match[1]);
    },
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  }) as Promise<CallToolResult>;
  return { result, id, progress };
}

export const textOf = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
