import { SWITCH_STRATEGIES, type SwitchStrategy } from "@notify/contracts/ui-constants";
import { useState } from "react";
import { api } from "../api/client.js";
import { actionRunner, useLoad } from "../use-load.js";
import { RoutesCard } from "./routes-card.js";
import { Choices, ROUTE_CHOICES, routeChoices, TARGET_CHOICES, targetChoices } from "./targets-editor.js";

/** One line per strategy (docs/router.md, "Smart switching"). */
const STRATEGY_HELP: Record<SwitchStrategy, string> = {
  off: "Only the route's own targets, in their order. No other provider is added.",
  ordered:
    "Adds the same model at every other provider that lists it (subscriptions, flat plans, local servers, then per-token) and starts from the first target on every request.",
  sticky: "Adds the same providers, and keeps using the last target that answered until it fails.",
  round_robin: "Adds the same providers, and rotates the first target per model or route, then fails over in order.",
};

/**
 * Router › Routing: aliases and combos, the default route, smart switching and the cross-model fallback of the
 * agent's own native models. Each change goes to the broker at once; its refusal is shown as it says it.
 */
export function RoutingPage() {
  const status = useLoad(api.router.status);
  const routes = useLoad(api.router.routes);
  const upstreams = useLoad(api.router.upstreams);
  const [message, setMessage] = useState("");
  // A chosen strategy shows at once; the broker's answer (a reloaded status) replaces it.
  const [choosing, setChoosing] = useState<{ strategy: SwitchStrategy; over: unknown }>();
  const act = actionRunner(
    setMessage,
    () => {
      status.reload();
      routes.reload();
    },
    "always",
  );
  const settings = status.data;
  const strategyShown = choosing && choosing.over === settings ? choosing.strategy : settings?.switch_strategy;
  return (
    <>
      <p className="muted" role="status">
        {message}
      </p>
      {(status.error ?? routes.error) && <p className="error">{status.error ?? routes.error}</p>}
      <Choices id={TARGET_CHOICES} values={targetChoices(upstreams.data)} />
      <Choices id={ROUTE_CHOICES} values={routeChoices(routes.data, upstreams.data)} />
      <RoutesCard routes={routes.data} act={act} />
      {settings && (
        <>
          <div className="card">
            <h2>Default route</h2>
            <p className="help">
              Where a request goes when its model matches nothing else, or names no model: a provider/model, an alias or
              a combo.
            </p>
            <RouteSetting
              key={`default:${settings.default_route}`}
              label="Default route"
              value={settings.default_route}
              onSave={(value) =>
                act(() => api.router.saveSettings({ default_route: value }), "Saved the default route")
              }
            />
          </div>
          <fieldset className="card strategies">
            <legend>
              <h2>Smart switching</h2>
            </legend>
            {SWITCH_STRATEGIES.map((strategy) => (
              <div key={strategy} className="field check">
                <input
                  id={`strategy-${strategy}`}
                  type="radio"
                  name="switch_strategy"
                  value={strategy}
                  aria-describedby={`strategy-${strategy}-help`}
                  checked={strategyShown === strategy}
                  onChange={() => {
                    setChoosing({ strategy, over: settings });
                    void act(
                      () => api.router.saveSettings({ switch_strategy: strategy }),
                      `Smart switching: ${strategy.replace("_", " ")}`,
                    );
                  }}
                />
                <label htmlFor={`strategy-${strategy}`}>{strategy.replace("_", " ")}</label>
                <p id={`strategy-${strategy}-help`} className="help">
                  {STRATEGY_HELP[strategy]}
                </p>
              </div>
            ))}
          </fieldset>
          <div className="card">
            <h2>Cross-model fallback</h2>
            <p className="help">
              When the agent's own vendor refuses one of its native models and no provider has the same model, the
              request goes here (a provider/model, an alias or a combo). Empty: the vendor's answer goes back as it is.
            </p>
            <RouteSetting
              key={`fallback:${settings.native_fallback_route}`}
              label="Fallback route for native models"
              value={settings.native_fallback_route}
              onSave={(value) =>
                act(() => api.router.saveSettings({ native_fallback_route: value }), "Saved the fallback route")
              }
            />
          </div>
        </>
      )}
    </>
  );
}

/** A route picker (free typing, suggestions from ROUTE_CHOICES) with Save and Clear. */
function RouteSetting({
  label,
  value,
  onSave,
}: {
  label: string;
  value: string | null;
  onSave: (value: string | null) => Promise<unknown>;
}) {
  const [draft, setDraft] = useState(value ?? "");
  return (
    <form
      className="inline-form route-setting"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        void onSave(draft.trim() || null);
      }}
    >
      <label>
        <span>{label}</span>
        <input list={ROUTE_CHOICES} placeholder="none" value={draft} onChange={(e) => setDraft(e.target.value)} />
      </label>
      <button type="submit">
        Save <span className="visually-hidden">{label.toLowerCase()}</span>
      </button>
      <button type="button" disabled={value === null} onClick={() => void onSave(null)}>
        Clear <span className="visually-hidden">{label.toLowerCase()}</span>
      </button>
    </form>
  );
}
