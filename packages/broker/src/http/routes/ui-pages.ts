import { isLoopbackHost } from "@notify/contracts/guards";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { UiSessions } from "../ui/ui-sessions.js";
import { UI_CSP, type UiFiles } from "../ui/ui-static.js";

export interface UiPageOptions {
  files: UiFiles;
  sessions: UiSessions;
}

const SECURITY_HEADERS = {
  "content-security-policy": UI_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** A small static page for the login link's refusals (no script: the CSP would refuse it anyway). */
function plainPage(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
}

/**
 * GET /ui (the single-page app, with its client-side routes falling back to index.html) and GET /ui/login (the
 * one-time link that starts a session). Same loopback rule as /ui/api (spec 1, Web interface routes).
 */
export const uiPageRoutes: FastifyPluginAsync<UiPageOptions> = async (app, { files, sessions }) => {
  app.addHook("onRequest", async (request, reply) => {
    if (!isLoopbackHost(request.headers.host)) return reply.code(403).send({ error: "non-loopback host" });
    return undefined;
  });

  app.get("/ui/login", async (request, reply) => {
    reply.headers({ ...SECURITY_HEADERS, "cache-control": "no-store" });
    const token = (request.query as Record<string, unknown>).t;
    if (!sessions.consumeLinkToken(token)) {
      return reply
        .code(401)
        .type("text/html; charset=utf-8")
        .send(
          plainPage(
            "This login link does not work",
            "Each link works once and for one hour. Run <code>notify open</code> for a new one.",
          ),
        );
    }
    // `next` (a toast's Open button) lands on a page path under /ui, never elsewhere.
    const next = (request.query as Record<string, unknown>).next;
    const location = typeof next === "string" && /^\/ui\/[A-Za-z0-9#_-]*$/.test(next) ? next : "/ui/";
    return reply.code(303).header("set-cookie", sessions.newSessionCookie()).header("location", location).send();
  });

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = decodeURIComponent((request.url.split("?")[0] ?? "").replace(/^\/ui\/?/, ""));
    // Unknown API paths stay JSON 404s; they never fall back to the page.
    if (path === "api" || path.startsWith("api/")) return reply.code(404).send({ error: "not found" });
    reply.headers(SECURITY_HEADERS);
    if (!files.built) {
      return reply
        .code(503)
        .header("cache-control", "no-store")
        .type("text/html; charset=utf-8")
        .send(plainPage("The web UI is not built", "Run <code>npm install</code> in the repository to build it."));
    }
    let file = files.get(path);
    // A missing hashed asset is a 404; any other path is a page of the app (client-side routing).
    if (!file && path.startsWith("assets/")) return reply.code(404).send({ error: "not found" });
    const fallback = !file;
    if (!file || path === "") file = files.get("index.html");
    if (!file) return reply.code(404).send({ error: "not found" });
    reply.type(file.type);
    reply.header("cache-control", file.immutable && !fallback ? "public, max-age=31536000, immutable" : "no-cache");
    reply.header("vary", "accept-encoding");
    const acceptsGzip = /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
    if (file.gzip && acceptsGzip) return reply.header("content-encoding", "gzip").send(file.gzip);
    return reply.send(file.body);
  };
  app.get("/ui", serve);
  app.get("/ui/*", serve);
};
