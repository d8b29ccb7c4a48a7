import { SESSION_SIGNALS, type SessionDto, type SessionSignal } from "@notify/contracts/sessions";
import type { FastifyPluginAsync } from "fastify";
import type { SessionObservation, SessionRegistry } from "../../sessions/sessions.js";
import { FieldReader } from "../../validation/fields.js";

export interface SessionRouteOptions {
  sessions: SessionRegistry;
}

/** POST /v1/sessions: what one hook event says about its session (docs/api.md, "Sessions"). */
export function parseObservation(body: unknown): SessionObservation {
  const fields = new FieldReader(body);
  const agent = fields.string("agent", { max: 100, trim: true, required: true });
  const sessionId = fields.string("session_id", { max: 100, required: true });
  const signal = fields.oneOf("signal", SESSION_SIGNALS, true);
  const project = fields.string("project", { max: 200, trim: true });
  const cwd = fields.string("cwd", { max: 1024 });
  const lastMessage = fields.string("last_message", { max: 500 });
  fields.finish();
  return {
    agent: agent as string,
    sessionId: sessionId as string,
    signal: signal as SessionSignal,
    ...(project !== undefined ? { project } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(lastMessage !== undefined ? { lastMessage } : {}),
  };
}

/**
 * /v1/sessions (docs/api.md, "Sessions"): `POST` records what a command hook's event says about its session (204),
 * `GET` lists the sessions (`notify sessions`). The http hook inside the broker records directly.
 */
export const sessionRoutes: FastifyPluginAsync<SessionRouteOptions> = async (app, { sessions }) => {
  app.post("/sessions", async (request, reply) => {
    const observation = parseObservation(request.body);
    sessions.observe(observation);
    return reply.code(204).send();
  });
  app.get("/sessions", async (): Promise<{ sessions: SessionDto[] }> => ({ sessions: sessions.list() }));
};

/** GET /ui/api/sessions: the same list, for the web page's Sessions line and view. */
export const uiAgentSessionRoutes: FastifyPluginAsync<{ sessions: SessionRegistry }> = async (app, { sessions }) => {
  app.get("/sessions", async (): Promise<{ sessions: SessionDto[] }> => ({ sessions: sessions.list() }));
};
