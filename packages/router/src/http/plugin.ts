import { Transform } from "node:stream";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Wire } from "../ir.js";
import type { RouterServices } from "../router.js";
import {
  admission,
  NOT_JSON,
  parseBody,
  type Refusal,
  type RouterRuntimeSettings,
  TOO_LARGE,
} from "./model-endpoint.js";
import { modelList } from "./models.js";
import { wireError, wireOfPath } from "./wire-errors.js";

export type { RouterRuntimeSettings };

export interface RouterPluginOptions {
  /** The router, built before it is mounted (`createRouter`), with the same prefix as this plugin's. */
  router: RouterServices;
}

/**
 * The provider router as a fastify plugin, mounted by the broker under /router/v1. Knows nothing of
 * notifications. Order of checks: off (404 router_disabled, no provider contacted), then a browser Origin (403),
 * the loopback Host (403), the router key (401).
 */
export const routerPlugin: FastifyPluginAsync<RouterPluginOptions> = async (app, options) => {
  const { router } = options;
  if (router.prefix !== app.prefix) throw new Error(`router built for ${router.prefix}, mounted at ${app.prefix}`);
  app.addHook("onClose", () => router.close());
  const fail = (reply: FastifyReply, wire: Wire | "models", refusal: Refusal) => {
    if (refusal.close) reply.header("connection", "close");
    return reply
      .code(refusal.status)
      .header("content-type", "application/json")
      .send(wireError(wire, refusal.code, refusal.message));
  };

  // Bodies are JSON up to RouterMaxRequestBodyBytes (the broker's 64 KiB limit does not apply here).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: 2 ** 31 - 1 }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (Buffer.byteLength(text) > router.settings().maxRequestBodyBytes) {
      done(Object.assign(new Error("payload too large"), { statusCode: 413 }), undefined);
      return;
    }
    try {
      done(null, parseBody(text));
    } catch (refusal) {
      done(Object.assign(new Error("invalid JSON"), { statusCode: 400, refusal: refusal as Refusal }), undefined);
    }
  });

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    // The four model endpoints take the same path as on the lane: the raw request and response, hijacked before
    // the framework reads the body.
    if (request.method === "POST" && router.answer(request.routeOptions.url ?? "", request.raw, reply.raw)) {
      reply.hijack();
      return reply;
    }
    const refusal = admission(request.headers, router.settings());
    if (refusal) return fail(reply, wireOfPath(request.url.split("?")[0] ?? ""), refusal);
    return undefined;
  });

  // A body without Content-Length (chunked) is cut as soon as it passes the limit, not read whole first.
  app.addHook("preParsing", async (request, _reply, payload) => {
    // With a Content-Length the onRequest check has already enforced the limit; only chunked bodies need counting.
    if (request.method !== "POST" || request.headers["content-length"] !== undefined) return payload;
    const limit = router.settings().maxRequestBodyBytes;
    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > limit) callback(Object.assign(new Error("payload too large"), { statusCode: 413 }));
        else callback(null, chunk);
      },
    });
    payload.on("error", (error) => counted.destroy(error));
    return payload.pipe(counted);
  });

  app.setErrorHandler((error: Error & { statusCode?: number; refusal?: Refusal }, request, reply) => {
    const wire = wireOfPath(request.url.split("?")[0] ?? "");
    if (error.statusCode === 413) return fail(reply, wire, TOO_LARGE);
    if (error.statusCode === 400) return fail(reply, wire, error.refusal ?? NOT_JSON);
    router.log.warn(`router: ${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name}`);
    return fail(reply, wire, { status: 500, code: "upstream_error", message: "internal router error" });
  });
  app.setNotFoundHandler((request, reply) =>
    fail(reply, wireOfPath(request.url), { status: 404, code: "not_supported", message: "no such router endpoint" }),
  );

  // Registered so the framework routes them (trailing slash included); answered in the onRequest hook above.
  const hijacked = async (): Promise<void> => {};
  app.post("/responses", hijacked);
  app.post("/chat/completions", hijacked);
  app.post("/messages", hijacked);
  app.post("/messages/count_tokens", hijacked);
  app.get("/models", async () => modelList(router.config.snapshot()));
};
