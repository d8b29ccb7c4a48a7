import type { AgentIntegrationView } from "@notify/contracts/ui";
import type { FastifyPluginAsync } from "fastify";
import { AGENTS, displayName } from "../../hooks/agents.js";
import { installStatus } from "../../hooks/install/installer.js";
import { mcpStatus } from "../../mcp/install.js";

/** Every agent Notify installs itself into, with its hooks and MCP entry in the user's own files. */
export function agentIntegrations(env: NodeJS.ProcessEnv): AgentIntegrationView[] {
  const where = { env, ...(env.HOME !== undefined ? { home: env.HOME } : {}) };
  const hooks = installStatus({ where }).filter((row) => row.scope === "user");
  const mcp = mcpStatus(where).filter((row) => row.scope === "user");
  return AGENTS.map((agent) => {
    const hook = hooks.find((row) => row.agent === agent);
    const server = mcp.find((row) => row.agent === agent);
    const events = hook?.events ?? null;
    return {
      agent,
      name: displayName(agent),
      installed: hook?.agentInstalled === true,
      hooks: {
        state: events === null ? "unreadable" : events.length > 0 ? "installed" : "not_installed",
        events: events ?? [],
        file: hook?.file ?? "",
      },
      mcp: {
        state: server?.installed === null ? "unreadable" : server?.installed ? "installed" : "not_installed",
        file: server?.file ?? "",
      },
    };
  });
}

/**
 * GET /ui/api/agents/integrations: the web page's agents list, what `notify hooks status` and `notify mcp status`
 * say for the user scope, read from the files at each request (the broker's agent environment: HOME and the agents'
 * own variables).
 */
export const uiAgentIntegrationRoutes: FastifyPluginAsync<{ env: NodeJS.ProcessEnv }> = async (app, { env }) => {
  app.get("/agents/integrations", async () => ({ agents: agentIntegrations(env) }));
};
