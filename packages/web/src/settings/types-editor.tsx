import type { TypeDefinition } from "@notify/contracts/ui";
import { PRIORITIES, type Priority } from "@notify/contracts/ui-constants";
import { useState } from "react";
import { api } from "../api/client.js";
import { HeaderWithActions } from "../table-header.js";
import { messageOf, useLoad } from "../use-load.js";

/** Custom notification types (PUT /ui/api/types replaces the whole list). */
export function TypesEditor({ onSaved }: { onSaved?: () => void }) {
  const { data: types, error, reload } = useLoad(api.types);
  const [message, setMessage] = useState("");
  const [draft, setDraft] = useState({ id: "", label: "", defaultPriority: "" });

  const save = async (next: TypeDefinition[]) => {
    try {
      await api.saveTypes(next);
      setMessage("Saved");
      reload();
      onSaved?.();
      return true;
    } catch (failure) {
      setMessage(`Not saved: ${messageOf(failure)}`);
      return false;
    }
  };

  return (
    <div className="card">
      <h2>Notification types</h2>
      {error && <p className="error">{error}</p>}
      <p className="muted" role="status">
        {message}
      </p>
      {types && types.length === 0 && <p className="muted">No custom types. The built-in ones always work.</p>}
      {types && types.length > 0 && (
        <table>
          <HeaderWithActions columns={["ID", "Label", "Default priority", "Enabled"]} />
          <tbody>
            {types.map((type) => (
              <tr key={type.id}>
                <td>
                  <code>{type.id}</code>
                </td>
                <td>{type.label}</td>
                <td>{type.defaultPriority ?? "normal"}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${type.label} enabled`}
                    checked={type.enabled}
                    onChange={(event) =>
                      void save(types.map((t) => (t.id === type.id ? { ...t, enabled: event.target.checked } : t)))
                    }
                  />
                </td>
                <td>
                  <button type="button" onClick={() => void save(types.filter((t) => t.id !== type.id))}>
                    Delete <span className="visually-hidden">{type.label}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const added: TypeDefinition = {
            id: draft.id.trim().replaceAll("-", "_"),
            label: draft.label.trim() || draft.id.trim(),
            enabled: true,
            ...(draft.defaultPriority ? { defaultPriority: draft.defaultPriority as Priority } : {}),
          };
          if (await save([...(types ?? []), added])) setDraft({ id: "", label: "", defaultPriority: "" });
        }}
      >
        <label>
          <span>Type ID</span>
          <input
            required
            pattern="[a-z][a-z0-9_\-]{0,63}"
            value={draft.id}
            onChange={(e) => setDraft({ ...draft, id: e.target.value })}
          />
        </label>
        <label>
          <span>Label</span>
          <input value={draft.label} onChange={(e) => setDraft({ ...draft, label: e.target.value })} />
        </label>
        <label>
          <span>Default priority</span>
          <select
            value={draft.defaultPriority}
            onChange={(e) => setDraft({ ...draft, defaultPriority: e.target.value })}
          >
            <option value="">normal</option>
            {PRIORITIES.map((priority) => (
              <option key={priority}>{priority}</option>
            ))}
          </select>
        </label>
        <button type="submit">Add type</button>
      </form>
    </div>
  );
}
