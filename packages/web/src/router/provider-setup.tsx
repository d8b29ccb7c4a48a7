import { RECORD_WIRES as WIRES } from "@notify/contracts/ui-constants";
import { useState } from "react";
import { messageOf } from "../use-load.js";
import { ModelPicker } from "./model-picker.js";
import { type FetchedModels, type PresetView, providersApi, type Wire, wireName } from "./providers-api.js";

/**
 * Sets up one provider from a preset (everything filled but the key) or as a custom provider (any base URL): key
 * field or "use the key another tool holds", "Fetch models", the ticked list, then save. Nothing is saved before the
 * save button; the key field is cleared once sent.
 */
export function ProviderSetup({
  preset,
  taken,
  onSaved,
  onCancel,
}: {
  preset: PresetView | undefined;
  /** Slugs in use: a preset added twice gets `-2`, `-3`. */
  taken: ReadonlySet<string>;
  onSaved: (label: string) => void;
  onCancel: () => void;
}) {
  const freeSlug = (base: string) => {
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  };
  const [slug, setSlug] = useState(() => (preset ? freeSlug(preset.slug) : ""));
  const [label, setLabel] = useState(preset?.label ?? "");
  const [baseUrl, setBaseUrl] = useState(preset?.base_url ?? "");
  const [wire, setWire] = useState<Wire>(preset?.wire ?? "chat_wire");
  const [key, setKey] = useState("");
  const [keySource, setKeySource] = useState("");
  const [fetched, setFetched] = useState<FetchedModels>();
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const title = preset ? preset.label : "Custom provider";
  const keyFields = () => (keySource ? { key_source: keySource } : key ? { key } : {});

  const fetchModels = async () => {
    setBusy(true);
    setError("");
    try {
      const result = await providersApi.fetchModels({
        ...(preset ? { preset: preset.slug } : {}),
        base_url: baseUrl,
        wire,
        ...keyFields(),
      });
      setFetched(result);
      // Every fetched model starts ticked (docs/router.md, "Fetching model lists"): a person fetches models to use
      // them, and an untouched list once saved a provider with no model at all. A fetch again keeps what was unticked.
      const before = new Set(fetched?.models.map((model) => model.id));
      setTicked(new Set(result.models.map((model) => model.id).filter((id) => ticked.has(id) || !before.has(id))));
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="stacked-form provider-setup"
      aria-label={`Set up ${title}`}
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        try {
          const models = [...ticked, ...typed.split(/[\s,]+/).filter(Boolean)];
          await providersApi.add({
            ...(preset ? { preset: preset.slug } : {}),
            slug,
            label: label || slug,
            base_url: baseUrl,
            wire,
            models: [...new Set(models)],
            enabled: true,
            ...keyFields(),
          });
          setKey("");
          onSaved(label || slug);
        } catch (failure) {
          setError(messageOf(failure));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h3>{title}</h3>
      {preset && (
        <p className="muted">
          {wireName(preset.wire)} wire
          {preset.prefix_rules.some((rule) => rule.wire !== null) ? ", some model families on other wires" : ""} ·{" "}
          {preset.needs_key ? "needs an API key" : "no key needed"}
        </p>
      )}
      <label>
        <span>Slug</span>
        <input required value={slug} onChange={(event) => setSlug(event.target.value)} />
      </label>
      <label>
        <span>Label</span>
        <input value={label} onChange={(event) => setLabel(event.target.value)} />
      </label>
      <label>
        <span>Base URL</span>
        <input required type="url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} />
      </label>
      <label>
        <span>Wire</span>
        <select value={wire} onChange={(event) => setWire(event.target.value as Wire)}>
          {WIRES.map((option) => (
            <option key={option} value={option}>
              {wireName(option)}
            </option>
          ))}
        </select>
      </label>
      {(preset === undefined || preset.needs_key) && (
        <label>
          <span>API key</span>
          <input
            type="password"
            autoComplete="off"
            value={key}
            disabled={keySource !== ""}
            onChange={(event) => setKey(event.target.value)}
          />
        </label>
      )}
      {preset?.key_sources.map((source) => (
        <div className="field check" key={source.id}>
          <input
            id={`key-source-${source.id}`}
            type="checkbox"
            checked={keySource === source.id}
            onChange={(event) => setKeySource(event.target.checked ? source.id : "")}
          />
          <label htmlFor={`key-source-${source.id}`}>Use {source.label} (read only now, then sealed)</label>
        </div>
      ))}
      <div className="actions">
        <button type="button" disabled={busy || baseUrl === ""} onClick={() => void fetchModels()}>
          Fetch models
        </button>
      </div>
      {fetched && <ModelPicker fetched={fetched} ticked={ticked} onChange={setTicked} />}
      {fetched && fetched.models.length > 0 && ticked.size === 0 && typed.trim() === "" && (
        <p className="warning" role="status">
          No model ticked: this provider would be saved with no models, and the router would offer none of its models.
        </p>
      )}
      <label>
        <span>Other model IDs (comma separated)</span>
        <input value={typed} onChange={(event) => setTyped(event.target.value)} />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={busy}>
          Add provider
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
