import type { RouterRoute } from "@notify/contracts/ui";
import { api } from "../api/client.js";
import { RouterRouteForm } from "./route-form.js";
import { routerApi } from "./router-api.js";

/** The aliases and combos: each with its targets, its switch, Edit and Delete; then the add form. */
export function RoutesCard({
  routes,
  act,
}: {
  routes: RouterRoute[] | undefined;
  act: (work: () => Promise<unknown>, done: string) => Promise<unknown>;
}) {
  return (
    <div className="card">
      <h2>Aliases and combos</h2>
      <p className="help">
        A model name that matches an alias goes to its one target; a combo (<code>name</code> or <code>combo/name</code>
        ) tries its targets in order.
      </p>
      {routes?.length === 0 && <p className="muted">None yet.</p>}
      <ul className="plain-list">
        {routes?.map((route) => (
          <li key={route.id} className="config-row">
            <div>
              <strong>{route.name}</strong> <span className="badge">{route.kind}</span>{" "}
              <span className={route.enabled ? "state on" : "state"}>{route.enabled ? "Enabled" : "Disabled"}</span>
              <ol className="target-chain" aria-label={`Targets of ${route.name}`}>
                {route.targets.map((target) => (
                  <li key={target}>
                    <code>{target}</code>
                  </li>
                ))}
              </ol>
            </div>
            <div className="actions">
              <button
                type="button"
                onClick={() =>
                  void act(
                    () => routerApi.patchRoute(route.id, { enabled: !route.enabled }),
                    `${route.enabled ? "Disabled" : "Enabled"} ${route.name}`,
                  )
                }
              >
                {route.enabled ? "Disable" : "Enable"} <span className="visually-hidden">{route.name}</span>
              </button>
              <button
                type="button"
                onClick={() => void act(() => api.router.deleteRoute(route.id), `Deleted ${route.name}`)}
              >
                Delete <span className="visually-hidden">{route.name}</span>
              </button>
            </div>
            <RouterRouteForm
              key={`${route.id}:${route.name}:${route.targets.join(",")}`}
              route={route}
              onSaved={(done) => void act(async () => {}, done)}
            />
          </li>
        ))}
      </ul>
      <RouterRouteForm onSaved={(done) => void act(async () => {}, done)} />
    </div>
  );
}
