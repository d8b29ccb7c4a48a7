// Issue 32, item 6: relay failures name their cause, in the CLI's errors, in doctor's `relay` check (with the fix
// that cause needs) and once in the broker log. A real relay (SQLite, in-process) for enrollment; a real TLS server
// with a self-signed certificate (openssl) that this Node does not trust; a wrong enrollment token; an installation
// token the relay refuses.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { sqliteRelay } from "@notify/test-kit/relay-harness";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

let key = "";
let cert = "";
beforeAll(() => {
  const dir = tempDir("notify-selfsigned-");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  key = readFileSync(join(dir, "key.pem"), "utf8");
  cert = readFileSync(join(dir, "cert.pem"), "utf8");
});

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function selfSignedServer(): Promise<string> {
  const server: Server = createServer({ key, cert }, (_request, response) => response.end("{}"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function enrolledBroker(): Promise<{ broker: CliBroker; env: NodeJS.ProcessEnv; providerId: string }> {
  const relay = sqliteRelay();
  const relayUrl = await relay.listen();
  closers.push(() => relay.close());
  const broker = await startCliBroker();
  closers.push(() => broker.close());
  const dir = tempDir("notify-doctor-relay-");
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: dir, DBUS_SESSION_BUS_ADDRESS: "" });
  const enrolled = await runCli(
    ["relay", "enroll", relayUrl, "--enrollment-token", ENROLLMENT_TOKEN, ...broker.target],
    env,
  );
  expect(enrolled.code, enrolled.stderr).toBe(0);
  const providers = await ui<{ id: string; kind: string }[]>(broker, "GET", "/outbound/providers");
  return { broker, env, providerId: providers.find((provider) => provider.kind === "relay")?.id as string };
}

async function ui<T>(broker: CliBroker, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${broker.broker.url}/ui/api${path}`, {
    method,
    headers: { authorization: `Bearer ${broker.token}`, "content-type": "application/json", "x-notify-ui": "1" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

async function relayCheck(broker: CliBroker, env: NodeJS.ProcessEnv): Promise<Check> {
  const result = await runCli(["doctor", "--json", ...broker.target], env);
  return (JSON.parse(result.stdout).checks as Check[]).find((check) => check.name === "relay") as Check;
}

function brokerLog(broker: CliBroker): string {
  const dir = join(broker.dataDir, "logs");
  return readdirSync(dir)
    .map((file) => readFileSync(join(dir, file), "utf8"))
    .join("");
}

describe("relay failures name their cause", () => {
  it("an untrusted TLS certificate: the CLI's enroll error, doctor's relay check and the broker log say so", async () => {
    const url = await selfSignedServer();
    const broker = await startCliBroker();
    closers.push(() => broker.close());
    const enroll = await runCli(["relay", "enroll", url, "--enrollment-token", ENROLLMENT_TOKEN, ...broker.target]);
    expect(enroll.code).toBe(1);
    expect(enroll.stderr).toContain("the relay's TLS certificate is not trusted (tls_untrusted");
    expect(enroll.stderr).toContain("NODE_EXTRA_CA_CERTS=/path/to/ca.pem");

    // Enrolled at a relay that later sits behind a certificate this Node does not trust.
    const { broker: enrolled, env, providerId } = await enrolledBroker();
    const provider = await ui<{ settings: Record<string, unknown> }>(enrolled, "GET", "/outbound/providers").then(
      (list) =>
        (list as unknown as { id: string; settings: Record<string, unknown> }[]).find((p) => p.id === providerId),
    );
    await ui(enrolled, "PATCH", `/outbound/providers/${providerId}`, {
      settings: { ...provider?.settings, url },
    });
    const check = await relayCheck(enrolled, env);
    expect(check.status).toBe("fail");
    expect(check.detail).toContain("enrolled but: 502 the relay's TLS certificate is not trusted (tls_untrusted");
    expect(check.fix).toBe(
      "start the broker with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (the service: systemctl --user edit notify.service)",
    );
    await relayCheck(enrolled, env);
    // Once in the log, however often it is asked.
    expect(brokerLog(enrolled).split("relay: the relay's TLS certificate is not trusted")).toHaveLength(2);
  });

  it("a wrong enrollment token, and an installation token the relay refuses, are named as such", async () => {
    const relay = sqliteRelay();
    const relayUrl = await relay.listen();
    closers.push(() => relay.close());
    const broker = await startCliBroker();
    closers.push(() => broker.close());
    const refused = await runCli(["relay", "enroll", relayUrl, "--enrollment-token", "wrong-token", ...broker.target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "the relay answered HTTP 401: the enrollment token was refused; check it with the relay's operator",
    );
    expect(refused.stderr).not.toContain("wrong-token");

    const { broker: enrolled, env, providerId } = await enrolledBroker();
    await ui(enrolled, "PATCH", `/outbound/providers/${providerId}`, {
      secrets: { installationToken: "nri_not_the_installation_token_at_all" },
    });
    const check = await relayCheck(enrolled, env);
    expect(check.status).toBe("fail");
    expect(check.detail).toContain("this installation's token was refused");
    expect(check.fix).toBe(
      "notify relay enroll URL --enrollment-token T (the relay no longer knows this installation)",
    );
  });
});
