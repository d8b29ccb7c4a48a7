import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

/** A new alias (one target) or combo (1-8 targets, tried in order), targets as `upstream-slug/model`. */
export function RouterRouteForm({ onSaved }: { onSaved: () => void }) {
  const [draft, setDraft] = useState({ name: "", kind: "alias", targets: "" });
  const [error, setError] = useState("");
  return (
    <details className="add-form">
      <summary>Add an alias or combo</summary>
      <form
        className="stacked-form"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            await api.router.saveRoute({
              name: draft.name,
              kind: draft.kind,
              targets: draft.targets.split(/[\s,]+/).filter(Boolean),
            });
            setError("");
            setDraft({ name: "", kind: "alias", targets: "" });
            onSaved();
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Name</span>
          <input required value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
        </label>
        <label>
          <span>Kind</span>
          <select value={draft.kind} onChange={(e) => setDraft({ ...draft, kind: e.target.value })}>
            <option value="alias">alias (one target)</option>
            <option value="combo">combo (targets in order)</option>
          </select>
        </label>
        <label>
          <span>Targets (upstream/model, comma separated)</span>
          <input required value={draft.targets} onChange={(e) => setDraft({ ...draft, targets: e.target.value })} />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Add route</button>
      </form>
    </details>
  );
}
