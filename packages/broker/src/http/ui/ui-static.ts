import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/**
 * The built page: ui/ inside an installed package (scripts/pack.mjs copies it there), else where `npm install` (the
 * root `prepare` script) puts it in a checkout, packages/web/dist.
 */
export const DEFAULT_UI_DIR =
  [
    fileURLToPath(new URL("../../../ui/", import.meta.url)),
    fileURLToPath(new URL("../../../../web/dist/", import.meta.url)),
  ].find((dir) => existsSync(join(dir, "index.html"))) ??
  fileURLToPath(new URL("../../../../web/dist/", import.meta.url));

/**
 * The page's Content-Security-Policy: its own scripts, styles, fonts and API only; no inline script, no other
 * origin, no framing. The page loads nothing from the network beyond the broker.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export interface StaticFile {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  /** Vite's content-hashed assets never change under their name. */
  immutable: boolean;
}

/** The built page held in memory (a few hundred KB), each text file also gzipped once. */
export class UiFiles {
  private files: Map<string, StaticFile> | undefined;

  constructor(private readonly dir: string = DEFAULT_UI_DIR) {}

  /** Undefined when the page was not built. */
  get(path: string): StaticFile | undefined {
    this.files ??= this.load();
    return this.files.get(path);
  }

  get built(): boolean {
    this.files ??= this.load();
    return this.files.has("index.html");
  }

  private load(): Map<string, StaticFile> {
    const files = new Map<string, StaticFile>();
    if (!existsSync(join(this.dir, "index.html"))) return files;
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        if (statSync(full).isDirectory()) {
          walk(full);
          continue;
        }
        const type = TYPES[extname(name)];
        if (!type) continue;
        const body = readFileSync(full);
        const key = relative(this.dir, full).split(sep).join("/");
        const compressible = !type.startsWith("image/png") && type !== "font/woff2";
        files.set(key, {
          body,
          gzip: compressible && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined,
          type,
          immutable: key.startsWith("assets/"),
        });
      }
    };
    walk(this.dir);
    return files;
  }
}
