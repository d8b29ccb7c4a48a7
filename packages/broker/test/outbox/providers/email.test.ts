import { afterEach, describe, expect, it } from "vitest";
import { emailAdapter } from "../../../src/outbox/providers/email.js";
import { encodeSubject, quotedPrintable } from "../../../src/outbox/providers/email-message.js";
import { dotStuff } from "../../../src/outbox/providers/smtp-client.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { closedPort } from "./loopback-http.js";
import { type LoopbackSmtp, loopbackSmtp, type SmtpServerOptions } from "./loopback-smtp.js";
import { TEST_CERT } from "./tls-fixture.js";

const SECRETS = { username: "mailer@example.com", password: "smtp-Pa55word-value" };

/** Quoted-printable decoding, written here independently of the adapter (RFC 2045 section 6.7). */
function decodeQuotedPrintable(text: string): string {
  const softJoined = text.replace(/=\r\n/g, "");
  const bytes: number[] = [];
  for (let index = 0; index < softJoined.length; index++) {
    if (softJoined[index] === "=") {
      bytes.push(Number.parseInt(softJoined.slice(index + 1, index + 3), 16));
      index += 2;
    } else {
      bytes.push(softJoined.charCodeAt(index));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

function split(message: string | undefined): { headers: string; body: string } {
  const at = (message ?? "").indexOf("\r\n\r\n");
  return { headers: (message ?? "").slice(0, at), body: (message ?? "").slice(at + 4) };
}

describe("email adapter over SMTP (RFC 5321, RFC 5322)", () => {
  let server: LoopbackSmtp | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(options: SmtpServerOptions = {}): Promise<LoopbackSmtp> {
    server = await loopbackSmtp(options);
    return server;
  }

  const settings = (port: number, extra: Record<string, unknown> = {}) =>
    emailAdapter.parseSettings({
      host: "127.0.0.1",
      port,
      startTls: false,
      from: "notify@example.com",
      to: ["a@example.com", "b@example.com"],
      heloName: "notify.test",
      ...extra,
    });

  it("holds the whole dialogue and sends a plain-text quoted-printable message with the headers", async () => {
    const smtp = await start();
    const result = await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext());
    expect(result).toEqual({ ok: true });
    await smtp.settled();
    expect(smtp.commands.map((command) => command.line)).toEqual([
      "EHLO notify.test",
      "MAIL FROM:<notify@example.com>",
      "RCPT TO:<a@example.com>",
      "RCPT TO:<b@example.com>",
      "DATA",
      "QUIT",
    ]);
    expect(smtp.messages[0]).toBe(
      [
        "Date: Wed, 04 Mar 2026 10:11:12 +0000",
        "From: notify@example.com",
        "To: a@example.com, b@example.com",
        "Subject: Build done",
        // From the outbox item's idempotency key, so a resend carries the same id.
        "Message-ID: <obx_00112233445566778899aabb@example.com>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: quoted-printable",
        "Auto-Submitted: auto-generated",
        "",
        MESSAGE,
        "",
      ].join("\r\n"),
    );
  });

  it("dot-stuffs lines that start with a dot, and encodes UTF-8 body and subject", async () => {
    const smtp = await start();
    const message = "first line\n.hidden dot line\n..two dots\nnaïve café ✓ = sign";
    await emailAdapter.send(
      samplePayload({ title: "Déploiement réussi ✓", message }),
      settings(smtp.port),
      {},
      deliveryContext(),
    );
    const raw = split(smtp.rawMessages[0]).body;
    expect(raw.split("\r\n")).toContain("..hidden dot line");
    expect(raw.split("\r\n")).toContain("...two dots");
    const { headers, body } = split(smtp.messages[0]);
    expect(decodeQuotedPrintable(body)).toBe(`${message.replaceAll("\n", "\r\n")}\r\n`);
    const subject = /^Subject: (.*(?:\r\n .*)*)$/m.exec(headers)?.[1] ?? "";
    const decoded = subject
      .split("\r\n ")
      .map((word) => Buffer.from(/^=\?UTF-8\?B\?(.*)\?=$/.exec(word)?.[1] ?? "", "base64").toString("utf8"))
      .join("");
    expect(decoded).toBe("Déploiement réussi ✓");
    for (const line of (smtp.rawMessages[0] ?? "").split("\r\n")) expect(line.length).toBeLessThanOrEqual(78);
  });

  it("sends the title alone when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    const smtp = await start();
    await emailAdapter.send(titleOnly(), settings(smtp.port), {}, deliveryContext());
    expect(smtp.rawMessages[0]).not.toContain("tests passed");
    expect(split(smtp.messages[0]).body).toBe("Build done\r\n");
  });

  it("keeps a newline in the title from adding a header", async () => {
    const smtp = await start();
    await emailAdapter.send(
      samplePayload({ title: "Hi\r\nBcc: victim@example.com" }),
      settings(smtp.port),
      {},
      deliveryContext(),
    );
    const { headers } = split(smtp.messages[0]);
    expect(headers).toContain("Subject: Hi Bcc: victim@example.com");
    expect(headers.split("\r\n").some((line) => line.startsWith("Bcc:"))).toBe(false);
  });

  it("authenticates with AUTH PLAIN when offered (here to a loopback relay without TLS)", async () => {
    const smtp = await start({ auth: ["PLAIN", "LOGIN"], credentials: SECRETS });
    const result = await emailAdapter.send(samplePayload(), settings(smtp.port), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: true });
    const auth = smtp.commands[1]?.line ?? "";
    expect(auth.startsWith("AUTH PLAIN ")).toBe(true);
    expect(Buffer.from(auth.slice("AUTH PLAIN ".length), "base64").toString("utf8")).toBe(
      `\u0000${SECRETS.username}\u0000${SECRETS.password}`,
    );
    expectNoSecrets(result, SECRETS);
  });

  it("falls back to AUTH LOGIN when PLAIN is not offered", async () => {
    const smtp = await start({ auth: ["LOGIN"], credentials: SECRETS });
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), SECRETS, deliveryContext())).toEqual({
      ok: true,
    });
    const lines = smtp.commands.map((command) => command.line);
    expect(lines.slice(1, 4)).toEqual([
      "AUTH LOGIN",
      Buffer.from(SECRETS.username).toString("base64"),
      Buffer.from(SECRETS.password).toString("base64"),
    ]);
  });

  it("maps a refused login to a final smtp_535 that names no credential", async () => {
    const smtp = await start({ auth: ["PLAIN"], credentials: { username: "other", password: "other" } });
    const result = await emailAdapter.send(samplePayload(), settings(smtp.port), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "smtp_535" });
    expectNoSecrets(result, SECRETS);
    expect(smtp.commands.map((command) => command.line)).not.toContain("DATA");
  });

  it("fails final with smtp_auth_unsupported when credentials are set but no mechanism is offered", async () => {
    const smtp = await start();
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), SECRETS, deliveryContext())).toEqual({
      ok: false,
      retryable: false,
      code: "smtp_auth_unsupported",
    });
  });

  it("speaks implicit TLS (secure: true) and checks the certificate against `ca`", async () => {
    const smtp = await start({ implicitTls: true, auth: ["PLAIN"], credentials: SECRETS });
    const secure = settings(smtp.port, { secure: true, startTls: undefined, ca: TEST_CERT });
    expect(await emailAdapter.send(samplePayload(), secure, SECRETS, deliveryContext())).toEqual({ ok: true });
    expect(smtp.commands.every((command) => command.tls)).toBe(true);
    expect(smtp.messages).toHaveLength(1);

    const untrusted = settings(smtp.port, { secure: true, startTls: undefined });
    expect(await emailAdapter.send(samplePayload(), untrusted, SECRETS, deliveryContext())).toEqual({
      ok: false,
      retryable: false,
      code: "tls_certificate_invalid",
    });
    expect(smtp.messages).toHaveLength(1);
  });

  it("upgrades with STARTTLS, greets again, and only then authenticates", async () => {
    const smtp = await start({ startTls: true, auth: ["PLAIN"], credentials: SECRETS });
    const starttls = settings(smtp.port, { startTls: true, ca: TEST_CERT });
    expect(await emailAdapter.send(samplePayload(), starttls, SECRETS, deliveryContext())).toEqual({ ok: true });
    await smtp.settled();
    expect(smtp.commands.map((command) => [command.line.split(" ")[0], command.tls])).toEqual([
      ["EHLO", false],
      ["STARTTLS", false],
      ["EHLO", true],
      ["AUTH", true],
      ["MAIL", true],
      ["RCPT", true],
      ["RCPT", true],
      ["DATA", true],
      ["QUIT", true],
    ]);
  });

  it("fails final with smtp_starttls_unavailable when STARTTLS is required but not offered", async () => {
    const smtp = await start();
    const required = settings(smtp.port, { startTls: true });
    expect(await emailAdapter.send(samplePayload(), required, SECRETS, deliveryContext())).toEqual({
      ok: false,
      retryable: false,
      code: "smtp_starttls_unavailable",
    });
    await smtp.settled();
    expect(smtp.commands.map((command) => command.line)).toEqual(["EHLO notify.test", "QUIT"]);
  });

  it("does not send credentials in clear to a host that is not loopback", async () => {
    // ::ffff:127.0.0.1 reaches the loopback server but is not a name the adapter treats as loopback.
    const smtp = await start({ auth: ["PLAIN"], credentials: SECRETS });
    const result = await emailAdapter.send(
      samplePayload(),
      settings(smtp.port, { host: "::ffff:127.0.0.1" }),
      SECRETS,
      deliveryContext(),
    );
    expect(result).toEqual({ ok: false, retryable: false, code: "smtp_auth_requires_tls" });
    expect(smtp.commands.some((command) => command.line.startsWith("AUTH"))).toBe(false);
  });

  it("maps 4xx replies to retryable and 5xx to final smtp_<code>, and sends no DATA after a refused recipient", async () => {
    let smtp = await start({ replies: { RCPT: "550 5.1.1 <a@example.com>: Recipient address rejected" } });
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext())).toEqual({
      ok: false,
      retryable: false,
      code: "smtp_550",
    });
    expect(smtp.commands.map((command) => command.line)).not.toContain("DATA");
    await smtp.close();

    smtp = await start({ replies: { MAIL: "451 4.3.0 Try again later" } });
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "smtp_451",
    });
    await smtp.close();

    smtp = await start({ replies: { GREETING: "554 5.3.2 No service" } });
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext())).toEqual({
      ok: false,
      retryable: false,
      code: "smtp_554",
    });
    await smtp.close();

    smtp = await start({ replies: { "DATA-END": "452 4.3.1 Insufficient system storage" } });
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "smtp_452",
    });
  });

  it("falls back to HELO when EHLO is not recognized", async () => {
    const smtp = await start({ replies: { EHLO: "502 5.5.2 Error: command not recognized" } });
    expect(await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext())).toEqual({ ok: true });
    expect(smtp.commands.slice(0, 2).map((command) => command.line)).toEqual(["EHLO notify.test", "HELO notify.test"]);
  });

  it("gives `timeout` when the attempt's AbortSignal fires and `connection_refused` when nothing listens", async () => {
    const smtp = await start({ silent: true });
    const started = Date.now();
    expect(
      await emailAdapter.send(samplePayload(), settings(smtp.port), {}, deliveryContext(AbortSignal.timeout(150))),
    ).toEqual({ ok: false, retryable: true, code: "timeout" });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await emailAdapter.send(samplePayload(), settings(await closedPort()), {}, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "connection_refused",
    });
  });

  it("fails final with provider_secret_invalid when only one of username and password is set", async () => {
    const result = await emailAdapter.send(
      samplePayload(),
      settings(1),
      { username: SECRETS.username },
      deliveryContext(),
    );
    expect(result).toEqual({ ok: false, retryable: false, code: "provider_secret_invalid" });
    expectNoSecrets(result, SECRETS);
  });

  it("checks settings and picks ports and TLS modes", () => {
    const base = { host: "smtp.example.com", from: "n@example.com", to: "me@example.com" };
    expect(emailAdapter.parseSettings(base)).toEqual({
      ...base,
      port: 587,
      secure: false,
      startTls: true,
      to: ["me@example.com"],
    });
    expect(emailAdapter.parseSettings({ ...base, port: 465 })).toMatchObject({
      port: 465,
      secure: true,
      startTls: false,
    });
    expect(emailAdapter.parseSettings({ ...base, secure: true })).toMatchObject({ port: 465, startTls: false });
    expect(() => emailAdapter.parseSettings({ ...base, to: "me@example.com\r\nRCPT TO:<x@y.z>" })).toThrow(/to/);
    expect(() => emailAdapter.parseSettings({ ...base, from: "Notify <n@example.com>" })).toThrow(/from/);
    expect(() => emailAdapter.parseSettings({ ...base, to: [] })).toThrow(/to/);
    expect(() => emailAdapter.parseSettings({ ...base, secure: true, startTls: true })).toThrow(/startTls/);
    expect(() => emailAdapter.parseSettings({ ...base, port: 0 })).toThrow(/port/);
    expect(() => emailAdapter.parseSettings({ ...base, ca: "not pem" })).toThrow(/ca/);
  });
});

describe("MIME and SMTP encoding helpers", () => {
  it("soft-breaks quoted-printable lines at 76 characters and encodes trailing spaces", () => {
    const encoded = quotedPrintable(`${"a".repeat(100)} \nend `);
    for (const line of encoded.split("\r\n")) expect(line.length).toBeLessThanOrEqual(76);
    expect(encoded.endsWith("end=20")).toBe(true);
    expect(decodeQuotedPrintable(encoded)).toBe(`${"a".repeat(100)} \r\nend `);
  });

  it("leaves ASCII subjects alone and folds encoded words under 76 characters", () => {
    expect(encodeSubject("Build done")).toBe("Build done");
    for (const line of encodeSubject("✓".repeat(100)).split("\r\n")) expect(line.length).toBeLessThanOrEqual(76);
  });

  it("dot-stuffs only at line starts", () => {
    expect(dotStuff(".a\r\nb.c\r\n.\r\n")).toBe("..a\r\nb.c\r\n..\r\n");
    expect(dotStuff("x")).toBe("x\r\n");
  });
});
