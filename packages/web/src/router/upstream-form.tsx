import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

const WIRES = ["responses_wire", "chat_wire", "messages_wire"];

/** Adds an upstream; the key field is a password input cleared once sent (keys are write-only). */
export function UpstreamForm({ onSaved }: { onSaved: () => void }) {
  const [draft, setDraft] = useState({ slug: "", label: "", base_url: "", wire: "chat_wire", models: "" });
  const [error, setError] = useState("");
  return (
    <details className="add-form">
      <summary>Add an upstream</summary>
      <form
        className="stacked-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const keyInput = event.currentTarget.elements.namedItem("upstream-key") as HTMLInputElement | null;
          try {
            await api.router.saveUpstream({
              slug: draft.slug,
              label: draft.label || draft.slug,
              base_url: draft.base_url,
              wire: draft.wire,
              models: draft.models.split(/[\s,]+/).filter(Boolean),
              ...(keyInput?.value ? { key: keyInput.value } : {}),
            });
            if (keyInput) keyInput.value = "";
            setError("");
            setDraft({ slug: "", label: "", base_url: "", wire: "chat_wire", models: "" });
            onSaved();
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Slug</span>
          <input required value={draft.slug} onChange={(e) => setDraft({ ...draft, slug: e.target.value })} />
        </label>
        <label>
          <span>Label</span>
          <input value={draft.label} onChange={(e) => setDraft({ ...draft, label: e.target.value })} />
        </label>
        <label>
          <span>Base URL</span>
          <input
            required
            type="url"
            value={draft.base_url}
            onChange={(e) => setDraft({ ...draft, base_url: e.target.value })}
          />
        </label>
        <label>
          <span>Wire</span>
          <select value={draft.wire} onChange={(e) => setDraft({ ...draft, wire: e.target.value })}>
            {WIRES.map((wire) => (
              <option key={wire}>{wire}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Models (comma separated)</span>
          <input value={draft.models} onChange={(e) => setDraft({ ...draft, models: e.target.value })} />
        </label>
        <label>
          <span>API key</span>
          <input name="upstream-key" type="password" autoComplete="off" />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Add upstream</button>
      </form>
    </details>
  );
}
