import type { ProviderAdapter } from "../types.js";
import { webhookAdapter } from "./webhook.js";

/** Every outbound provider kind, by kind. */
export const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map(
  [webhookAdapter].map((adapter) => [adapter.kind, adapter]),
);
