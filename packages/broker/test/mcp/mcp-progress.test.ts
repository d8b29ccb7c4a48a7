import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokerTarget, createClient } from "../../src/client/client.js";
import { createNotifyMcp } from "../../src/mcp/server.js";
import { type CliBroker, startCliBroker } from "../cli/cli-harness.js";

/**
 * Issue 26 item 1, "keeps the host's tool call alive with MCP progress notifications": the server's own code (with
 * a 200 ms progress interval instead of 15 s) behind the SDK's in-memory transport, against a real broker. A host
 * whose request timeout (1 s) restarts on progress keeps a call that waits far longer than that.
 */
let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker();
});
afterAll(async () => {
  await cli?.close();
});

describe("ask_person progress notifications", () => {
  it("one at once naming the question, then one per interval; a host resetting its timeout on them keeps the call", async () => {
    const options = { port: String(cli.broker.port), dataDir: cli.dataDir };
    const notify = createNotifyMcp({
      broker: () => ({ client: createClient(options), token: brokerTarget(options).token }),
      cwd: "/home/dev/service",
      env: {},
      log: () => undefined,
      progressIntervalMs: 200,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await notify.server.connect(serverSide);
    const client = new Client({ name: "progress-host", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const progress: { progress: number; message?: string | undefined; at: number }[] = [];
      const started = Date.now();
      const call = client.callTool(
        { name: "ask_person", arguments: { prompt: "Keep going?", kind: "permission" } },
        undefined,
        {
          timeout: 1_000,
          resetTimeoutOnProgress: true,
          onprogress: (notification) => {
            progress.push({ progress: notification.progress, message: notification.message, at: Date.now() });
          },
        },
      ) as Promise<CallToolResult>;
      // Well past the host's 1 s timeout, kept alive only by the progress notifications.
      while (Date.now() - started < 3_000) await new Promise((resolve) => setTimeout(resolve, 100));
      const id = /interaction (int_[^,\s)]+)/.exec(progress[0]?.message ?? "")?.[1] ?? "";
      const { body: current } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
      expect(current.status).toBe("pending");
      const answered = await cli.api("POST", `/v1/interactions/${id}/respond`, {
        response_id: randomUUID(),
        request_digest: current.request_digest,
        nonce: current.nonce,
        choice_id: "allow",
        source: "web",
      });
      expect(answered.status).toBe(200);
      const result = await call;
      expect(result.structuredContent).toEqual({ status: "answered", choice_id: "allow", source: "web" });
      // At once, then about every 200 ms for 3 s: counting up, each naming the question and the time so far.
      expect(progress.length).toBeGreaterThanOrEqual(5);
      expect(progress.map((entry) => entry.progress)).toEqual(progress.map((_, index) => index + 1));
      expect(progress.every((entry) => entry.message?.includes(`interaction ${id}`))).toBe(true);
      expect(progress.at(-1)?.message).toMatch(/, [2-9]s so far\)$/);
    } finally {
      await client.close();
    }
  });
});
