import { bearerCredential, secretMatches } from "@notify/contracts/guards";
import { jsonShapeProblem } from "@notify/contracts/json-shape";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { Authenticator } from "../domain/auth.js";
import { ChangeHub, changeKey } from "../domain/change-hub.js";
import { type Clock, systemClock } from "../domain/clock.js";
import type { DomainDeps, PushWaker } from "../domain/deps.js";
import { RelayError } from "../domain/errors.js";
import { Feed } from "../domain/feed.js";
import { type RelayLogger, silentLogger } from "../log.js";
import type { RelayMetrics } from "../metrics.js";
import type { RelayStore } from "../store/types.js";
import { VERSION } from "../version.js";
import { AccessLog } from "./access-log.js";
import { type Guards, takeLimit } from "./auth.js";
import { errorHandler, sendError } from "./errors.js";
import { clientKey, DEFAULT_LIMITS, Limits, type LimitTable } from "./rate-limit.js";
import { answerRoutes } from "./routes/answers.js";
import { deviceRoutes } from "./routes/devices.js";
import { envelopeRoutes } from "./routes/envelopes.js";
import { installationRoutes } from "./routes/installation.js";
import { pairingRoutes } from "./routes/pairing.js";
import { defaultAppDir, phoneAppRoutes } from "./routes/phone-app.js";
import { receiptRoutes } from "./routes/receipts.js";

/** How long GET /healthz waits for the database before calling it unreachable. */
const HEALTH_TIMEOUT = 3000;

/** The relay body limit, on every route (docs/relay.md, "Routes"). */
export const BODY_LIMIT = 64 * 1024;

export interface AppOptions {
  store: RelayStore;
  enrollmentToken: string;
  /** RELAY_PUBLIC_URL: pairing links point here (a function when it is known only after listening). */
  publicUrl: string | (() => string);
  clock?: Clock;
  push?: PushWaker;
  /** The VAPID public key phones subscribe with (base64url). */
  vapidPublicKey?: string;
  logger?: RelayLogger;
  /** `false` switches rate limiting off (benchmarks only). */
  limits?: LimitTable | false;
  /** fastify's trustProxy: the client address then comes from X-Forwarded-For (behind a TLS proxy). */
  trustProxy?: boolean | string;
  /** Web Push endpoints on loopback are accepted (the operator's test switch, RELAY_ALLOW_LOOPBACK_PUSH). */
  allowLoopbackPush?: boolean;
  /** The phone app's built files, served under /app (default: packages/phone/dist; `false` turns /app off). */
  appDir?: string | false;
  /** Prometheus metrics: recorded per request, served at GET /metrics behind the enrollment token. */
  metrics?: RelayMetrics;
}

export interface RelayApp {
  app: FastifyInstance;
  hub: ChangeHub;
}

/** Security headers on every response: the relay serves JSON that nothing should sniff, frame or cache. */
const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
};

/** Builds the relay's HTTP app without listening, so tests use `app.inject()`. */
export function buildApp(options: AppOptions): RelayApp {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const hub = new ChangeHub();
  const publicUrl = options.publicUrl;
  const unsubscribe = options.store.onChange((change) => {
    if (change.kind === "missed") hub.recheckAll();
    else if (change.kind === "revoked") hub.revoke(changeKey(change));
    else hub.notify(changeKey(change));
  });
  const deps: DomainDeps = {
    store: options.store,
    clock,
    feed: new Feed(options.store, clock, hub),
    knownInstallations: new Map(),
    publicUrl: () => (typeof publicUrl === "function" ? publicUrl() : publicUrl).replace(/\/+$/, ""),
    ...(options.push ? { push: options.push } : {}),
    pushEndpoints: { allowLoopback: options.allowLoopbackPush === true },
  };
  const limits = new Limits(options.limits === undefined ? DEFAULT_LIMITS : options.limits);
  const guards: Guards = {
    authenticator: new Authenticator(deps),
    limits,
    enrollmentToken: options.enrollmentToken,
  };

  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: options.trustProxy ?? false,
    // A held long-poll lasts up to 30 s; anything slower than this is a stuck client.
    requestTimeout: 60_000,
    logger: false,
    return503OnClosing: true,
    // A URL the router cannot decode (bad percent-encoding) gets the relay's own error shape.
    frameworkErrors: (_error, request, reply) =>
      sendError(request, reply as FastifyReply, new RelayError("invalid_request", "the request URL is malformed")),
  });
  // Node answers `Expect: 100-continue` with a 100 by itself, inviting a body the relay is going to refuse. An
  // oversize Content-Length gets its 413 (from the body parser, after auth) without the 100; any other request gets
  // the 100 at once, as before.
  app.server.on("checkContinue", (request, response) => {
    if (!(Number(request.headers["content-length"]) > BODY_LIMIT)) response.writeContinue();
    app.server.emit("request", request, response);
  });
  app.decorateRequest("installation", null);
  app.decorateRequest("device", null);

  // One JSON parser for every route: media type and size are checked by fastify before this runs (415, 413).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === "") return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      done(new RelayError("invalid_request", "the body is not valid JSON"), undefined);
      return;
    }
    // Refused once, before any route: nesting that recursive code would overflow on, numbers JSON cannot write
    // back, lone surrogates, and NUL (which PostgreSQL text cannot hold: the same answer on both stores).
    const problem = jsonShapeProblem(parsed, { noNul: true });
    done(problem ? new RelayError("invalid_request", problem) : null, problem ? undefined : parsed);
  });

  // The hooks every request runs take a callback rather than returning a promise: each async hook cost every
  // request a promise and a turn of the microtask queue (issue 33, the relay's CPU per answer; bench/README.md).
  app.addHook("onRequest", (request, _reply, done) => {
    const wait = limits.take("perIp", clientKey(request.ip));
    done(wait > 0 ? new RelayError("rate_limited", "too many requests", wait) : undefined);
  });
  // Path and query values reach SQL as parameters: a NUL or a lone surrogate there is a malformed request, not a
  // store error (PostgreSQL refuses NUL in text), on either store.
  app.addHook("preValidation", (request, _reply, done) => {
    for (const values of [request.params, request.query]) {
      if (values !== null && typeof values === "object" && jsonShapeProblem(values, { noNul: true })) {
        done(new RelayError("invalid_request", "the request URL is malformed"));
        return;
      }
    }
    done();
  });
  const https = () => (typeof publicUrl === "function" ? publicUrl() : publicUrl).startsWith("https:");
  app.addHook("onSend", (_request, reply, payload, done) => {
    reply.headers(SECURITY_HEADERS);
    if (https()) reply.header("strict-transport-security", "max-age=31536000");
    done(null, payload);
  });
  const accessLog = new AccessLog(logger);
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "(no route)";
    accessLog.record(request.method, route, reply.statusCode, reply.elapsedTime);
    options.metrics?.request(request.method, route, reply.statusCode, reply.elapsedTime);
    done();
  });
  // Held polls answer with their page at once, so closing does not wait up to 30 s for them.
  app.addHook("preClose", async () => hub.close());
  app.addHook("onClose", async () => {
    unsubscribe();
    accessLog.close();
  });
  app.setErrorHandler(errorHandler(logger));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new RelayError("not_found", "no such route")));

  // held_polls: long-polls this process holds (operators watch it; the benchmark waits on it). 503 while the
  // database does not answer, so a load balancer or monitor sees what every other route would say.
  app.get("/healthz", async (_request, reply) => {
    const reachable = await Promise.race([
      options.store.reachable(),
      new Promise<false>((resolve) => setTimeout(resolve, HEALTH_TIMEOUT, false).unref()),
    ]);
    return reply.code(reachable ? 200 : 503).send({
      status: reachable ? "ok" : "unavailable",
      database: reachable ? "ok" : "unreachable",
      version: VERSION,
      backend: options.store.backend,
      held_polls: hub.size,
    });
  });
  const metrics = options.metrics;
  if (metrics) {
    metrics.watch({ heldPolls: () => hub.sizeByKind() });
    // The operator's credential: metrics name no secrets, but tell who uses the relay how much.
    // A scraper with the right token is not rate limited; wrong guesses count against the enrollment limit.
    const metricsAuth = async (request: { headers: { authorization?: string | undefined }; ip: string }) => {
      if (secretMatches(bearerCredential(request.headers.authorization), options.enrollmentToken, true)) return;
      takeLimit(guards, "enroll", clientKey(request.ip));
      throw new RelayError("unauthorized", "the enrollment token is missing or wrong");
    };
    app.get("/metrics", { onRequest: metricsAuth }, async (_request, reply) =>
      reply.type(metrics.contentType).send(await metrics.text()),
    );
  }
  app.get("/v1/push/vapid-public-key", async (request, reply) => {
    if (!options.vapidPublicKey) return sendError(request, reply, new RelayError("not_found", "Web Push is off"));
    return { public_key: options.vapidPublicKey };
  });
  pairingRoutes(app, deps, guards);
  deviceRoutes(app, deps, guards);
  installationRoutes(app, deps, guards);
  envelopeRoutes(app, deps, guards);
  answerRoutes(app, deps, guards);
  receiptRoutes(app, deps, guards);
  phoneAppRoutes(app, options.appDir === false ? undefined : (options.appDir ?? defaultAppDir()));
  return { app, hub };
}
