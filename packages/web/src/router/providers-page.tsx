import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf, useLoad } from "../use-load.js";
import { UpstreamForm } from "./upstream-form.js";

/** Router › Providers: the router's switch, and the upstream providers with their add and edit forms. */
export function ProvidersPage() {
  const status = useLoad(api.router.status);
  const upstreams = useLoad(api.router.upstreams);
  const [message, setMessage] = useState("");
  // The switch moves at once; the broker's answer (a reloaded status) replaces it.
  const [switching, setSwitching] = useState<{ enabled: boolean; over: unknown }>();
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setMessage(done);
      status.reload();
      upstreams.reload();
    } catch (failure) {
      setMessage(messageOf(failure));
    }
  };

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
      <div className="card">
        <h2>Upstreams</h2>
        {upstreams.data?.length === 0 && <p className="muted">No upstreams yet.</p>}
        <ul className="plain-list">
          {upstreams.data?.map((upstream) => (
            <li key={upstream.id} className="config-row">
              <div>
                <strong>{upstream.label}</strong> <code>{upstream.slug}</code>{" "}
                <span className={upstream.enabled ? "state on" : "state"}>
                  {upstream.enabled ? "Enabled" : "Disabled"}
                </span>
                <p className="muted">
                  {upstream.base_url} · {upstream.wire.replace("_wire", "")} · key {upstream.has_key ? "set" : "none"} ·{" "}
                  {upstream.models.length} models
                </p>
              </div>
              <div className="actions">
                <button
                  type="button"
                  onClick={() =>
                    void act(() => api.router.saveUpstream({ enabled: !upstream.enabled }, upstream.id), "Saved")
                  }
                >
                  {upstream.enabled ? "Disable" : "Enable"} <span className="visually-hidden">{upstream.label}</span>
                </button>
                <button type="button" onClick={() => void act(() => api.router.deleteUpstream(upstream.id), "Deleted")}>
                  Delete <span className="visually-hidden">{upstream.label}</span>
                </button>
              </div>
              <UpstreamForm
                key={upstream.updated_at}
                upstream={upstream}
                onSaved={() => act(async () => {}, "Saved")}
              />
            </li>
          ))}
        </ul>
        <UpstreamForm onSaved={() => act(async () => {}, "Saved")} />
      </div>
    </>
  );
}
