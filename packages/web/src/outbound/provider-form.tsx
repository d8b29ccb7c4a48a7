import type { OutboundKind, OutboundProvider } from "@notify/contracts/ui";
import { answerSurfaceOfKind } from "@notify/contracts/ui-surfaces";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

/**
 * The settings example and hint of a kind that takes answers from a chat app, from the answer surfaces' words
 * (@notify/contracts/ui-surfaces; docs/outbound.md): shown under the settings field, and filled in for a new
 * provider of that kind while the field is still empty.
 */
const settingsExample = (kind: string) => answerSurfaceOfKind(kind)?.settings;

/**
 * A new provider profile, or an edit of one. Secret fields are password inputs that are cleared once sent: the
 * broker seals them and never returns them, so the page does not keep them either. On an edit an empty secret
 * field keeps the stored secret.
 */
export function ProviderForm({
  kinds,
  provider,
  onSaved,
}: {
  kinds: OutboundKind[];
  provider?: OutboundProvider;
  onSaved: (name: string) => void;
}) {
  const [kind, setKind] = useState(provider?.kind ?? kinds[0]?.kind ?? "");
  const [name, setName] = useState(provider?.name ?? "");
  const [settings, setSettings] = useState(provider ? JSON.stringify(provider.settings) : "{}");
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  const chosen = kinds.find((entry) => entry.kind === kind);
  const example = settingsExample(kind);
  const secretNames = chosen ? [...chosen.secrets.required, ...chosen.secrets.optional] : [];
  return (
    <details
      className={provider ? "edit-form" : "add-form"}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        {provider ? (
          <>
            Edit <span className="visually-hidden">{provider.name}</span>
          </>
        ) : (
          "Add a provider"
        )}
      </summary>
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
            await api.outbound.saveProvider(
              provider ? { name, settings: parsed, secrets } : { kind, name, settings: parsed, secrets },
              provider?.id,
            );
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
          <select
            value={kind}
            disabled={provider !== undefined}
            onChange={(event) => {
              const next = event.target.value;
              setKind(next);
              const nextExample = settingsExample(next);
              if (nextExample && (settings.trim() === "{}" || settings.trim() === "")) setSettings(nextExample.example);
            }}
          >
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
          <textarea
            className="settings-json"
            rows={2}
            value={settings}
            aria-describedby={example ? `settings-hint-${provider?.id ?? "new"}` : undefined}
            onChange={(event) => setSettings(event.target.value)}
          />
        </label>
        {example && (
          <p className="muted form-hint" id={`settings-hint-${provider?.id ?? "new"}`}>
            {example.hint} Example: <code>{example.example}</code>
          </p>
        )}
        {secretNames.map((secret) => (
          <label key={`${kind}-${secret}`}>
            <span>
              {secret}
              {chosen?.secrets.required.includes(secret) ? "" : " (optional)"}
              {provider?.secretNames.includes(secret) ? " (set; leave empty to keep it)" : ""}
            </span>
            <input name={`secret-${secret}`} type="password" autoComplete="off" />
          </label>
        ))}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">{provider ? "Save provider" : "Add provider"}</button>
      </form>
    </details>
  );
}
