// A built checkout of an older commit for `npm run bench:hook-cost -- --baseline=DIR`, made without a second
// `npm ci`: the commit's files (`git archive`, so this checkout's own git state is untouched), a node_modules whose
// entries link to this checkout's (the same third-party packages and pinned Node) except the workspace packages,
// which link to the old commit's own, then `tsc -b` of the broker and what it references.
// Usage: node bench/hooks/make-baseline.mjs [COMMIT=4e1d36d] [DIR=/tmp/notify-base-COMMIT]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
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
process.stdout.write(`${dir}\n`);
