// The shipped deployment files (packages/relay/deploy/) run for real: the systemd unit's ExecStart, Environment=
// and LoadCredential= as a process of their own, and the Caddyfile's site block in a real Caddy with `tls internal`
// on loopback. What a test changes in them is only what a deployment on this machine must change (ports, the
// domain, where the binary is), each substitution checked to match exactly once.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";

export const DEPLOY_DIR = fileURLToPath(new URL("../../deploy/", import.meta.url));
export const UNIT_FILE = join(DEPLOY_DIR, "notify-relay.service");
export const CADDYFILE = join(DEPLOY_DIR, "Caddyfile");
export const ENV_FILE = join(DEPLOY_DIR, "relay.env");
/** The command the relay's package installs (bin/ is what npm links onto PATH). */
export const RELAY_BIN = fileURLToPath(new URL("../../bin/notify-relay.js", import.meta.url));
/** Where `npm install -g` puts `notify-relay` with NodeSource's Node (prefix /usr): the shipped unit's path. */
export const SHIPPED_EXEC = "/usr/bin/notify-relay";
export const CADDY = "/usr/bin/caddy";

/** What a wait across processes may take on a loaded 2-core machine. */
export const E2E_WAIT_MS = 30_000;

export function replaceOnce(text: string, find: string, replacement: string): string {
  const count = text.split(find).length - 1;
  if (count !== 1) throw new Error(`expected "${find}" exactly once in a shipped deployment file, found ${count}`);
  return text.replace(find, () => replacement);
}

/** `Key=value` lines of one section of a unit file, in order (comments and blank lines left out). */
export function unitSection(unit: string, section: string): { key: string; value: string }[] {
  const entries: { key: string; value: string }[] = [];
  let current = "";
  for (const raw of unit.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = header[1] as string;
      continue;
    }
    if (current !== section) continue;
    const at = line.indexOf("=");
    entries.push({ key: line.slice(0, at), value: line.slice(at + 1) });
  }
  return entries;
}

export function serviceValues(unit: string, key: string): string[] {
  return unitSection(unit, "Service")
    .filter((entry) => entry.key === key)
    .map((entry) => entry.value);
}

/** KEY=value lines of an environment file. */
export function envFileValues(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    values[line.slice(0, at)] = line.slice(at + 1);
  }
  return values;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

function spawned(child: ChildProcess): Spawned & { exited: Promise<void> } {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    exited,
    output: () => output,
    /** SIGTERM, and SIGKILL if it is still running after E2E_WAIT_MS (a stuck shutdown fails no test, hangs none). */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), E2E_WAIT_MS);
      await exited;
      clearTimeout(force);
    },
  };
}

export interface UnitRelay extends Spawned {
  /** Where it listens on loopback (plain HTTP). */
  url: string;
  port: number;
  /** The argv the unit's ExecStart gave, after the test's substitutions. */
  argv: string[];
}

/**
 * Runs the shipped unit's ExecStart the way systemd would: its arguments (the binary replaced by this checkout's
 * bin/notify-relay.js, `--port` by 0, and `--trust-proxy ...` taken out when `trustProxy` is false), its
 * Environment= with %S expanded, the EnvironmentFile's variables (`env` overrides them), and the credential that
 * LoadCredential= names written into a CREDENTIALS_DIRECTORY. Nothing else of the test's environment leaks in.
 */
export async function startUnitRelay(options: {
  root: string;
  enrollmentToken: string;
  env: Record<string, string>;
  trustProxy: boolean;
}): Promise<UnitRelay> {
  const unit = readFileSync(UNIT_FILE, "utf8");
  const [execStart] = serviceValues(unit, "ExecStart");
  if (execStart === undefined || /["'\\]/.test(execStart)) throw new Error("ExecStart must be one unquoted line");
  let argv = execStart.split(/\s+/);
  if (argv[0] !== SHIPPED_EXEC) throw new Error(`ExecStart runs ${argv[0]}, not ${SHIPPED_EXEC}`);
  argv = argv.slice(1);
  const portAt = argv.indexOf("--port");
  if (portAt < 0) throw new Error("ExecStart has no --port");
  argv[portAt + 1] = "0";
  if (!options.trustProxy) {
    const at = argv.indexOf("--trust-proxy");
    if (at < 0) throw new Error("ExecStart has no --trust-proxy");
    argv.splice(at, 2);
  }

  const stateRoot = join(options.root, "state");
  const credentials = join(options.root, "credentials");
  mkdirSync(stateRoot, { recursive: true, mode: 0o700 });
  mkdirSync(credentials, { recursive: true, mode: 0o700 });
  const [credential] = serviceValues(unit, "LoadCredential");
  const credentialName = credential?.split(":")[0];
  if (!credentialName) throw new Error("the unit loads no credential");
  writeFileSync(join(credentials, credentialName), `${options.enrollmentToken}\n`, { mode: 0o600 });

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.root,
    CREDENTIALS_DIRECTORY: credentials,
  };
  for (const assignment of serviceValues(unit, "Environment")) {
    const at = assignment.indexOf("=");
    env[assignment.slice(0, at)] = assignment.slice(at + 1).replaceAll("%S", stateRoot);
  }
  Object.assign(env, envFileValues(readFileSync(ENV_FILE, "utf8")), options.env);

  const child = spawn(process.execPath, [RELAY_BIN, ...argv], { env, stdio: ["ignore", "pipe", "pipe"] });
  const process_ = spawned(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay did not listen: ${process_.output()}`)), E2E_WAIT_MS);
    child.stdout?.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(process_.output());
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`relay exited (${code}): ${process_.output()}`));
    });
  });
  return { ...process_, url, port: Number(new URL(url).port), argv };
}

/** The shipped Caddyfile's site block for https://localhost:PORT with Caddy's own CA, proxying to `upstreamPort`. */
export function localSite(httpsPort: number, upstreamPort: number): string {
  const shipped = readFileSync(CADDYFILE, "utf8");
  const site = replaceOnce(
    shipped,
    "relay.example.com {",
    `https://localhost:${httpsPort} {\n\ttls internal\n\tbind 127.0.0.1`,
  );
  return replaceOnce(site, "reverse_proxy 127.0.0.1:47822", `reverse_proxy 127.0.0.1:${upstreamPort}`);
}

export interface RunningCaddy extends Spawned {
  /** Caddy's local CA: the root a client trusts, and the intermediate Caddy presents with each certificate. */
  rootPem: string;
  intermediatePem: string;
  /** A dispatcher trusting only Caddy's root, from a given loopback source address. */
  client(localAddress?: string): Agent;
}

/** `name` resolved to 127.0.0.1 whatever /etc/hosts says (a client bound to 127.0.0.x must not try ::1). */
function loopbackLookup(
  _hostname: string,
  options: { all?: boolean },
  callback: (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
): void {
  if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
}

/**
 * A real Caddy (Debian's) in front of the given sites, as an unprivileged deployment would run it: admin API off,
 * its HTTP port moved off 80, its data (the local CA) under `root` through XDG_DATA_HOME, the system trust store
 * left alone. Resolves once every site answers /healthz through TLS.
 */
export async function startCaddy(root: string, sites: { httpsPort: number; upstreamPort: number }[]) {
  if (!existsSync(CADDY)) {
    throw new Error(
      `${CADDY} is missing: apt-get install -y caddy (.ci/run installs it with the other Debian packages)`,
    );
  }
  const httpPort = await freePort();
  const config = [
    "{",
    "\tadmin off",
    `\thttp_port ${httpPort}`,
    "\tauto_https disable_redirects",
    "\tskip_install_trust",
    "}",
    ...sites.map((site) => localSite(site.httpsPort, site.upstreamPort)),
  ].join("\n");
  const configFile = join(root, "Caddyfile");
  writeFileSync(configFile, config);
  const home = join(root, "caddy-home");
  mkdirSync(home, { recursive: true });
  const child = spawn(CADDY, ["run", "--config", configFile, "--adapter", "caddyfile"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      XDG_DATA_HOME: join(home, "data"),
      XDG_CONFIG_HOME: join(home, "config"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const process_ = spawned(child);
  const ca = join(home, "data", "caddy", "pki", "authorities", "local");
  const deadline = Date.now() + E2E_WAIT_MS;
  let exited = false;
  void process_.exited.then(() => {
    exited = true;
  });
  // Caddy writes each file in place: one that exists may not hold its whole certificate yet (a CI run read an empty
  // root.crt: "PEM routines::no start line"), so both are read until each ends its certificate.
  const whole = (name: string): string => {
    const file = join(ca, name);
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    return text.includes("-----END CERTIFICATE-----") ? text : "";
  };
  let rootPem = "";
  let intermediatePem = "";
  while (rootPem === "" || intermediatePem === "") {
    if (exited) throw new Error(`caddy exited: ${process_.output()}`);
    if (Date.now() > deadline) throw new Error(`caddy made no local CA within ${E2E_WAIT_MS} ms: ${process_.output()}`);
    rootPem = whole("root.crt");
    intermediatePem = whole("intermediate.crt");
    if (rootPem === "" || intermediatePem === "") await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const client = (localAddress?: string) =>
    new Agent({
      connect: { ca: rootPem, lookup: loopbackLookup as never, autoSelectFamily: false },
      // undici sets the socket's source address from the client's own option (a connect option is overwritten).
      ...(localAddress ? { localAddress } : {}),
    });
  const probe = client();
  try {
    for (const site of sites) {
      for (;;) {
        if (exited) throw new Error(`caddy exited: ${process_.output()}`);
        try {
          const reply = await request(`https://localhost:${site.httpsPort}/healthz`, { dispatcher: probe });
          await reply.body.text();
          if (reply.statusCode === 200) break;
          if (Date.now() > deadline) throw new Error(`caddy answered ${reply.statusCode}: ${process_.output()}`);
        } catch (error) {
          if (Date.now() > deadline) {
            throw new Error(
              `caddy did not answer on ${site.httpsPort}: ${(error as Error).message}\n${process_.output()}`,
            );
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await probe.close();
  }
  return { ...process_, rootPem, intermediatePem, client } satisfies RunningCaddy;
}

/** Chromium's `--ignore-certificate-errors-spki-list` value: base64 of the SHA-256 of the DER SubjectPublicKeyInfo. */
export function spkiHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest("base64");
}
