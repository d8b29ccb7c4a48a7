import type { OutboundProvider, Priority } from "@notify/contracts/ui";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

const PRIORITIES: Priority[] = ["low", "normal", "high", "critical"];
const EMPTY = {
  name: "",
  provider: "",
  minimumPriority: "low",
  typeId: "",
  project: "",
  agent: "",
  includeMessage: true,
};

/** A new outbound route with its gates (spec 1, Outbound delivery rule 2); new routes start disabled. */
export function RouteForm({ providers, onSaved }: { providers: OutboundProvider[]; onSaved: (name: string) => void }) {
  const [draft, setDraft] = useState(EMPTY);
  const [error, setError] = useState("");
  const set = (change: Partial<typeof EMPTY>) => setDraft({ ...draft, ...change });
  return (
    <details className="add-form">
      <summary>Add a route</summary>
      <form
        className="stacked-form"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            await api.outbound.saveRoute({
              name: draft.name,
              provider: draft.provider || providers[0]?.name || "",
              minimumPriority: draft.minimumPriority as Priority,
              includeMessage: draft.includeMessage,
              ...(draft.typeId ? { typeId: draft.typeId } : {}),
              ...(draft.project ? { project: draft.project } : {}),
              ...(draft.agent ? { agent: draft.agent } : {}),
            });
            setError("");
            setDraft(EMPTY);
            onSaved(draft.name);
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Route name</span>
          <input required value={draft.name} onChange={(e) => set({ name: e.target.value })} />
        </label>
        <label>
          <span>Provider</span>
          <select value={draft.provider} onChange={(e) => set({ provider: e.target.value })}>
            {providers.map((provider) => (
              <option key={provider.id} value={provider.name}>
                {provider.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Minimum priority</span>
          <select value={draft.minimumPriority} onChange={(e) => set({ minimumPriority: e.target.value })}>
            {PRIORITIES.map((priority) => (
              <option key={priority}>{priority}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Only type (optional)</span>
          <input value={draft.typeId} onChange={(e) => set({ typeId: e.target.value })} />
        </label>
        <label>
          <span>Only project (optional)</span>
          <input value={draft.project} onChange={(e) => set({ project: e.target.value })} />
        </label>
        <label>
          <span>Only agent (optional)</span>
          <input value={draft.agent} onChange={(e) => set({ agent: e.target.value })} />
        </label>
        <label className="check-row">
          <input
            type="checkbox"
            checked={draft.includeMessage}
            onChange={(e) => set({ includeMessage: e.target.checked })}
          />
          <span>Include the message (off: only the title leaves the machine)</span>
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={providers.length === 0}>
          Add route
        </button>
      </form>
    </details>
  );
}
