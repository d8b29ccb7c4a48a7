/**
 * The unit tier's rule, enforced: a `*.unit.test.ts` file runs in memory (fastify's inject, a manual clock, SQLite
 * files) and never opens a socket or starts a process. Each way to do either throws, so a test that needs one fails
 * at once with the fix instead of landing in the fast tier by mistake.
 */
import childProcess from "node:child_process";
import dgram from "node:dgram";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const refuse = (what: string) => (): never => {
  throw new Error(`the unit tier runs no ${what}: name this file *.test.ts (the e2e tier), not *.unit.test.ts`);
};

const processes = childProcess as unknown as Record<string, unknown>;
for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
  processes[name] = refuse(`child_process.${name}`);
}
net.Server.prototype.listen = refuse("net.Server.listen") as typeof net.Server.prototype.listen;
net.Socket.prototype.connect = refuse("net.Socket.connect") as typeof net.Socket.prototype.connect;
(dgram as unknown as Record<string, unknown>).createSocket = refuse("dgram.createSocket");
// Named imports (`import { spawn } from "node:child_process"`) see the patched functions too.
syncBuiltinESMExports();
