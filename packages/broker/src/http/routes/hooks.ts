import type { FastifyPluginAsync } from "fastify";
import { createClient } from "../../client/client.js";
import { FollowUpCount } from "../../hooks/follow-up-count.js";
import { type HookRuns, silentConnections } from "../../hooks/hook-runs.js";
import type { HookTokenFile } from "../../hooks/hook-token.js";
import { OpenMarks } from "../../hooks/open-marks.js";
import { runHook } from "../../hooks/run-hook.js";
import type { SessionRegistry } from "../../sessions/sessions.js";

export interface HookRouteOptions {
  dataDir: string;
  /** The main bearer token: the hook's own requests to this broker go out with it, never back to the agent. */
  authToken: string;
  hookToken: HookTokenFile;
  /** The runs in flight, stopped by the broker's close before the server's (broker.ts). */
  runs: HookRuns;
  /** Where each event's session is recorded (issue 37, item 1). */
  sessions?: SessionRegistry;
}

/** The path Claude Code's `"type": "http"` hooks post to (docs/hooks.md, "HTTP hooks"). */
export const CLAUDE_CODE_HOOK_PATH = "/v1/hooks/claude-code";

/**
 * POST /v1/hooks/claude-code: one Claude Code hook event, the same JSON a command hook reads on stdin. It runs the
 * hook's own logic (hooks/run-hook.ts) inside the broker, so every behaviour of the command hook stays: the
 * decision, AskUserQuestion's answers, the settles, the bounded waits. 200 with the decision's JSON, or an empty
 * body (Claude Code then decides itself). Claude Code closing the request (the person answered in its own prompt)
 * withdraws the question, as SIGTERM does to a command hook. Authenticated by the hook token only (v1.ts).
 */
export const hookRoutes: FastifyPluginAsync<HookRouteOptions> = async (app, options) => {
  const marks = new OpenMarks(options.dataDir);
  const followUps = new FollowUpCount(options.dataDir);
  const sessions = options.sessions;
  const dropSilent = silentConnections(app.server);
  app.addHook("preClose", (done) => {
    dropSilent();
    done();
  });
  app.post("/hooks/claude-code", async (request, reply) => {
    const port = request.socket.localPort ?? 0;
    const baseUrl = `http://127.0.0.1:${port}`;
    const stop = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) stop.abort();
    };
    reply.raw.once("close", onClose);
    const body = request.body;
    const output = await options.runs.run(stop.signal, (signal) =>
      runHook({
        agent: "claude-code",
        event: "",
        payload: body !== null && typeof body === "object" ? JSON.stringify(body) : "",
        broker: { baseUrl, token: options.authToken },
        client: createClient({ port: String(port), token: options.authToken, dataDir: options.dataDir }, {}),
        signal,
        marks,
        followUps,
        ...(sessions !== undefined ? { observe: (observation) => sessions.observe(observation) } : {}),
        log: (line) => request.log.debug({ hook: "claude-code" }, line),
      }),
    );
    if (output === undefined) return reply.code(200).header("content-type", "application/json").send("{}");
    return reply.code(200).header("content-type", "application/json").send(output);
  });
};
