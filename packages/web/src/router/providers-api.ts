import type { RecordWire, RouterUpstream } from "@notify/contracts/ui";
import type { ModelListSource, PresetKind } from "@notify/contracts/ui-constants";
import { call } from "../api/client.js";

/** The Providers page's calls (docs/router.md, Presets and Fetching model lists). */

export type Wire = RecordWire;

export interface PresetView {
  slug: string;
  label: string;
  kind: PresetKind;
  wire: Wire;
  base_url: string;
  auth: string;
  needs_key: boolean;
  prefix_rules: { prefix: string; wire: Wire | null }[];
  model_list: ModelListSource;
  key_sources: { id: string; label: string }[];
  aggregator: boolean;
  source: string;
}

export interface FetchBody {
  preset?: string;
  base_url?: string;
  wire?: Wire;
  key?: string;
  key_source?: string;
  upstream?: string;
}

export interface FetchedModels {
  models: { id: string; wire: Wire }[];
  truncated: boolean;
  left_out: number;
  source: ModelListSource;
}

export interface ProviderSave {
  preset?: string;
  slug: string;
  label: string;
  base_url: string;
  wire: Wire;
  models: string[];
  enabled: boolean;
  key?: string;
  key_source?: string;
}

export const providersApi = {
  presets: () => call<PresetView[]>("GET", "/router/presets"),
  fetchModels: (body: FetchBody) => call<FetchedModels>("POST", "/router/models/fetch", body),
  add: (body: ProviderSave) => call<RouterUpstream>("POST", "/router/upstreams", body),
};

export const wireName = (wire: string): string => wire.replace("_wire", "");
