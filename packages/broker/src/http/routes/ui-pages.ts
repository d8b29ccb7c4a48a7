import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ERRORS } from "../../domain/errors.js";
import { errorStatus, sendError } from "../errors.js";
import { cliCommand, escapeHtml, STATUS_PAGE_CSP, statusPage } from "../ui/status-page.js";
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

/** The broker's own pages: the app's security headers with the CSP that allows their one inline style. */
const STATUS_HEADERS = { ...SECURITY_HEADERS, "content-security-policy": STATUS_PAGE_CSP, "cache-control": "no-store" };

/** What a login link that no longer works shows: why, and the command that makes a new one, as this user runs it. */
function refusedLinkPage(): string {
  const { command, checkout } = cliCommand();
  const where = checkout !== undefined ? ` in the Notify checkout (<code>${escapeHtml(checkout)}</code>)` : "";
  return statusPage(
    ERRORS.login_link_refused.message,
    `<p>Each login link signs in one browser, once, within an hour of being made. This one was already used or has
expired.</p>
<p>For a new link, run this${where}:</p>
<pre><code>${escapeHtml(command)} open</code></pre>
<p class="muted">It opens the web page in your browser; <code>${escapeHtml(command)} open --print</code> prints the link
instead.</p>`,
  );
}

/**
 * GET /ui (the single-page app, with its client-side routes falling back to index.html) and GET /ui/login (the
 * one-time link that starts a session). Registered inside plugins/ui-pages.ts, which checks the Host.
 */
export const uiPageRoutes: FastifyPluginAsync<UiPageOptions> = async (app, { files, sessions }) => {
  app.get("/ui/login", async (request, reply) => {
    reply.headers({ ...SECURITY_HEADERS, "cache-control": "no-store" });
    const query = request.query as Record<string, unknown>;
    // `next` (a toast's Open button) lands on a page path under /ui, never elsewhere.
    const next = query.next;
    const location = typeof next === "string" && /^\/ui\/[A-Za-z0-9#_-]*$/.test(next) ? next : "/ui/";
    // A HEAD (a link checker, a preview, a browser's prefetch) tells whether the link works and never uses it up
    // (issue 21, item 1): only the GET that follows signs in.
    if (request.method === "HEAD") {
      const answer = sessions.linkTokenWorks(query.t) ? reply.code(200) : errorStatus(reply, "login_link_refused");
      return answer.type("text/html; charset=utf-8").send();
    }
    if (!sessions.consumeLinkToken(query.t)) {
      // A browser already signed in (a reload of the used link, a second click) goes on to the page.
      if (sessions.hasSession(request.headers.cookie)) return reply.code(303).header("location", location).send();
      return errorStatus(reply, "login_link_refused")
        .headers(STATUS_HEADERS)
        .type("text/html; charset=utf-8")
        .send(refusedLinkPage());
    }
    return reply.code(303).header("set-cookie", sessions.newSessionCookie()).header("location", location).send();
  });

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = decodeURIComponent((request.url.split("?")[0] ?? "").replace(/^\/ui\/?/, ""));
    // Unknown API paths stay JSON 404s; they never fall back to the page.
    if (path === "api" || path.startsWith("api/")) return sendError(reply, "not_found");
    reply.headers(SECURITY_HEADERS);
    if (!files.built) {
      return errorStatus(reply, "ui_not_built")
        .headers(STATUS_HEADERS)
        .type("text/html; charset=utf-8")
        .send(
          statusPage(
            ERRORS.ui_not_built.message,
            "<p>Run <code>npm install</code> (or <code>npm run build</code>) in the Notify checkout to build it, then reload this page.</p>",
          ),
        );
    }
    let file = files.get(path);
    // A missing hashed asset is a 404; any other path is a page of the app (client-side routing).
    if (!file && path.startsWith("assets/")) return sendError(reply, "not_found");
    const fallback = !file;
    if (!file || path === "") file = files.get("index.html");
    if (!file) return sendError(reply, "not_found");
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
