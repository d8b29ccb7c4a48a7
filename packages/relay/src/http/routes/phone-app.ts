import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { RelayError } from "../../domain/errors.js";
import { sendError } from "../errors.js";

/**
 * The phone PWA's build: app/ inside an installed package (scripts/pack.mjs copies it there), else where it lands in
 * this repository (packages/phone/dist), from src/ or dist/ alike.
 */
export function defaultAppDir(): string {
  const installed = fileURLToPath(new URL("../../../app/", import.meta.url));
  if (existsSync(join(installed, "index.html"))) return installed;
  return fileURLToPath(new URL("../../../../phone/dist/", import.meta.url));
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".webmanifest": "application/manifest+json",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * The page may load only its own scripts, styles and images and talk only to this relay; nothing inline, no
 * frames (the relay's API responses keep `default-src 'none'`).
 */
const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The phone app under /app (docs/phone.md, "Phone app": the PWA served by the relay). Files are read once and kept in
 * memory; hashed assets are cached for a year, the page, manifest and service worker are revalidated every time (a new
 * service worker must reach phones). A path that is not a file gets the page (the app routes by hash). A relay
 * without a built app answers 404 `not_found` on /app.
 */
export function phoneAppRoutes(app: FastifyInstance, appDir: string | undefined): void {
  const root = appDir === undefined ? undefined : resolve(appDir);
  const files = new Map<string, Buffer>();
  const read = (path: string): Buffer | undefined => {
    const cached = files.get(path);
    if (cached) return cached;
    if (!existsSync(path) || !statSync(path).isFile()) return undefined;
    const data = readFileSync(path);
    files.set(path, data);
    return data;
  };

  app.get("/app", async (_request, reply) => reply.redirect("/app/", 308));
  app.get<{ Params: { "*": string } }>(
    "/app/*",
    {
      onSend: async (request, reply, payload) => {
        if (reply.statusCode >= 400) return payload;
        reply.header("content-security-policy", APP_CSP);
        reply.header("cross-origin-resource-policy", "same-origin");
        const immutable = request.url.startsWith("/app/assets/");
        reply.header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
        return payload;
      },
    },
    async (request, reply) => {
      if (root === undefined) return sendError(request, reply, new RelayError("not_found", "the phone app is off"));
      const wanted = request.params["*"] === "" ? "index.html" : request.params["*"];
      const path = resolve(join(root, wanted));
      if (!path.startsWith(root + sep)) return sendError(request, reply, new RelayError("not_found", "no such file"));
      let file = read(path);
      let type = TYPES[extname(path)] ?? "application/octet-stream";
      if (!file && extname(wanted) === "") {
        file = read(join(root, "index.html"));
        type = TYPES[".html"] as string;
      }
      if (!file) return sendError(request, reply, new RelayError("not_found", "no such file"));
      return reply.type(type).send(file);
    },
  );
}
