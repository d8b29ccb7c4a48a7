import { useState } from "react";
import { api } from "../api/client.js";
import { shortTime } from "../format.js";
import { messageOf, useLoad } from "../use-load.js";
import { AgentsPage } from "./agents-page.js";
import { RouterRouteForm } from "./route-form.js";
import { UpstreamForm } from "./upstream-form.js";

/** The provider router's basics: its switch, upstreams, aliases and combos, default route, and Activity. */
export function RouterPage() {
  const status = useLoad(api.router.status);
  const upstreams = useLoad(api.router.upstreams);
  const routes = useLoad(api.router.routes);
  const activity = useLoad(() => api.router.activity(50));
  const [message, setMessage] = useState("");
  // The switch moves at once; the broker's answer (a reloaded status) replaces it.
  const [switching, setSwitching] = useState<{ enabled: boolean; over: unknown }>();
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setMessage(done);
      status.reload();
      upstreams.reload();
      routes.reload();
    } catch (failure) {
      setMessage(messageOf(failure));
    }
  };
  const totals = new Map<string, { requests: number; input: number; output: number }>();
  for (const request of activity.data ?? []) {
    const model = request.upstream_model ?? request.requested_model ?? "unknown";
    const total = totals.get(model) ?? { requests: 0, input: 0, output: 0 };
    total.requests++;
    total.input += request.tokens.input ?? 0;
    total.output += request.tokens.output ?? 0;
    totals.set(model, total);
  }

  return (
    <section aria-labelledby="router-title">
      <div className="page-head">
        <h1 id="router-title">Router</h1>
        <p className="muted" role="status">
          {message}
        </p>
      </div>
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
          <label className="field labelled">
            <span>Default route</span>
            <select
              value={status.data.default_route ?? ""}
              onChange={(event) =>
                void act(() => api.router.saveSettings({ default_route: event.target.value || null }), "Saved")
              }
            >
              <option value="">None</option>
              {routes.data?.map((route) => (
                <option key={route.id} value={route.name}>
                  {route.name}
                </option>
              ))}
            </select>
          </label>
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
      <div className="card">
        <h2>Aliases and combos</h2>
        {routes.data?.length === 0 && <p className="muted">None yet.</p>}
        <ul className="plain-list">
          {routes.data?.map((route) => (
            <li key={route.id} className="config-row">
              <div>
                <strong>{route.name}</strong> <span className="badge">{route.kind}</span>
                <p className="muted">{route.targets.join(" → ")}</p>
              </div>
              <button type="button" onClick={() => void act(() => api.router.deleteRoute(route.id), "Deleted")}>
                Delete <span className="visually-hidden">{route.name}</span>
              </button>
            </li>
          ))}
        </ul>
        <RouterRouteForm onSaved={() => act(async () => {}, "Saved")} />
      </div>
      {/* Until the router's sub-pages have a registry (router-pages.ts), the Agents page sits here. */}
      <AgentsPage nested />
      <div className="card">
        <h2>Activity</h2>
        {activity.data?.length === 0 && <p className="muted">No requests yet.</p>}
        {totals.size > 0 && (
          <table>
            <caption>Totals by model (last {activity.data?.length} requests)</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Requests</th>
                <th scope="col">Input tokens</th>
                <th scope="col">Output tokens</th>
              </tr>
            </thead>
            <tbody>
              {[...totals].map(([model, total]) => (
                <tr key={model}>
                  <td>{model}</td>
                  <td>{total.requests}</td>
                  <td>{total.input}</td>
                  <td>{total.output}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <ul className="plain-list">
          {activity.data?.map((request) => (
            <li key={request.id}>
              <details>
                <summary>
                  {shortTime(request.started_at)} {request.requested_model ?? "?"} → {request.upstream_slug ?? "-"}{" "}
                  {request.status ?? ""} {request.error_code ?? ""}
                </summary>
                <ol>
                  {request.attempts.map((attempt) => (
                    <li key={attempt.ordinal}>
                      {attempt.upstream_slug} {attempt.model}: {attempt.status ?? "no status"}{" "}
                      {attempt.error_code ?? ""} in {attempt.duration_ms} ms
                    </li>
                  ))}
                </ol>
              </details>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
