import type { OutboundKind } from "@notify/contracts/ui";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

/**
 * A new provider profile. Secret fields are password inputs that are cleared once sent: the broker seals them and
 * never returns them, so the page does not keep them either.
 */
export function ProviderForm({ kinds, onSaved }: { kinds: OutboundKind[]; onSaved: (name: string) => void }) {
  const [kind, setKind] = useState(kinds[0]?.kind ?? "");
  const [name, setName] = useState("");
  const [settings, setSettings] = useState("{}");
  const [error, setError] = useState("");
  const chosen = kinds.find((entry) => entry.kind === kind);
  const secretNames = chosen ? [...chosen.secrets.required, ...chosen.secrets.optional] : [];
  return (
    <details className="add-form">
      <summary>Add a provider</summary>
      <form
        className="stacked-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const secrets: Record<string, string> = {};
          for (const secret of secretNames) {
            const input = form.elements.namedItem(`secret-${secret}`) as HTMLInputElement | null;
            if (input?.value) secrets[secret] = input.value;
          }
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(settings) as Record<string, unknown>;
          } catch {
            setError("Settings must be a JSON object.");
            return;
          }
          try {
            await api.outbound.saveProvider({ kind, name, settings: parsed, secrets });
            for (const secret of secretNames) {
              const input = form.elements.namedItem(`secret-${secret}`) as HTMLInputElement | null;
              if (input) input.value = "";
            }
            setError("");
            setName("");
            onSaved(name);
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Kind</span>
          <select value={kind} onChange={(event) => setKind(event.target.value)}>
            {kinds.map((entry) => (
              <option key={entry.kind}>{entry.kind}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Name</span>
          <input required value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          <span>Settings (JSON)</span>
          <textarea rows={2} value={settings} onChange={(event) => setSettings(event.target.value)} />
        </label>
        {secretNames.map((secret) => (
          <label key={`${kind}-${secret}`}>
            <span>
              {secret}
              {chosen?.secrets.required.includes(secret) ? "" : " (optional)"}
            </span>
            <input name={`secret-${secret}`} type="password" autoComplete="off" />
          </label>
        ))}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Add provider</button>
      </form>
    </details>
  );
}
