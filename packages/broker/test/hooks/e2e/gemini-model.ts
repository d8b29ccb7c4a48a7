import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "@notify/test-kit";

/**
 * The Gemini API's own wire on loopback, for the real Gemini CLI (`GOOGLE_GEMINI_BASE_URL`): the test kit's ModelMock
 * speaks OpenAI's and Anthropic's wires, not this one. Shared by the Gemini e2e files.
 *
 * One request the model got: the tools it offered, the function responses in the conversation so far and the text
 * of every user part.
 */
export interface GeminiTurn {
  tools: string[];
  responses: Json[];
  userTexts: string[];
}

/**
 * A Gemini API model on loopback: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` answered with one SSE
 * chunk (a function call or text, finishReason STOP), `:countTokens` with a count. `reply` picks each turn's part.
 */
export async function startGeminiModel(reply: (turn: GeminiTurn) => Json) {
  const turns: GeminiTurn[] = [];
  const server: Server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    if (request.url?.includes(":countTokens")) {
      response.writeHead(200, { "content-type": "application/json" });
      return void response.end(JSON.stringify({ totalTokens: 10 }));
    }
    const json = JSON.parse(body || "{}") as Json;
    const turn: GeminiTurn = {
      tools: (json.tools ?? []).flatMap((tool: Json) => tool.functionDeclarations ?? []).map((f: Json) => f.name),
      responses: (json.contents ?? []).flatMap((content: Json) =>
        (content.parts ?? []).filter((part: Json) => part.functionResponse).map((part: Json) => part.functionResponse),
      ),
      userTexts: (json.contents ?? [])
        .filter((content: Json) => content.role === "user")
        .flatMap((content: Json) => (content.parts ?? []).map((part: Json) => part.text).filter(Boolean)),
    };
    turns.push(turn);
    const chunk = {
      candidates: [{ content: { role: "model", parts: [reply(turn)] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    };
    if (request.url?.includes("alt=sse")) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    } else {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(chunk));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, turns, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
