import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, TLSSocket } from "node:tls";
import { TEST_CERT, TEST_KEY } from "./tls-fixture.js";

/** One client command as the server saw it, and whether it came over TLS. */
export interface SmtpCommand {
  line: string;
  tls: boolean;
}

export interface SmtpServerOptions {
  /** TLS from the first byte (port 465 style). */
  implicitTls?: boolean;
  /** Offer STARTTLS in the EHLO reply and upgrade on it. */
  startTls?: boolean;
  /** AUTH mechanisms to offer; credentials are accepted when they equal `credentials`. */
  auth?: ("PLAIN" | "LOGIN")[];
  credentials?: { username: string; password: string };
  /** A reply to use instead of the normal one for a command (by its verb, e.g. "RCPT"), or for the greeting ("GREETING"). */
  replies?: Record<string, string>;
  /** Accept connections but never say anything. */
  silent?: boolean;
}

export interface LoopbackSmtp {
  port: number;
  commands: SmtpCommand[];
  /** Each message as received on the wire (still dot-stuffed), without the final `.` line. */
  rawMessages: string[];
  /** The same messages with dot-stuffing undone, as a mail store would keep them. */
  messages: string[];
  /** Resolves once every client connection so far has closed: the client's QUIT is not awaited by the client. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** A small SMTP server on 127.0.0.1, port 0, that records the dialogue and the messages. */
export async function loopbackSmtp(options: SmtpServerOptions = {}): Promise<LoopbackSmtp> {
  const commands: SmtpCommand[] = [];
  const rawMessages: string[] = [];
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  let open = 0;
  let waiters: (() => void)[] = [];

  const serve = (initial: Socket, startsSecure: boolean) => {
    sockets.add(initial);
    open++;
    initial.on("close", () => {
      open--;
      if (open === 0) {
        for (const resolve of waiters) resolve();
        waiters = [];
      }
    });
    initial.on("error", () => {});
    if (options.silent) return;
    let socket: Socket = initial;
    let secure = startsSecure;
    let buffer = "";
    let data: string[] | undefined;
    let login: "username" | "password" | undefined;
    let loginUser = "";
    const send = (text: string) => socket.write(`${text}\r\n`);
    const override = (verb: string) => options.replies?.[verb];

    const handle = (line: string) => {
      if (data) {
        if (line === ".") {
          // The CRLF before the final "." belongs to the message (RFC 5321 section 4.1.1.4).
          rawMessages.push(data.map((row) => `${row}\r\n`).join(""));
          messages.push(data.map((row) => `${row.startsWith(".") ? row.slice(1) : row}\r\n`).join(""));
          data = undefined;
          send(override("DATA-END") ?? "250 2.0.0 Ok: queued");
        } else {
          data.push(line);
        }
        return;
      }
      commands.push({ line, tls: secure });
      if (login) {
        const value = Buffer.from(line, "base64").toString("utf8");
        if (login === "username") {
          loginUser = value;
          login = "password";
          send(`334 ${Buffer.from("Password:").toString("base64")}`);
        } else {
          login = undefined;
          const ok = loginUser === options.credentials?.username && value === options.credentials?.password;
          send(ok ? "235 2.7.0 Authentication successful" : "535 5.7.8 Authentication credentials invalid");
        }
        return;
      }
      const verb = line.split(" ")[0]?.toUpperCase() ?? "";
      const replaced = override(verb);
      if (replaced) {
        send(replaced);
        return;
      }
      switch (verb) {
        case "EHLO": {
          const extensions = ["8BITMIME", "SIZE 10240000"];
          if (options.startTls && !secure) extensions.push("STARTTLS");
          if (options.auth) extensions.push(`AUTH ${options.auth.join(" ")}`);
          send(
            ["loopback.test greets you", ...extensions]
              .map((text, index, all) => `250${index === all.length - 1 ? " " : "-"}${text}`)
              .join("\r\n"),
          );
          return;
        }
        case "HELO":
          send("250 loopback.test");
          return;
        case "STARTTLS": {
          send("220 2.0.0 Ready to start TLS");
          socket.removeAllListeners("data");
          const upgraded = new TLSSocket(socket, { isServer: true, key: TEST_KEY, cert: TEST_CERT });
          upgraded.on("error", () => {});
          sockets.add(upgraded);
          socket = upgraded;
          secure = true;
          listen();
          return;
        }
        case "AUTH": {
          const [, mechanism, initial] = line.split(" ");
          if (mechanism?.toUpperCase() === "PLAIN" && initial) {
            const [, username, password] = Buffer.from(initial, "base64").toString("utf8").split("\u0000");
            const ok = username === options.credentials?.username && password === options.credentials?.password;
            send(ok ? "235 2.7.0 Authentication successful" : "535 5.7.8 Authentication credentials invalid");
          } else if (mechanism?.toUpperCase() === "LOGIN") {
            login = "username";
            send(`334 ${Buffer.from("Username:").toString("base64")}`);
          } else {
            send("504 5.5.4 Unrecognized authentication type");
          }
          return;
        }
        case "MAIL":
        case "RCPT":
          send("250 2.1.0 Ok");
          return;
        case "DATA":
          data = [];
          send("354 End data with <CR><LF>.<CR><LF>");
          return;
        case "QUIT":
          send("221 2.0.0 Bye");
          socket.end();
          return;
        default:
          send("502 5.5.2 Error: command not recognized");
      }
    };

    const listen = () => {
      socket.on("data", (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          handle(line);
        }
      });
    };
    listen();
    send(override("GREETING") ?? "220 loopback.test ESMTP ready");
  };

  const server: Server = options.implicitTls
    ? createTlsServer({ key: TEST_KEY, cert: TEST_CERT }, (socket) => serve(socket, true))
    : createServer((socket) => serve(socket, false));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    commands,
    rawMessages,
    messages,
    settled() {
      return open === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
