import { join } from "node:path";
import type { ConfigSnapshot } from "@notify/router";
import { ConnectorService } from "../../src/connectors/connector-service.js";

/** One enabled upstream with one model: enough for a connect to write an agent's files. */
export const ONE_UPSTREAM: ConfigSnapshot = {
  upstreams: [
    {
      id: "ups_fast",
      slug: "fast",
      label: "FAST",
      wire: "responses_wire",
      base_url: "http://127.0.0.1:9/v1",
      has_key: false,
      models: ["m1"],
      enabled: true,
      auth: "api_key",
      model_wires: {},
      credential_ref: null,
      created_at: "2026-11-23T00:00:00Z",
      updated_at: "2026-11-23T00:00:00Z",
    },
  ],
  routes: [],
  settings: { default_route: null, switch_strategy: "off", native_fallback_route: null },
};

/** A connector service over `root`/data for the agents under `home`, the router on with `key`. */
export function connectorService(root: string, home: string, key: string): ConnectorService {
  return new ConnectorService({
    dataDir: join(root, "data"),
    snapshot: () => ONE_UPSTREAM,
    router: () => ({ enabled: true, key }),
    brokerUrl: () => "http://127.0.0.1:47821",
    configuredAccounts: () => [],
    where: { env: { HOME: home } },
  });
}
