import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { LOGIN_LINK_TTL_MS } from "./ui-sessions.js";

/**
 * A login link handed to a browser through a file, never through a command line: `xdg-open URL` puts the one-time
 * token in the opener's (and often the browser's) argv, which every local user reads in /proc/PID/cmdline (issue
 * 21, item 1). The link goes into a 0600 HTML file in a 0700 directory of the data dir, whose page sends the
 * browser on (the way Jupyter opens its token URL), and only that file's path is passed to the opener. The
 * broker removes the file when its link is used; any left behind (a browser never started) is removed by the next
 * open once the link has expired.
 */

/** `<data dir>/open`: the directory of the redirect pages. */
export const loginPagesDir = (dataDir: string): string => join(dataDir, "open");

/** The page's file name, from the token: the broker finds it again when the link is used, knowing only the token. */
export const loginPageName = (token: string): string =>
  `login-${createHash("sha256").update(token).digest("hex").slice(0, 32)}.html`;

/** A 0700 directory that is ours, whatever the umask and whether it existed (a symlink is refused). */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
    throw new Error(`${dir} belongs to another user`);
  }
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** The redirect page: a meta refresh (no script needed) and a script for browsers that wait on meta refresh. */
function pageHtml(url: string): string {
  const attribute = url.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const script = JSON.stringify(url).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=${attribute}">
<title>Opening Notify</title></head>
<body><p>Opening Notify… <a href="${attribute}">Continue</a></p>
<script>window.location.replace(${script});</script></body></html>
`;
}

/** Writes the redirect page of `url` (a `/ui/login?t=...` link) and returns its path. */
export function writeLoginPage(dataDir: string, url: string, now: number = Date.now()): string {
  const token = new URL(url).searchParams.get("t") ?? randomBytes(16).toString("hex");
  const dir = loginPagesDir(dataDir);
  privateDir(dir);
  removeExpiredLoginPages(dataDir, now);
  const path = join(dir, loginPageName(token));
  // `wx`: never through a link planted at that name; 0600 again after open, whatever the umask was.
  const fd = openSync(path, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, pageHtml(url));
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Removes the page of a link that was just used (the broker's login route). Missing is fine. */
export function removeLoginPage(dataDir: string, token: string): void {
  rmSync(join(loginPagesDir(dataDir), loginPageName(token)), { force: true });
}

/** Removes every page whose link has expired. */
export function removeExpiredLoginPages(dataDir: string, now: number = Date.now()): void {
  const dir = loginPagesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^login-[0-9a-f]{32}\.html$/.test(name)) continue;
    const path = join(dir, name);
    try {
      if (lstatSync(path).mtimeMs + LOGIN_LINK_TTL_MS <= now) rmSync(path, { force: true });
    } catch {
      // Removed meanwhile.
    }
  }
}
