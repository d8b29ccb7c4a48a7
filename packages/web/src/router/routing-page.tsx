import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf, useLoad } from "../use-load.js";
import { RouterRouteForm } from "./route-form.js";

/** Router › Routing: the default route, and the aliases and combos. */
export function RoutingPage() {
  const status = useLoad(api.router.status);
  const routes = useLoad(api.router.routes);
  const [message, setMessage] = useState("");
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setMessage(done);
      status.reload();
      routes.reload();
    } catch (failure) {
      setMessage(messageOf(failure));
    }
  };
  return (
    <>
      <p className="muted" role="status">
        {message}
      </p>
      {status.data && (
        <div className="card">
          <h2>Default route</h2>
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
    </>
  );
}
