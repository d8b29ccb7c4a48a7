// Issue 32, item 6: `notify apply` refuses a secret whose shape docs/outbound.md documents as wrong (a Telegram bot
// token that is not `<id>:<secret>`, a Slack app token that is not xapp-...), naming the field and never the value,
// and changes nothing; a well-shaped token is accepted.
import { describe, expect, it } from "vitest";
import { cliBrokerPerTest, runCli } from "./cli-harness.js";
import { fileDirPerTest, type Json, uiGet } from "./outbound-helpers.js";

const { cli } = cliBrokerPerTest();
const files = fileDirPerTest();

const telegram = (token: string) => `outbound:
  providers:
    - name: phone-bot
      kind: telegram
      enabled: true
      settings:
        chatId: "-1001234567890"
      secrets:
        botToken: "${token}"
`;

describe("notify apply: documented secret shapes", () => {
  it("refuses a Telegram botToken that is not <id>:<secret>, naming the field, not the value; nothing changes", async () => {
    const refused = await runCli(["apply", files.write("bad.yaml", telegram("not-a-token")), ...cli.target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("outbound.providers[0].secrets: botToken does not have the shape telegram takes");
    expect(refused.stderr + refused.stdout).not.toContain("not-a-token");
    expect(await uiGet<Json[]>(cli, "/outbound/providers")).toEqual([]);

    const token = "123456789:AAbbCCddEEffGGhhIIjjKKllMMnn_-0123";
    const accepted = await runCli(["apply", files.write("good.yaml", telegram(token)), ...cli.target]);
    expect(accepted.code, accepted.stderr).toBe(0);
    const providers = await uiGet<Json[]>(cli, "/outbound/providers");
    expect(providers.map((provider) => [provider.name, provider.secretNames])).toEqual([["phone-bot", ["botToken"]]]);
  });

  it("refuses Slack app tokens of the wrong kind (a bot token given as the app token)", async () => {
    const yaml = `outbound:
  providers:
    - name: slack
      kind: slack_app
      settings:
        channel: C0123456789
        allowedUserIds: [U0123ABCD]
      secrets:
        appToken: "xoxb-1234567890-abcdefghij"
        botToken: "xoxb-1234567890-abcdefghij"
`;
    const refused = await runCli(["apply", files.write("slack.yaml", yaml), ...cli.target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr, refused.stderr).toContain("appToken does not have the shape slack_app takes (xapp-");
    expect(refused.stderr).not.toContain("botToken does not");
  });
});
