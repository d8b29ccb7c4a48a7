import type { RouterUpstream } from "@notify/contracts/ui";
import { useState } from "react";
import { api } from "../api/client.js";
import { actionRunner, useLoad } from "../use-load.js";
import { AccountsCard } from "./accounts-card.js";
import { PresetGallery } from "./preset-gallery.js";
import { UpstreamForm } from "./upstream-form.js";

/** One provider's switch: it moves at once; the reloaded list (a new key) replaces it, or puts it back on failure. */
function ProviderSwitch({
  upstream,
  onToggle,
}: {
  upstream: RouterUpstream;
  onToggle: (enabled: boolean) => Promise<boolean>;
}) {
  const [enabled, setEnabled] = useState(upstream.enabled);
  return (
    <div className="field check provider-switch">
      <input
        id={`provider-on-${upstream.id}`}
        type="checkbox"
        role="switch"
        aria-checked={enabled}
        checked={enabled}
        onChange={(event) => {
          setEnabled(event.target.checked);
          const wanted = event.target.checked;
          void onToggle(wanted).then((saved) => {
            if (!saved) setEnabled(!wanted);
          });
        }}
      />
      <label htmlFor={`provider-on-${upstream.id}`}>
        <strong>{upstream.label}</strong> <code>{upstream.slug}</code>
      </label>
    </div>
  );
}

/**
 * The provider list (docs/router.md, "Web pages"): each provider with its own switch, its edit form and
 * delete, and the preset gallery to add one. `onChanged` lets a host page reload what depends on providers.
 */
export function ProvidersSection({ onChanged }: { onChanged?: () => void }) {
  const upstreams = useLoad(api.router.upstreams);
  const [message, setMessage] = useState("");
  const act = actionRunner(setMessage, () => {
    upstreams.reload();
    onChanged?.();
  });
  return (
    <section className="card" aria-labelledby="providers-title">
      <h2 id="providers-title">Providers</h2>
      <p className="muted provider-status" role="status">
        {message}
      </p>
      {upstreams.error && <p className="error">{upstreams.error}</p>}
      {upstreams.data?.length === 0 && <p className="muted">No providers yet: pick one below.</p>}
      <ul className="plain-list" aria-label="Providers">
        {upstreams.data?.map((upstream) => (
          <li key={upstream.id} className="config-row">
            <div>
              <ProviderSwitch
                key={upstream.updated_at}
                upstream={upstream}
                onToggle={(enabled) =>
                  act(
                    () => api.router.saveUpstream({ enabled }, upstream.id),
                    `${upstream.label} ${enabled ? "on" : "off"}`,
                  )
                }
              />
              <p className="muted">
                {upstream.base_url} · {upstream.wire.replace("_wire", "")} ·{" "}
                {upstream.auth === "api_key" ? `key ${upstream.has_key ? "set" : "none"}` : "signed-in tool"} ·{" "}
                {upstream.models.length} models
              </p>
            </div>
            <div className="actions">
              <button type="button" onClick={() => void act(() => api.router.deleteUpstream(upstream.id), "Deleted")}>
                Delete <span className="visually-hidden">{upstream.label}</span>
              </button>
            </div>
            <UpstreamForm
              key={upstream.updated_at}
              upstream={upstream}
              onSaved={() => void act(async () => {}, "Saved")}
            />
          </li>
        ))}
      </ul>
      <PresetGallery
        taken={new Set(upstreams.data?.map((upstream) => upstream.slug))}
        onSaved={(label) => void act(async () => {}, `Added ${label}`)}
      />
    </section>
  );
}

/** Router › Providers: the router's switch, the providers with their own switches, and the preset gallery. */
export function ProvidersPage() {
  const status = useLoad(api.router.status);
  const [message, setMessage] = useState("");
  const [accountsRound, setAccountsRound] = useState(0);
  // The switch moves at once; the broker's answer (a reloaded status) replaces it.
  const [switching, setSwitching] = useState<{ enabled: boolean; over: unknown }>();
  const act = actionRunner(setMessage, status.reload);

  return (
    <>
      <p className="muted" role="status">
        {message}
      </p>
      {status.error && <p className="error">{status.error}</p>}
      {status.data && (
        <div className="card">
          <h2>Switch</h2>
          <div className="field check">
            <input
              id="router-enabled"
              type="checkbox"
              checked={switching?.over === status.data ? switching.enabled : status.data.enabled}
              onChange={(event) => {
                const enabled = event.target.checked;
                setSwitching({ enabled, over: status.data });
                void act(() => api.router.saveSettings({ enabled }), "Saved");
              }}
            />
            <label htmlFor="router-enabled">Router on</label>
          </div>
          <p className="muted">
            Base path <code>{status.data.base_path}</code> · key{" "}
            {status.data.has_key ? "set (see `notify router key`)" : "not made yet"}
          </p>
        </div>
      )}
      <ProvidersSection key={accountsRound} onChanged={status.reload} />
      <AccountsCard onChanged={() => setAccountsRound((round) => round + 1)} />
    </>
  );
}
