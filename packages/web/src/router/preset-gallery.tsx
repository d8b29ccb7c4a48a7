import { useState } from "react";
import { useLoad } from "../use-load.js";
import { ProviderSetup } from "./provider-setup.js";
import { type PresetView, providersApi, wireName } from "./providers-api.js";
import "./providers.css";

const GROUPS: { kind: PresetView["kind"]; title: string }[] = [
  { kind: "subscription", title: "Subscriptions signed in on this computer" },
  { kind: "flat_plan", title: "Flat plan" },
  { kind: "per_token", title: "Billed per token" },
  { kind: "local", title: "Servers on this computer" },
];

/** The preset gallery (docs/router.md, "Web pages"): pick a preset, or a custom provider, and set it up. */
export function PresetGallery({ taken, onSaved }: { taken: ReadonlySet<string>; onSaved: (label: string) => void }) {
  const presets = useLoad(providersApi.presets);
  // undefined: nothing picked; null: a custom provider.
  const [picked, setPicked] = useState<PresetView | null>();
  if (picked !== undefined) {
    return (
      <ProviderSetup
        key={picked?.slug ?? "custom"}
        preset={picked ?? undefined}
        taken={taken}
        onSaved={(label) => {
          setPicked(undefined);
          onSaved(label);
        }}
        onCancel={() => setPicked(undefined)}
      />
    );
  }
  return (
    <div className="preset-gallery">
      <h3>Add a provider</h3>
      {presets.error && <p className="error">{presets.error}</p>}
      {GROUPS.map((group) => {
        const members = presets.data?.filter((preset) => preset.kind === group.kind) ?? [];
        if (members.length === 0) return null;
        return (
          <section key={group.kind} aria-label={group.title}>
            <h4>{group.title}</h4>
            <ul className="preset-grid">
              {members.map((preset) => (
                <li key={preset.slug}>
                  <button type="button" className="preset-card" onClick={() => setPicked(preset)}>
                    <strong>{preset.label}</strong>
                    <span className="muted">
                      {wireName(preset.wire)}
                      {preset.prefix_rules.some((rule) => rule.wire !== null) ? " + per-model wires" : ""}
                      {preset.aggregator ? " · aggregator" : ""}
                    </span>
                    <span className="muted preset-host">{new URL(preset.base_url).host}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
      <button type="button" className="preset-card custom" onClick={() => setPicked(null)}>
        <strong>Custom provider</strong>
        <span className="muted">any base URL</span>
      </button>
    </div>
  );
}
