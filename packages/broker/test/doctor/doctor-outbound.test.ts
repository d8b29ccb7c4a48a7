// Issue 32, item 6: doctor's `outbound` check per enabled provider. A Telegram provider with answers whose token
// has the wrong shape (created over the API, which, unlike `notify apply`, still takes it) and one whose token the
// Bot API refuses (a loopback server answering getUpdates with 401, as Telegram does for a revoked token) both fail,
// naming the cause and the fix; with no provider enabled the check is ok.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

const brokers: CliBroker[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const broker of brokers.splice(0)) await broker.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A Bot API stand-in that refuses every call with Telegram's 401 body. */
async function refusingBotApi(): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(401, { "content-type": "application/json" });
    response.end(JSON.stringify({ ok: false, error_code: 401, description: "Unauthorized" }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function outbound(broker: CliBroker): Promise<Check> {
  const dir = tempDir("notify-doctor-outbound-");
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: dir, DBUS_SESSION_BUS_ADDRESS: "" });
  const result = await runCli(["doctor", "--json", ...broker.target], env);
  return (JSON.parse(result.stdout).checks as Check[]).find((check) => check.name === "outbound") as Check;
}

/** The web page's API (/ui/api needs its header besides the token). */
async function ui<T>(
  broker: CliBroker,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${broker.broker.url}/ui/api${path}`, {
    method,
    headers: { authorization: `Bearer ${broker.token}`, "content-type": "application/json", "x-notify-ui": "1" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function telegramWithAnswers(broker: CliBroker, botToken: string, apiBaseUrl: string): Promise<void> {
  const created = await ui(broker, "POST", "/outbound/providers", {
    kind: "telegram",
    name: "phone-bot",
    enabled: true,
    settings: { chatId: "-1001234567890", answers: true, allowedUserIds: [42], apiBaseUrl },
    secrets: { botToken },
  });
  expect(created.status).toBe(201);
  await untilValue("the answer loop to report retrying", async () => {
    const { body } = await ui<{ connection?: { state: string } }[]>(broker, "GET", "/outbound/providers");
    return body[0]?.connection?.state === "retrying" ? true : undefined;
  });
}

describe("notify doctor: outbound", () => {
  it("ok with no provider enabled; fail naming a malformed token, with the fix", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    expect(await outbound(broker)).toMatchObject({ status: "ok", detail: "no outbound provider enabled" });
    await telegramWithAnswers(broker, "not-a-token", await refusingBotApi());
    const check = await outbound(broker);
    expect(check.status).toBe("fail");
    expect(check.detail).toMatch(
      /^phone-bot \(telegram\): answers: retrying since \S+: its token does not have the documented shape; nothing delivered yet$/,
    );
    expect(check.fix).toBe(
      "set phone-bot's token again (notify apply FILE, or the Outbound page), then notify outbound test phone-bot",
    );
    expect(JSON.stringify(check)).not.toContain("not-a-token");
  });

  it("fail when the chat answer loop is refused by the Bot API (a revoked token)", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    await telegramWithAnswers(broker, "123456789:AAbbCCddEEffGGhhIIjjKKllMMnn_-0123", await refusingBotApi());
    const check = await outbound(broker);
    expect(check.status).toBe("fail");
    expect(check.detail).toContain("phone-bot (telegram): answers: retrying since");
    expect(check.detail).toContain("the token is refused (http_401)");
  });
});
