import type { FastifyPluginAsync } from "fastify";
import { isConnectorAgent } from "../../connectors/accounts.js";
import type { ConnectOptions } from "../../connectors/connection-state.js";
import { ConnectorError, type ConnectorService } from "../../connectors/connector-service.js";
import { DomainError, invalid } from "../../domain/errors.js";

export interface UiRouterAgentsOptions {
  connectors: ConnectorService;
}

type AgentParams = { Params: { agent: string } };
type BackupParams = { Params: { id: string } };

/** `connect` body fields (snake_case on the wire) and their option names. */
const SELECTOR_FIELDS = {
  model: "model",
  effort: "effort",
  subagent_model: "subagentModel",
  subagent_effort: "subagentEffort",
  review_model: "reviewModel",
  small_model: "smallModel",
} as const;

function connectOptions(value: unknown): Partial<ConnectOptions> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid("request body must be a JSON object");
  }
  const options: Partial<ConnectOptions> = {};
  for (const [field, input] of Object.entries(value as Record<string, unknown>)) {
    if (field === "replace_lineup") {
      if (typeof input !== "boolean") throw invalid("replace_lineup must be true or false");
      options.replaceLineup = input;
      continue;
    }
    const name = SELECTOR_FIELDS[field as keyof typeof SELECTOR_FIELDS];
    if (name === undefined) throw invalid(`unknown field: ${field}`);
    if (input === null) continue;
    if (typeof input !== "string" || input.length < 1 || input.length > 300) {
      throw invalid(`${field} must be a string of 1-300 characters`);
    }
    options[name] = input;
  }
  return options;
}

/** Connector refusals become the catalogue's `connector_refused` with their status. */
function answer<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ConnectorError) {
      throw new DomainError("connector_refused", error.message, { status: error.status });
    }
    throw error;
  }
}

/**
 * /ui/api/router/agents (docs/connectors.md): the accounts of Codex and Claude Code with their connection state,
 * connect and disconnect per agent, and the copies taken before every change with their restore.
 */
export const uiRouterAgentRoutes: FastifyPluginAsync<UiRouterAgentsOptions> = async (app, { connectors }) => {
  const listing = () => ({ accounts: connectors.list(), selectors: connectors.selectors() });
  app.get("/router/agents", async () => listing());

  app.post<AgentParams>("/router/agents/:agent/connect", async (request) => {
    const { agent } = request.params;
    if (!isConnectorAgent(agent)) throw new DomainError("agent_not_found");
    const options = connectOptions(request.body);
    // `notices`: a file Notify made 0600 because it was readable by others and now holds the router key.
    return answer(() => {
      const notices: string[] = [];
      const accounts = connectors.connect(agent, options, notices);
      return { accounts, notices };
    });
  });

  app.post<AgentParams>("/router/agents/:agent/disconnect", async (request) => {
    const { agent } = request.params;
    if (!isConnectorAgent(agent)) throw new DomainError("agent_not_found");
    return answer(() => ({ accounts: connectors.disconnect(agent) }));
  });

  app.get("/router/agents/backups", async () => ({ backups: connectors.listBackups() }));
  app.post<BackupParams>("/router/agents/backups/:id/restore", async (request) =>
    answer(() => connectors.restoreBackup(request.params.id)),
  );
};
