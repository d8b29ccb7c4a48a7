import { existsSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Json, type ModelMock, type Reply, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rotateHookToken } from "../../../src/hooks/hook-token.js";
import { HOOK_TOKEN_VARIABLE, HTTP_HOOK_PATH, httpHook } from "../../../src/hooks/install/entries.js";
import { type CliBroker, NO_FOLLOW_UPS, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  eventually,
  killTmuxServers,
  mockModelEnv,
  startInTmux,
  writeClaudeState,
} from "../../real-agents.js";

/**
 * Issue 33, item 1: does the real Claude Code 2.1.330 run a `"type": "http"` hook for Notification? Its interactive UI
 * (tmux, the classic permission mode) is asked by the loopback model mock to run a shell command, so it shows its own
 * permission dialog and raises Notification with notification_type "permission_prompt". The only hook in its
 * settings is Notify's http entry for Notification (httpHook, the token named in the header and filled from the user
 * settings' `env` through `allowedEnvVars`), pointed at a capture server of this test that passes every request on
 * to a real broker's POST /v1/hooks/claude-code and hands back the broker's answer.
 *
 * Observed (2.1.330, this machine under load): the POST comes about 6 s after the dialog appears (8-14 s after the
 * start), from axios with `Authorization: Bearer <hook token>`; without `allowedEnvVars` the header is a bare
 * "Bearer". The body: session_id, transcript_path, cwd, prompt_id, hook_event_name "Notification", message "Claude
 * needs your permission", notification_type "permission_prompt".
 */
const run = agentTest("http Notification e2e", { claude: true, tmux: true });
const skipped = run !== it;

/** One request Claude Code's hook made, and what the broker answered to it. */
interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: string;
  brokerStatus: number;
  brokerBody: string;
}

let cli: CliBroker;
let hookToken: string;
let mock: ModelMock;
let capture: Server;
let capturePort: number;
const captured: Captured[] = [];
let home: string;
let work: string;
let deadProxy: string;

/** The model's first turn asks for `touch <marker>` through Bash; once it has the tool's result it ends the turn. */
const asksFor =
  (command: string) =>
  (turn: Turn): Reply => {
    if (turn.toolResults.length > 0) return { text: "Done." };
    const offersBash = turn.tools.some((tool) => tool.name === "Bash");
    return offersBash && turn.stream
      ? { tool: "Bash", input: { command, description: "Create the marker file" } }
      : { text: "OK" };
  };

beforeAll(async () => {
  if (skipped) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  hookToken = rotateHookToken(cli.dataDir);
  ({ home, work, deadProxy } = await agentSandbox("notify-http-notification-", "project"));
  mock = await startModelMock({ reply: asksFor(`touch ${join(work, "never.marker")}`), models: [] });
  capture = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let brokerStatus = 0;
      let brokerBody = "";
      try {
        const forwarded = await fetch(`${cli.broker.url}${HTTP_HOOK_PATH}`, {
          method: "POST",
          headers: {
            "content-type": request.headers["content-type"] ?? "",
            authorization: request.headers.authorization ?? "",
          },
          body: raw,
        });
        brokerStatus = forwarded.status;
        brokerBody = await forwarded.text();
      } catch {
        brokerStatus = -1;
      }
      captured.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        raw,
        brokerStatus,
        brokerBody,
      });
      response.writeHead(brokerStatus > 0 ? brokerStatus : 502, { "content-type": "application/json" });
      response.end(brokerBody);
    });
  });
  await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
  capturePort = (capture.address() as AddressInfo).port;
});

afterAll(async () => {
  if (skipped) return;
  killTmuxServers();
  await new Promise<void>((resolve) => capture?.close(() => resolve()));
  await mock?.close();
  await cli?.close();
});

describe("Claude Code 2.1.330 with an http hook for Notification only", () => {
  run(
    "its permission dialog posts Notification (permission_prompt) with the hook token, and the broker takes it",
    async () => {
      writeClaudeState(home, work);
      // Nothing but Notify's http entry for Notification; the token in the user settings' env, as install writes it.
      const settings = {
        env: { [HOOK_TOKEN_VARIABLE]: hookToken },
        permissions: { defaultMode: "default" },
        hooks: { Notification: [{ hooks: [httpHook(capturePort, "Notification")] }] },
      };
      writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings, null, 2));

      const claude = startInTmux("claude-notification", work, agentEnv(home, deadProxy, mockModelEnv(mock)), [
        CLAUDE,
        "create the marker file",
      ]);
      try {
        const request = await eventually(
          "Claude Code's Notification hook request",
          async () => captured.find((entry) => entry.raw.includes('"Notification"')),
          60_000,
        ).catch((error: Error) => {
          throw new Error(`${error.message}\nrequests: ${captured.length}\nscreen:\n${claude.screen()}`);
        });
        // Claude Code's own dialog is up: the event came from it, not from an idle prompt.
        expect(claude.screen()).toContain("Do you want to proceed?");

        expect(request.method).toBe("POST");
        expect(request.url).toBe(HTTP_HOOK_PATH);
        expect(request.headers["content-type"]).toMatch(/^application\/json/);
        // The header as the entry names it, with the variable filled from the settings' env.
        expect(request.headers.authorization === `Bearer ${hookToken}`, "Authorization carries the hook token").toBe(
          true,
        );
        const body: Json = JSON.parse(request.raw);
        expect(body).toMatchObject({
          hook_event_name: "Notification",
          notification_type: "permission_prompt",
          cwd: work,
        });
        expect(typeof body.session_id).toBe("string");
        expect(typeof body.message).toBe("string");

        // The broker's route took Claude Code's own request with the hook token; a permission_prompt asks it
        // nothing more (PermissionRequest asks that question), so it answers the empty object.
        expect(request.brokerStatus, request.brokerBody).toBe(200);
        expect(JSON.parse(request.brokerBody)).toEqual({});
        expect(existsSync(join(work, "never.marker"))).toBe(false);
      } finally {
        claude.kill();
      }
    },
    120_000,
  );
});
