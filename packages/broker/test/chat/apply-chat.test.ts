// Issue 25, item 4: `notify apply` configures both chat providers (docs/apply.md, docs/outbound.md). The broker
// runs the answer loops the file asks for, against the loopback Bot API and Slack.

import { until } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliBroker, runCli, startCliBroker } from "../cli/cli-harness.js";
import { fileDir } from "../cli/outbound-helpers.js";
import type { Json } from "../helpers.js";
import { SlackServer } from "./slack-server.js";
import { TelegramServer } from "./telegram-server.js";

const TG_TOKEN = "987654:AAapplyAPPLYapplyAPPLYapply_tok";
const APP_TOKEN = "xapp-1-A0APPLY1-1-applyappsecretapplyapp";
const BOT_TOKEN = "xoxb-1-2-applybotsecretapplybot";

let cli: CliBroker;
let tg: TelegramServer;
let slack: SlackServer;
let files: ReturnType<typeof fileDir>;

beforeEach(async () => {
  cli = await startCliBroker();
  tg = await new TelegramServer(TG_TOKEN).start();
  slack = await new SlackServer(APP_TOKEN, BOT_TOKEN).start();
  files = fileDir();
});
afterEach(async () => {
  await cli?.close();
  await tg?.close();
  await slack?.close();
  files?.remove();
});

const yaml = () => `outbound:
  providers:
    - name: phone-bot
      kind: telegram
      enabled: true
      settings:
        chatId: 4242
        answers: true
        allowedUserIds: ["7", "8"]
        apiBaseUrl: ${tg.url}
      secrets:
        botToken: "${TG_TOKEN}"
    - name: team-slack
      kind: slack_app
      enabled: true
      settings:
        channel: C0AGENTS1
        allowedUserIds: [U0ANN0001]
        apiBaseUrl: ${slack.apiBaseUrl}
      secrets:
        appToken: ${APP_TOKEN}
        botToken: ${BOT_TOKEN}
  routes:
    - name: questions-to-telegram
      provider: phone-bot
      enabled: true
    - name: questions-to-slack
      provider: team-slack
      enabled: true
`;

describe("notify apply with chat providers (issue 25)", { timeout: 60_000 }, () => {
  it("creates a Telegram provider with answers and a slack_app provider; both loops connect; a second run only resends secrets", async () => {
    const path = files.write("notify.yaml", yaml());
    const first = await runCli(["apply", path, ...cli.target]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("created provider phone-bot");
    expect(first.stderr).toContain("created provider team-slack");
    for (const secret of [TG_TOKEN, APP_TOKEN, BOT_TOKEN]) {
      expect(first.stdout + first.stderr).not.toContain(secret);
    }
    await until(() => tg.callsOf("getUpdates").length > 0 && slack.connections > 0, 30_000);
    // `notify outbound list` shows the loops in its ANSWERS column.
    await until(() => slack.connections > 0, 30_000);
    const list = await runCli(["outbound", "list", ...cli.target]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^PROVIDER\s+KIND\s+ENABLED\s+SECRETS\s+ANSWERS\s+ID$/m);
    expect(list.stdout).toMatch(/^phone-bot\s+telegram\s+yes\s+botToken\s+connected\s/m);
    expect(list.stdout).toMatch(/^team-slack\s+slack_app\s+yes\s+appToken,botToken\s+connected\s/m);
    const providers = (await cli.api<Json[]>("GET", "/ui/api/outbound/providers")).body;
    const byName = Object.fromEntries(providers.map((provider: Json) => [provider.name, provider]));
    expect(byName["phone-bot"].settings).toMatchObject({ chatId: 4242, answers: true, allowedUserIds: ["7", "8"] });
    expect(byName["team-slack"].secretNames.sort()).toEqual(["appToken", "botToken"]);
    const again = await runCli(["apply", path, ...cli.target]);
    expect(again.code, again.stderr).toBe(0);
    // Secrets are write-only, so a second run sends them again (docs/apply.md); nothing else changes.
    expect(again.stderr).toContain("updated provider team-slack: secrets");
    expect(again.stderr).toContain("unchanged route questions-to-slack");
    expect((await cli.api<Json[]>("GET", "/ui/api/outbound/providers")).body).toHaveLength(2);
  });

  it("refuses a slack_app provider without allowedUserIds, with the broker's message, and changes nothing", async () => {
    const path = files.write("bad.yaml", yaml().replace("        allowedUserIds: [U0ANN0001]\n", ""));
    const result = await runCli(["apply", path, ...cli.target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("allowedUserIds is required");
    expect((await cli.api<Json[]>("GET", "/ui/api/outbound/providers")).body).toEqual([]);
  });
});
