import type { AgentIntegrationView, IntegrationState } from "@notify/contracts/ui";
import { call } from "../api/client.js";
import { useLoad } from "../use-load.js";

/** GET /ui/api/agents/integrations (packages/broker/src/http/routes/ui-agent-integrations.ts). */
export type AgentIntegration = AgentIntegrationView;

const integrations = () => call<{ agents: AgentIntegration[] }>("GET", "/agents/integrations");

const STATE_WORDS: Record<IntegrationState, string> = {
  installed: "Installed",
  not_installed: "Not installed",
  unreadable: "Cannot read the file",
};

/**
 * The agents list (issue 38; docs/hooks.md): every agent Notify installs itself into, whether it is on
 * this computer, and Notify's hooks and MCP server in its user files, with the command that installs what is missing.
 */
export function AgentIntegrations() {
  const listing = useLoad(integrations);
  return (
    <section className="card" aria-labelledby="agent-integrations">
      <h3 id="agent-integrations">Hooks and MCP</h3>
      <p className="muted">
        Questions and finished turns reach Notify through each agent's hooks; its MCP server gives the agent ask_person.
        What is installed for you (the user scope of <code>notify hooks status</code>).
      </p>
      {listing.error && <p className="error">{listing.error}</p>}
      {listing.data && (
        <div className="table-scroll">
          <table className="stack-table">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">On this computer</th>
                <th scope="col">Hooks</th>
                <th scope="col">MCP</th>
              </tr>
            </thead>
            <tbody>
              {listing.data.agents.map((agent) => (
                <tr key={agent.agent} aria-label={agent.name}>
                  <th scope="row" data-label="Agent">
                    {agent.name}
                  </th>
                  <td data-label="On this computer">{agent.installed ? "Installed" : "Not installed"}</td>
                  <td data-label="Hooks">
                    <span className="badge">{STATE_WORDS[agent.hooks.state]}</span>{" "}
                    {agent.hooks.state === "installed" ? (
                      <span className="muted">{agent.hooks.events.join(", ")}</span>
                    ) : (
                      agent.installed && <code>notify hooks install {agent.agent}</code>
                    )}
                  </td>
                  <td data-label="MCP">
                    <span className="badge">{STATE_WORDS[agent.mcp.state]}</span>{" "}
                    {agent.mcp.state !== "installed" && agent.installed && (
                      <code>notify mcp install {agent.agent}</code>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
