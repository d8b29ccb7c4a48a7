import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { delimiter, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The broker's own small pages (a login link that no longer works, a web UI that is not built): styled like the app
 * (its colours from packages/web/src/styles.css, light and dark, readable at phone width) with no script and no
 * file to load. The inline style is allowed by its hash alone, so the page's CSP stays as strict as the app's.
 */
const STYLE = `:root{color-scheme:light dark;--bg:#f6f7f9;--surface:#fff;--text:#1b1f24;--muted:#57606a;--border:#d8dee4;--accent:#0b5cad;--radius:8px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.45;background:var(--bg);color:var(--text)}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--surface:#1a1f25;--text:#e6e9ed;--muted:#a1abb6;--border:#323a43;--accent:#5aa2f0}}
*{box-sizing:border-box}body{margin:0}a{color:var(--accent)}
header{padding:.6rem 1.25rem;background:var(--surface);border-bottom:1px solid var(--border);font-weight:700}
main{max-width:36rem;margin:2rem auto;padding:0 1rem}
section{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:1.25rem 1.5rem}
h1{font-size:1.35rem;margin:0 0 .75rem}p{margin:.6rem 0;overflow-wrap:anywhere}.muted{color:var(--muted);font-size:.92rem}
pre{margin:.6rem 0;padding:.6rem .8rem;border:1px solid var(--border);border-radius:var(--radius);background:var(--bg);white-space:pre-wrap;overflow-wrap:anywhere}
code{font-family:ui-monospace,"SFMono-Regular",Menlo,monospace;font-size:.92em}`;

const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

/** The CSP of these pages: nothing but their own inline style. */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${STYLE_HASH}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** HTML-escapes text for the page body. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A page with a title and a body of trusted HTML (callers escape what they put in). */
export function statusPage(title: string, bodyHtml: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Notify</title><style>${STYLE}</style></head>
<body><header>Notify</header><main><section><h1>${escapeHtml(title)}</h1>
${bodyHtml}
</section></main></body></html>
`;
}

const OWN_BIN = fileURLToPath(new URL("../../../bin/notify", import.meta.url));

/**
 * How the person runs the CLI, for a page that tells them a command (issue 21, item 17): `notify` when a `notify`
 * on PATH is this very CLI (an `npm install -g`), else `npx notify` run in the checkout. PATH entries that are a
 * `node_modules/.bin` are skipped: `npm start` adds the checkout's own, which the person's shell does not have.
 */
export function cliCommand(env: NodeJS.ProcessEnv = process.env): { command: string; checkout?: string } {
  let own: string | undefined;
  try {
    own = realpathSync(OWN_BIN);
  } catch {
    own = undefined;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || dir.endsWith(`node_modules${sep}.bin`)) continue;
    const candidate = join(dir, "notify");
    try {
      if (existsSync(candidate) && own !== undefined && realpathSync(candidate) === own) return { command: "notify" };
    } catch {
      // An unreadable PATH entry: try the next.
    }
  }
  // packages/broker/bin/notify -> the checkout's root.
  const checkout = own === undefined ? undefined : join(own, "..", "..", "..", "..");
  return checkout === undefined ? { command: "npx notify" } : { command: "npx notify", checkout };
}
