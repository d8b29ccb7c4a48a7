import { type ConnectorAgentId, EFFORT_LEVELS } from "@notify/contracts/ui-constants";
import { useState } from "react";
import type { AgentAccount, ConnectInput } from "./agents-api.js";

const stateOf = (account: AgentAccount): string =>
  !account.installed ? "Not installed" : account.connected ? "Connected" : "Not connected";

/** One host agent: its accounts with their state, the model and effort to connect with, Connect and Disconnect. */
export function AgentCard(props: {
  agent: ConnectorAgentId;
  name: string;
  accounts: AgentAccount[];
  selectors: string[];
  onConnect: (input: ConnectInput) => Promise<unknown>;
  onDisconnect: () => Promise<unknown>;
}) {
  const { agent, name, accounts, selectors } = props;
  const connected = accounts.find((account) => account.connected);
  const [model, setModel] = useState("");
  const [effort, setEffort] = useState("");
  const [replace, setReplace] = useState<boolean>();
  const installed = accounts.some((account) => account.installed);
  // Until the person picks something, the selects show what the connection uses.
  const chosen = model || connected?.model || "";
  const chosenEffort = effort || connected?.effort || "";

  return (
    <section className="card" aria-labelledby={`agent-${agent}`}>
      <h3 id={`agent-${agent}`}>{name}</h3>
      <ul className="plain-list">
        {accounts.map((account) => (
          <li key={account.id}>
            <span>
              <strong>{account.label}</strong> <span className="muted">{account.dir}</span>
            </span>{" "}
            <span className="badge">{stateOf(account)}</span>
            {account.connected && account.model && <span className="muted"> → {account.model}</span>}
          </li>
        ))}
      </ul>
      <div className="field">
        <label htmlFor={`model-${agent}`}>Model for {name}</label>
        <select id={`model-${agent}`} value={chosen} onChange={(event) => setModel(event.target.value)}>
          <option value="">Default route (or the first model)</option>
          {selectors.map((selector) => (
            <option key={selector} value={selector}>
              {selector}
            </option>
          ))}
        </select>
      </div>
      {agent === "codex" ? (
        <div className="field">
          <label htmlFor={`effort-${agent}`}>Reasoning effort</label>
          <select id={`effort-${agent}`} value={chosenEffort} onChange={(event) => setEffort(event.target.value)}>
            <option value="">Codex's default</option>
            {EFFORT_LEVELS.map((level) => (
              <option key={level}>{level}</option>
            ))}
          </select>
        </div>
      ) : (
        <div className="field check">
          <input
            id={`replace-${agent}`}
            type="checkbox"
            checked={replace ?? connected?.replace_lineup === true}
            onChange={(event) => setReplace(event.target.checked)}
          />
          <label htmlFor={`replace-${agent}`}>Show only the routed models in the picker</label>
        </div>
      )}
      <div className="actions">
        <button
          type="button"
          disabled={!installed || selectors.length === 0}
          onClick={() =>
            void props.onConnect({
              ...(chosen ? { model: chosen } : {}),
              ...(chosenEffort ? { effort: chosenEffort } : {}),
              ...(agent === "claude-code" && (replace ?? connected?.replace_lineup) ? { replace_lineup: true } : {}),
            })
          }
        >
          {connected ? "Reconnect" : "Connect"} {name}
        </button>{" "}
        {connected && (
          <button type="button" onClick={() => void props.onDisconnect()}>
            Disconnect {name}
          </button>
        )}
      </div>
      {!installed && <p className="muted">Not installed on this computer: nothing is created for it.</p>}
      {installed && selectors.length === 0 && <p className="muted">Add a provider with models first.</p>}
    </section>
  );
}
