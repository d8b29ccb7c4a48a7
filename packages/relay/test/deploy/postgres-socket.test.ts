// Issue 22, part 5: relay.env's PostgreSQL URL (the local socket, no password: peer authentication on a Debian
// host) works as written, with only what differs on a test cluster changed: the role, the database, the socket's
// directory and port. The relay is run the unit's way (deploy-files.ts) and reports the database reachable.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, startPostgres, type TestPostgres } from "../postgres.js";
import { ENV_FILE, replaceOnce, startUnitRelay } from "./deploy-files.js";

const run = postgresAvailable();

describe.runIf(run)("relay.env's socket URL for PostgreSQL", () => {
  let postgres: TestPostgres;
  const root = mkdtempSync(join(tmpdir(), "relay-pg-socket-"));

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("reaches the database through the Unix socket the URL names", async () => {
    const shipped = /^#(RELAY_DATABASE_URL=.*)$/m.exec(readFileSync(ENV_FILE, "utf8"))?.[1];
    expect(shipped).toBe("RELAY_DATABASE_URL=postgresql://notify-relay@/notify_relay?host=/var/run/postgresql");
    const database = new URL(await postgres.createDatabase()).pathname.slice(1);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const socketDir = (await admin.query("SHOW unix_socket_directories")).rows[0].unix_socket_directories as string;
    const port = (await admin.query("SHOW port")).rows[0].port as string;
    await admin.end();

    let url = (shipped as string).slice("RELAY_DATABASE_URL=".length);
    url = replaceOnce(url, "notify-relay@", "postgres@");
    url = replaceOnce(url, "/notify_relay?", `/${database}?`);
    url = replaceOnce(url, "host=/var/run/postgresql", `host=${socketDir.split(",")[0]?.trim()}&port=${port}`);
    const relay = await startUnitRelay({
      root,
      enrollmentToken: "nre_postgres-socket-test-0123456789",
      env: { RELAY_PUBLIC_URL: "https://relay.example.test", RELAY_DATABASE_URL: url },
      trustProxy: true,
    });
    try {
      const health = await (await fetch(`${relay.url}/healthz`)).json();
      expect(health).toMatchObject({ status: "ok", database: "ok", backend: "postgres" });
    } finally {
      await relay.stop();
    }
  });
});
