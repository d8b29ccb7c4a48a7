import { createServer, type IncomingHttpHeaders } from "node:http";
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

export interface ChatHit {
  path: string;
  headers: IncomingHttpHeaders;
  body: Json;
}

/** The usage the mock reports, so the ledger's token columns have known values. */
export const MOCK_TOKENS = { input: 12, output: 7 } as const;

/**
 * A chat-wire model provider on loopback: every POST gets one non-stream chat completion (spec 3, Endpoints: the
 * router appends `/chat/completions` to a chat-wire upstream's base_url). Requests are recorded.
 */
export async function mockChatUpstream(): Promise<{ baseUrl: string; hits: ChatHit[]; close(): Promise<void> }> {
  const hits: ChatHit[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
    });
    request.on("end", () => {
      let body: Json;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      hits.push({ path: request.url ?? "", headers: request.headers, body });
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "chatcmpl-mock-1",
          object: "chat.completion",
          created: 1_700_000_000,
          model: body?.model ?? "unknown",
          choices: [
            { index: 0, message: { role: "assistant", content: "Hello from the mock." }, finish_reason: "stop" },
          ],
          usage: {
            prompt_tokens: MOCK_TOKENS.input,
            completion_tokens: MOCK_TOKENS.output,
            total_tokens: MOCK_TOKENS.input + MOCK_TOKENS.output,
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
