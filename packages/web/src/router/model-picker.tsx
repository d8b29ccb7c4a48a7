import { useState } from "react";
import type { FetchedModels } from "./providers-api.js";
import { wireName } from "./providers-api.js";

/**
 * A fetched model list to tick rather than type: one checkbox per model with the wire it is served on, a filter for
 * long lists, and tick all / none over what the filter shows.
 */
export function ModelPicker({
  fetched,
  ticked,
  onChange,
}: {
  fetched: FetchedModels;
  ticked: ReadonlySet<string>;
  onChange: (ticked: Set<string>) => void;
}) {
  const [filter, setFilter] = useState("");
  const shown = fetched.models.filter((model) => model.id.toLowerCase().includes(filter.trim().toLowerCase()));
  const setAll = (on: boolean) => {
    const next = new Set(ticked);
    for (const model of shown) {
      if (on) next.add(model.id);
      else next.delete(model.id);
    }
    onChange(next);
  };
  return (
    <fieldset className="model-picker">
      <legend>
        Models ({ticked.size} of {fetched.models.length} ticked)
      </legend>
      <p className="muted">
        {fetched.source === "host_cache" ? "From the signed-in tool's own cached list." : "From the provider's list."}
        {fetched.truncated ? " The provider listed more than 500; the first 500 are shown." : ""}
        {fetched.left_out > 0 ? ` ${fetched.left_out} left out: served on a wire the router does not speak.` : ""}
      </p>
      {fetched.models.length > 8 && (
        <label className="model-filter">
          <span>Filter models</span>
          <input type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
        </label>
      )}
      <div className="actions">
        <button type="button" onClick={() => setAll(true)}>
          Tick all{filter ? " shown" : ""}
        </button>
        <button type="button" onClick={() => setAll(false)}>
          Tick none{filter ? " shown" : ""}
        </button>
      </div>
      <ul className="plain-list model-list">
        {shown.map((model) => (
          <li key={model.id}>
            <label>
              <input
                type="checkbox"
                checked={ticked.has(model.id)}
                onChange={(event) => {
                  const next = new Set(ticked);
                  if (event.target.checked) next.add(model.id);
                  else next.delete(model.id);
                  onChange(next);
                }}
              />
              <code>{model.id}</code> <span className="badge wire">{wireName(model.wire)}</span>
            </label>
          </li>
        ))}
      </ul>
      {fetched.models.length === 0 && <p className="muted">The provider listed no models.</p>}
    </fieldset>
  );
}
