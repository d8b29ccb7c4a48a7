import type { LoginLink, SessionInfo } from "@notify/contracts/ui";
import type { FastifyPluginAsync } from "fastify";
import { VERSION } from "../../version.js";
import { sendError } from "../errors.js";
import { UiSessions } from "../ui/ui-sessions.js";

export interface UiSessionOptions {
  sessions: UiSessions;
}

/**
 * /ui/api/session: what the page asks first (a 401 here means "sign in"), sign-out, and the one-time login link
 * that `notify open` asks for with the bearer token.
 */
export const uiSessionRoutes: FastifyPluginAsync<UiSessionOptions> = async (app, { sessions }) => {
  app.get(
    "/session",
    async (request): Promise<SessionInfo> => ({
      version: VERSION,
      via: sessions.admit(request.headers) ?? "session",
    }),
  );
  app.delete("/session", async (_request, reply) =>
    reply.header("set-cookie", UiSessions.clearedCookie()).code(204).send(),
  );
  app.post("/session/link", async (request, reply): Promise<LoginLink | undefined> => {
    // A page's session cannot mint more sessions; only the token holder (the CLI) can.
    if (sessions.admit(request.headers) !== "bearer") {
      await sendError(reply, "login_link_needs_token");
      return undefined;
    }
    const { token, expiresAt } = sessions.createLinkToken();
    return {
      url: `http://${request.headers.host}/ui/login?t=${token}`,
      expires_at: new Date(expiresAt).toISOString(),
    };
  });
};
