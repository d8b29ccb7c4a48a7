import { execFile, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(BENCH_DIR, "../..");
export const RELAY_CLI = join(REPO_ROOT, "packages/relay/dist/cli/main.js");

export const progress = (message) => process.stderr.write(`[bench:relay] ${message}\n`);
export const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Spawns a node script and resolves with its child and the URL it prints ("listening on URL"). */
export function spawnServer(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolvePromise, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolvePromise({ child, url: match[1], stop: () => stop(child) });
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

function stop(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once("exit", () => resolvePromise());
    child.kill("SIGTERM");
  });
}

export function startRelay({ dataDir, databaseUrl, env = {}, nodeArgs = [], cli = RELAY_CLI }) {
  const args = [...nodeArgs, cli, "serve", "--port", "0", "--data-dir", dataDir];
  if (databaseUrl) args.push("--database-url", databaseUrl);
  // Rate limits off: the benchmark is one client address and one device posting thousands per second.
  return spawnServer(args, { RELAY_RATE_LIMITS: "off", ...env });
}

/** VmRSS of a process in MB. */
export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function call(base, method, path, token, body) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Enrolls an installation and pairs one phone through the routes. */
export async function enrollAndPair(base, enrollmentToken) {
  const installation = (await call(base, "POST", "/v1/installations", enrollmentToken, { name: "bench" })).json;
  const { code } = (await call(base, "POST", "/v1/pairings", installation.token, {})).json;
  const publicKey = { kty: "OKP", crv: "X25519", x: Buffer.alloc(32, 7).toString("base64url") };
  const phone = (
    await call(base, "POST", "/v1/pairings/claim", undefined, { code, device_name: "bench", public_key: publicKey })
  ).json;
  return { installation, phone };
}

export function answerBody(installation, phone, responseId) {
  return {
    contract_version: "1",
    response_id: responseId,
    interaction_id: "int_bench",
    request_digest: "a".repeat(64),
    nonce: "bench-nonce",
    choice_id: "allow",
    installation_id: installation.installation_id,
    device_id: phone.device_id,
  };
}

function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

/**
 * A throwaway PostgreSQL cluster with the server's default durability (fsync on, synchronous_commit on), run as
 * the postgres user when we are root.
 */
export async function startPostgres() {
  const root = "/usr/lib/postgresql";
  const version = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => b - a)[0]
    : undefined;
  if (!version) throw new Error("PostgreSQL not found (apt-get install postgresql)");
  const bin = join(root, version, "bin");
  const dir = mkdtempSync(join(tmpdir(), "relay-bench-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid() === 0;
  if (asRoot) {
    chmodSync(dir, 0o755);
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const as = (command, args) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : run(join(bin, command), args);
  await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  await as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    version,
    /** The cluster's postmaster (its first line of postmaster.pid): its children are the cluster's processes. */
    postmasterPid: Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    stop: async () => {
      await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
