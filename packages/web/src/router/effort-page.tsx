import { type KeyboardEvent, useRef, useState } from "react";
import { api } from "../api/client.js";
import { useLoad } from "../use-load.js";
import { EffortFamilies } from "./effort-families.js";
import { EffortModels } from "./effort-models.js";
import { routerApi } from "./router-api.js";
import { Choices, TARGET_CHOICES, targetChoices } from "./targets-editor.js";

const TABS = [
  { id: "families", label: "Families" },
  { id: "models", label: "Per model" },
] as const;
type TabId = (typeof TABS)[number]["id"];

/**
 * Router › Effort mapping: one agent effort setting (low … max) mapped per model family and per provider/model.
 * Two tabs (WAI-ARIA tabs pattern: arrow keys, Home and End move between them; automatic activation).
 */
export function EffortPage() {
  const view = useLoad(routerApi.effort);
  const upstreams = useLoad(api.router.upstreams);
  const [tab, setTab] = useState<TabId>("families");
  const [message, setMessage] = useState("");
  const buttons = useRef<Record<string, HTMLButtonElement | null>>({});
  const changed = (done: string) => {
    setMessage(done);
    view.reload();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const index = TABS.findIndex((item) => item.id === tab);
    const next =
      event.key === "ArrowRight"
        ? (index + 1) % TABS.length
        : event.key === "ArrowLeft"
          ? (index - 1 + TABS.length) % TABS.length
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? TABS.length - 1
              : undefined;
    if (next === undefined) return;
    event.preventDefault();
    const target = TABS[next];
    if (!target) return;
    setTab(target.id);
    buttons.current[target.id]?.focus();
  };
  return (
    <>
      <p className="muted" role="status">
        {message}
      </p>
      <div className="card">
        <h2>Effort mapping</h2>
        <p className="help">
          Agents send one of <code>low</code>, <code>medium</code>, <code>high</code>, <code>xhigh</code>,{" "}
          <code>max</code>. Each model gets the value its family accepts: automatic where names match, collapsed onto
          the top, or what you set here. Per-model sets win over family sets. A set must stay within the accepted values
          and never go down from a level to the next.
        </p>
        <Choices id={TARGET_CHOICES} values={targetChoices(upstreams.data)} />
        <div role="tablist" aria-label="Effort mapping" className="tabs" onKeyDown={onKeyDown}>
          {TABS.map((item) => (
            <button
              key={item.id}
              ref={(element) => {
                buttons.current[item.id] = element;
              }}
              type="button"
              role="tab"
              id={`effort-tab-${item.id}`}
              aria-selected={tab === item.id}
              aria-controls={`effort-panel-${item.id}`}
              tabIndex={tab === item.id ? 0 : -1}
              onClick={() => setTab(item.id)}
            >
              {item.label}
            </button>
          ))}
        </div>
        {view.error && <p className="error">{view.error}</p>}
        {TABS.map((item) => (
          <div
            key={item.id}
            role="tabpanel"
            id={`effort-panel-${item.id}`}
            aria-labelledby={`effort-tab-${item.id}`}
            hidden={tab !== item.id}
            className="tab-panel"
          >
            {view.data && tab === item.id && item.id === "families" && (
              <EffortFamilies view={view.data} onChanged={changed} />
            )}
            {view.data && tab === item.id && item.id === "models" && (
              <EffortModels view={view.data} onChanged={changed} />
            )}
          </div>
        ))}
      </div>
    </>
  );
}
