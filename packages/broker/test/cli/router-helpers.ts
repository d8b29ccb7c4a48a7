import { type ModelMock, startModelMock } from "@notify/test-kit";
import type { CliBroker } from "./cli-harness.js";
import { type Json, uiGet } from "./outbound-helpers.js";

/** The router's configuration as the broker reports it: equal snapshots mean nothing changed. */
export async function routerState(cli: CliBroker): Promise<{ status: Json; upstreams: Json[]; routes: Json[] }> {
  const [status, upstreams, routes] = await Promise.all([
    uiGet(cli, "/router/status"),
    uiGet(cli, "/router/upstreams"),
    uiGet(cli, "/router/routes"),
  ]);
  return { status, upstreams, routes };
}

/** The usage the mock reports, so the ledger's token columns have known values. */
export const MOCK_TOKENS = { input: 12, cached: 0, output: 7, reasoning: 0 } as const;

/**
 * A chat-wire model provider on loopback (the kit's mock; docs/router.md, "Endpoints": the router appends
 * `/chat/completions` to a chat-wire upstream's base_url, its `url`). Requests are recorded in `hits`.
 */
export const mockChatUpstream = (): Promise<ModelMock> =>
  startModelMock({ wire: "chat", text: "Hello from the mock.", usage: MOCK_TOKENS });
