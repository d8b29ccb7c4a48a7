import { useState } from "react";
import { shortTime } from "../format.js";
import { actionRunner, useLoad } from "../use-load.js";
import { AgentIntegrations } from "./agent-integrations.js";
import { type AgentAccount, agentsApi } from "./agents-api.js";
import { AgentCard } from "./agents-card.js";

const AGENTS = [
  { id: "codex", name: "Codex CLI" },
  { id: "claude-code", name: "Claude Code" },
] as const;

/**
 * The Agents page (docs/router.md, "Web pages"; docs/connectors.md, "Agent connectors"): each host agent with its
 * accounts, a model to point them at, Connect and Disconnect, and the copies of their files Notify took before every
 * change.
 * `nested`: shown inside the Router area (its heading is then an h2 under the area's h1).
 */
export function AgentsPage({ nested = false }: { nested?: boolean }) {
  const listing = useLoad(agentsApi.list);
  const backups = useLoad(agentsApi.backups);
  const [message, setMessage] = useState("");
  const act = actionRunner(
    setMessage,
    () => {
      listing.reload();
      backups.reload();
    },
    "always",
  );
  const Heading = nested ? "h2" : "h1";
  const accounts = listing.data?.accounts ?? [];

  return (
    <section aria-labelledby="agents-title">
      <div className="page-head">
        <Heading id="agents-title">Agents</Heading>
        <p className="muted" role="status">
          {message}
        </p>
      </div>
      <p className="muted">
        Connecting points every installed account of an agent at the router; a copy of each file is kept first, and
        Disconnect puts back what was there.
      </p>
      <AgentIntegrations />
      {listing.error && <p className="error">{listing.error}</p>}
      {listing.data &&
        AGENTS.map((agent) => (
          <AgentCard
            key={agent.id}
            agent={agent.id}
            name={agent.name}
            accounts={accounts.filter((account: AgentAccount) => account.agent === agent.id)}
            selectors={listing.data?.selectors ?? []}
            onConnect={(input) => act(() => agentsApi.connect(agent.id, input), `${agent.name} connected`)}
            onDisconnect={() => act(() => agentsApi.disconnect(agent.id), `${agent.name} disconnected`)}
          />
        ))}
      <div className="card">
        <h3>Backups</h3>
        {backups.data?.backups.length === 0 && <p className="muted">No copies yet.</p>}
        <ul className="plain-list">
          {backups.data?.backups.map((backup) => (
            <li key={backup.id}>
              <span>
                {shortTime(backup.created_at)} {backup.file} <span className="badge">{backup.reason}</span>
              </span>{" "}
              <button type="button" onClick={() => void act(() => agentsApi.restore(backup.id), "Restored")}>
                Restore{" "}
                <span className="visually-hidden">
                  {backup.file} from {backup.created_at}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

/** The Agents page as a Router sub-page (router-pages.ts). */
export function AgentsSubPage() {
  return <AgentsPage nested />;
}
