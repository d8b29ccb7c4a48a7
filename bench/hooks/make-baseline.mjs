// A built checkout of an older commit for `npm run bench:hook-cost -- --baseline=DIR`, made without a second
// `npm ci`: the commit's files (`git archive`, so this checkout's own git state is untouched), a node_modules whose
// entries link to this checkout's (the same third-party packages and pinned Node) except the workspace packages,
// which link to the old commit's own, then `tsc -b` of the broker and what it references (and the broker's own
// build script where the commit has one). Also a stable copy of a newer commit for --current=DIR: a run then
// measures that commit even while the working tree is rebuilt.
// Usage: node bench/hooks/make-baseline.mjs [COMMIT=4e1d36d] [DIR=/tmp/notify-base-COMMIT]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../broker/lib.mjs";

const commit = process.argv[2] ?? "4e1d36d";
const dir = process.argv[3] ?? `/tmp/notify-base-${commit}`;
const modules = join(REPO_ROOT, "node_modules");

if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const archive = execFileSync("git", ["-C", REPO_ROOT, "archive", "--format=tar", commit], {
  maxBuffer: 1 << 30,
});
execFileSync("tar", ["-x", "-C", dir], { input: archive });

const target = join(dir, "node_modules");
mkdirSync(target);
for (const entry of readdirSync(modules)) {
  if (entry === "@notify" || entry === ".package-lock.json") continue;
  symlinkSync(join(modules, entry), join(target, entry));
}
mkdirSync(join(target, "@notify"));
for (const name of readdirSync(join(dir, "packages"))) {
  symlinkSync(join("..", "..", "packages", name), join(target, "@notify", name));
}
execFileSync(join(modules, ".bin", "tsc"), ["-b", "packages/broker"], { cwd: dir, stdio: "inherit" });
// A commit whose broker has a build step of its own (a bundle) runs it too.
const broker = JSON.parse(readFileSync(join(dir, "packages", "broker", "package.json"), "utf8"));
if (broker.scripts?.build !== undefined) {
  execFileSync("npm", ["run", "build"], { cwd: join(dir, "packages", "broker"), stdio: "inherit" });
}
const sha = execFileSync("git", ["-C", REPO_ROOT, "rev-parse", commit], { encoding: "utf8" }).trim();
writeFileSync(join(dir, "BENCH_COMMIT"), `${sha}\n`);
process.stdout.write(`${dir}\n`);
