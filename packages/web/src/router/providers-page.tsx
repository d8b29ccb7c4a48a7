import type { RouterUpstream } from "@notify/contracts/ui";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf, useLoad } from "../use-load.js";
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
 * The provider list (spec 3, Web interface pages: Providers): each provider with its own switch, its edit form and
 * delete, and the preset gallery to add one. `onChanged` lets a host page reload what depends on providers.
 */
export function ProvidersSection({ onChanged }: { onChanged?: () => void }) {
  const upstreams = useLoad(api.router.upstreams);
  const [message, setMessage] = useState("");
  const act = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    try {
      await work();
      setMessage(done);
      upstreams.reload();
      onChanged?.();
      return true;
    } catch (failure) {
      setMessage(messageOf(failure));
      return false;
    }
  };
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

/** The Providers page on its own: the router's switch above the provider list (for the Router sub-pages). */
export function ProvidersPage() {
  const status = useLoad(api.router.status);
  const [message, setMessage] = useState("");
  return (
    <section aria-labelledby="providers-page-title">
      <div className="page-head">
        <h1 id="providers-page-title">Providers</h1>
        <p className="muted" role="status">
          {message}
        </p>
      </div>
      {status.data && (
        <div className="card">
          <div className="field check">
            <input
              id="providers-router-enabled"
              type="checkbox"
              role="switch"
              aria-checked={status.data.enabled}
              checked={status.data.enabled}
              onChange={async (event) => {
                try {
                  await api.router.saveSettings({ enabled: event.target.checked });
                  setMessage("Saved");
                  status.reload();
                } catch (failure) {
                  setMessage(messageOf(failure));
                }
              }}
            />
            <label htmlFor="providers-router-enabled">Router on</label>
          </div>
        </div>
      )}
      <ProvidersSection onChanged={status.reload} />
    </section>
  );
}
