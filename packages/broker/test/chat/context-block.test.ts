// Issue 36, item 1 (chat): a question's context goes with it to Telegram, Slack and Discord as a code block, as much
// as a message allows, and says how much is left on the desktop (docs/hooks.md, "Approvals with context").
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ItemContext } from "@notify/contracts/item-context";
import { type Json, tempDir, untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeBlock } from "../../src/surfaces/discord/send.js";
import { contextBlock } from "../../src/surfaces/question-text.js";
import { messageBlocks } from "../../src/surfaces/slack/send.js";
import { type LiveBroker, liveBroker } from "../relay/broker-client.js";
import { TelegramServer } from "./telegram-server.js";

const diff = (rows: number): ItemContext => ({
  kind: "diff",
  files: [
    {
      path: "src/db.ts",
      status: "modified",
      added: rows,
      removed: 1,
      diff: `@@ -1,1 +1,${rows} @@\n-old <b>\n${Array.from({ length: rows }, (_, index) => `+row ${index}`).join("\n")}`,
      cut_lines: 5,
    },
  ],
  truncated: true,
  bytes: 0,
});

describe("the context block of a chat message", () => {
  it("a diff: the file's header and lines; past the room, one line says how many more are on the desktop", () => {
    expect(contextBlock(diff(2), 1000)).toBe(
      "src/db.ts +2 -1\n@@ -1,1 +1,2 @@\n-old <b>\n+row 0\n+row 1\n… 5 more lines on the desktop",
    );
    const cut = contextBlock(diff(500), 300) as string;
    expect(cut.length).toBeLessThanOrEqual(300);
    // 500 rows, a hunk header, the removed line and the file header: what is not shown is counted, with the 5 the
    // broker already cut.
    const shown = cut.split("\n").length - 1;
    expect(cut.split("\n").at(-1)).toBe(`… ${503 - shown + 5} more lines on the desktop`);
    expect(contextBlock({ kind: "turn", messages: [], truncated: false, bytes: 0 }, 1000)).toBeUndefined();
    expect(
      contextBlock(
        { kind: "command", command: "rm -rf build", cwd: "/w", reason: "clean", truncated: false, bytes: 0 },
        500,
      ),
    ).toBe("$ rm -rf build\n(in /w)\nReason: clean");
  });

  it("Slack: a code section of its own, escaped, within a section's 3,000 characters", () => {
    const blocks = messageBlocks("Claude Code wants to change a file", undefined, diff(800));
    const code = (blocks[1] as { text: { text: string } }).text.text;
    expect(code.startsWith("```src/db.ts +800 -1\n")).toBe(true);
    expect(code).toContain("-old &lt;b&gt;");
    expect(code.length).toBeLessThanOrEqual(3000);
    expect(code).toMatch(/more lines on the desktop```$/);
  });

  it("Discord: a ```diff fence within the message's room; a fence inside is broken up", () => {
    const code = codeBlock(diff(800), 1500);
    expect(code.startsWith("\n```diff\nsrc/db.ts +800 -1\n")).toBe(true);
    expect(code.length).toBeLessThanOrEqual(1500);
    const fence = codeBlock({ kind: "json", json: "```\nx", truncated: false, bytes: 0 }, 500);
    expect(fence.match(/```/g)).toHaveLength(2);
  });
});

describe("Telegram gets the diff as a pre entity (a real broker, the loopback Bot API)", () => {
  const TOKEN = "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_context";
  let live: LiveBroker;
  let tg: TelegramServer;

  beforeAll(async () => {
    tg = await new TelegramServer(TOKEN).start();
    const dataDir = tempDir("context-block-");
    writeFileSync(join(dataDir, "config.json"), JSON.stringify({ followUp: { waitSeconds: 0 } }));
    live = await liveBroker(dataDir);
    const provider = {
      kind: "telegram",
      name: "bot",
      enabled: true,
      settings: { chatId: 42, answers: true, allowedUserIds: [7], apiBaseUrl: tg.url },
      secrets: { botToken: TOKEN },
    };
    expect((await live.call("POST", "/ui/api/outbound/providers", provider)).status).toBe(201);
    const route = { name: "bot", provider: "bot", includeMessage: true, enabled: true };
    expect((await live.call("POST", "/ui/api/outbound/routes", route)).status).toBe(201);
  });
  afterAll(async () => {
    await live?.close();
    await tg?.close();
  });

  it("the block follows the question, marked as code, and the whole message fits Telegram's 4,096", async () => {
    const posted = await live.call("POST", "/v1/contexts", {
      kind: "diff",
      files: [
        {
          path: "src/db.ts",
          status: "modified",
          added: 1,
          removed: 1,
          diff: "@@ -3,3 +3,3 @@\n a\n-const b = 2;\n+const b = 3;\n c",
        },
      ],
    });
    expect(posted.status).toBe(201);
    const created = await live.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "context-block-1",
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "claude-code" },
      request: {
        key: "context-block",
        kind: "permission",
        title: "Permission needed",
        message: "Claude Code wants to change a file with Edit: src/db.ts",
        response: {
          kind: "permission",
          choices: [
            { id: "allow", label: "Allow" },
            { id: "deny", label: "Deny" },
          ],
          expires_at: new Date(Date.now() + 600_000).toISOString(),
        },
      },
      extensions: { "x-notify-context": { id: posted.body.id } },
    });
    expect(created.status).toBe(201);
    const message = await untilValue(
      "the question's message",
      async () => tg.callsOf("sendMessage").find((body) => String(body.text).includes("src/db.ts +1 -1")),
      { timeoutMs: 30_000 },
    );
    const text = String(message.text);
    const entity = (message.entities as Json[])[0] as Json;
    expect(entity).toMatchObject({ type: "pre", language: "diff" });
    expect(text.slice(entity.offset, entity.offset + entity.length)).toBe(
      "src/db.ts +1 -1\n@@ -3,3 +3,3 @@\n a\n-const b = 2;\n+const b = 3;\n c",
    );
    expect(text.length).toBeLessThanOrEqual(4096);
  });
});
