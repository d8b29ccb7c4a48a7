// Issue 22, part 5: docs/relay.md's backup steps, run as written against a relay started the unit's way: SQLite's
// `sqlite3 relay.db ".backup ..."` while the relay runs, PostgreSQL's `pg_dump --format=custom` and `pg_restore` from
// stdin. A relay started on the restored copy knows the installation enrolled before the backup.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresAvailable, startPostgres } from "../postgres.js";
import { call } from "../processes.js";
import { startUnitRelay, type UnitRelay } from "./deploy-files.js";

const run = promisify(execFile);
const DOCS = fileURLToPath(new URL("../../../../docs/relay.md", import.meta.url));
const TOKEN = "nre_backup-restore-test-0123456789abcdef";
const SQLITE3 = "/usr/bin/sqlite3";
const root = mkdtempSync(join(tmpdir(), "relay-backup-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The docs' backup block, one command per line (comments dropped). */
function backupCommands(): string[] {
  const docs = readFileSync(DOCS, "utf8");
  const start = docs.indexOf("install -d -m 0700 /var/backups/notify-relay");
  const block = docs.slice(start, docs.indexOf("```", start));
  return block.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

function docsCommand(pattern: RegExp): string {
  const command = backupCommands().find((line) => pattern.test(line));
  if (command === undefined) throw new Error(`docs/relay.md's backup block has no command matching ${pattern}`);
  return command;
}

async function relayIn(dir: string, env: Record<string, string> = {}): Promise<UnitRelay> {
  mkdirSync(dir, { recursive: true });
  return startUnitRelay({
    root: dir,
    enrollmentToken: TOKEN,
    env: { RELAY_PUBLIC_URL: "https://relay.example.test", ...env },
    trustProxy: true,
  });
}

async function enroll(relay: UnitRelay): Promise<{ installation_id: string; token: string }> {
  const enrolled = await call(relay.url, "POST", "/v1/installations", TOKEN, { name: "before the backup" });
  expect(enrolled.status).toBe(201);
  return enrolled.json;
}

async function knows(relay: UnitRelay, installation: { token: string }): Promise<number> {
  return (await call(relay.url, "GET", "/v1/devices", installation.token)).status;
}

describe("docs/relay.md's backups, as written", () => {
  it("SQLite: sqlite3 .backup while the relay runs gives a 0600 copy a new relay starts from", async () => {
    if (!existsSync(SQLITE3))
      throw new Error(`${SQLITE3} is missing: apt-get install -y sqlite3 (.ci/run installs it)`);
    const command = docsCommand(/sqlite3 \/var\/lib\/notify-relay\/relay\.db/);
    const backups = join(root, "backups");
    mkdirSync(backups, { mode: 0o700 });
    const relay = await relayIn(join(root, "sqlite-live"));
    const stateDir = join(root, "sqlite-live", "state", "notify-relay");
    let installation: { installation_id: string; token: string };
    try {
      installation = await enroll(relay);
      await run("sh", ["-c", command.replaceAll("/var/lib/notify-relay/", `${stateDir}/`)], { cwd: backups });
    } finally {
      await relay.stop();
    }
    const [backup] = (await run("ls", [backups])).stdout.trim().split("\n");
    expect(backup).toMatch(/^relay-\d{4}-\d\d-\d\d\.db$/);
    expect(statSync(join(backups, backup as string)).mode & 0o777).toBe(0o600);

    // The restore: a fresh state directory holding the backup as relay.db (and the same vapid.json).
    const restoredState = join(root, "sqlite-restored", "state", "notify-relay");
    mkdirSync(restoredState, { recursive: true, mode: 0o700 });
    copyFileSync(join(backups, backup as string), join(restoredState, "relay.db"));
    copyFileSync(join(stateDir, "vapid.json"), join(restoredState, "vapid.json"));
    const restored = await relayIn(join(root, "sqlite-restored"));
    try {
      expect(await knows(restored, installation)).toBe(200);
      expect(await knows(restored, { token: "nri_not-enrolled" })).toBe(401);
    } finally {
      await restored.stop();
    }
  });

  it.runIf(postgresAvailable())(
    "PostgreSQL: pg_dump --format=custom, then pg_restore from stdin",
    async () => {
      const dump = docsCommand(/pg_dump --format=custom notify_relay/);
      expect(dump).toContain('runuser -u postgres -- pg_dump --format=custom notify_relay > "relay-$(date +%F).dump"');
      const postgres = await startPostgres();
      try {
        const source = await postgres.createDatabase();
        const target = await postgres.createDatabase();
        const relay = await relayIn(join(root, "pg-live"), { RELAY_DATABASE_URL: source });
        let installation: { installation_id: string; token: string };
        try {
          installation = await enroll(relay);
        } finally {
          await relay.stop();
        }
        // As the docs, with the test cluster's URL for the database name (the test cluster trusts local clients).
        const file = join(root, "relay.dump");
        await run("sh", ["-c", `pg_dump --format=custom --dbname "${source}" > "${file}"`]);
        await run("sh", ["-c", `pg_restore --clean --if-exists --dbname "${target}" < "${file}"`]);
        const check = new pg.Client({ connectionString: target });
        await check.connect();
        const { rows } = await check.query("SELECT count(*)::int AS n FROM installations");
        await check.end();
        expect(rows[0].n).toBe(1);
        const restored = await relayIn(join(root, "pg-restored"), { RELAY_DATABASE_URL: target });
        try {
          expect(await knows(restored, installation)).toBe(200);
        } finally {
          await restored.stop();
        }
      } finally {
        await postgres.stop();
      }
    },
    90_000,
  );
});
