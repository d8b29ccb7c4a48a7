import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";

const run = promisify(execFile);

/** Debian's server binaries (postgresql-NN), newest first. */
function binDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = join(root, version, "bin");
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface TestPostgres {
  /** postgres://... of the `postgres` database (admin). */
  url: string;
  /** A fresh, empty database. */
  createDatabase(): Promise<string>;
  /** Stops the server (`pg_ctl stop -m fast`: sessions are cut), keeping its data. */
  pause(): Promise<void>;
  /** Starts it again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Whether PostgreSQL can run here. Under CI=true a missing server is a failure; elsewhere the suites skip with a
 * loud notice naming the Debian package.
 */
export function postgresAvailable(): boolean {
  if (binDir()) return true;
  if (process.env.CI === "true") throw new Error("PostgreSQL is required under CI: apt-get install postgresql");
  console.warn("\n*** PostgreSQL not found: skipping the PostgreSQL relay suites (apt-get install postgresql) ***\n");
  return false;
}

let databases = 0;

/**
 * A throwaway PostgreSQL cluster in a temp dir: initdb and pg_ctl as an unprivileged user (`postgres` via runuser
 * when the tests run as root, which PostgreSQL refuses to be), listening on 127.0.0.1 at a free port.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = binDir();
  if (!bin) throw new Error("PostgreSQL binaries not found (apt-get install postgresql)");
  const root = mkdtempSync(join(tmpdir(), "relay-pg-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(root, 0o755);
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
  }
  const as = (command: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : run(join(bin, command), args);
  await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${root}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=300",
    // Tests need speed, not crash safety of the database server itself; the benchmark keeps fsync on.
    ...(options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
  ].join(" ");
  await as("pg_ctl", ["-D", data, "-o", settings, "-l", join(root, "log"), "-w", "start"]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    async createDatabase() {
      databases += 1;
      const name = `relay_${process.pid}_${databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async pause() {
      await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
    },
    async resume() {
      await as("pg_ctl", ["-D", data, "-o", settings, "-l", join(root, "log"), "-w", "start"]);
    },
    async stop() {
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** PostgreSQL for a suite that runs on every store backend it can (see sharedPostgres). */
export interface SharedPostgres {
  /** Whether PostgreSQL can run here (postgresAvailable). */
  readonly available: boolean;
  /** The backends to run on: "sqlite", then "postgres" where it can run. */
  readonly backends: readonly ("sqlite" | "postgres")[];
  /** A fresh, empty database on the shared cluster. */
  createDatabase(): Promise<string>;
}

/**
 * One PostgreSQL cluster for the tests of the calling file (or describe) where PostgreSQL can run here: started
 * before all of them, stopped after.
 */
export function sharedPostgres(): SharedPostgres {
  const available = postgresAvailable();
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    if (available) server = await startPostgres();
  }, 60_000);
  afterAll(async () => server?.stop());
  return {
    available,
    backends: available ? ["sqlite", "postgres"] : ["sqlite"],
    createDatabase() {
      if (!server) throw new Error("no PostgreSQL");
      return server.createDatabase();
    },
  };
}
