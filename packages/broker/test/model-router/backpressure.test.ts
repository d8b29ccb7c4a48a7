import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterBroker, startRouterBroker } from "./harness.js";

/**
 * A client that reads slowly: while the client's socket is full the router holds the upstream body (pause/resume
 * on the response's 'drain'), and loses, reorders or duplicates nothing. The upstream streams 3,000 chat chunks
 * (about 2 MB) as fast as its socket takes them; the client does not read for 300 ms, then reads everything.
 */

const CHUNKS = 3000;
const piece = (index: number) => `<${index.toString().padStart(4, "0")}:${"x".repeat(600)}>`;
const EXPECTED = Array.from({ length: CHUNKS }, (_, index) => piece(index)).join("");

let router: RouterBroker;
let upstream: Server;

async function writeAll(response: import("node:http").ServerResponse, lines: string[]): Promise<void> {
  for (const line of lines) {
    if (!response.write(line)) await once(response, "drain");
  }
}

beforeAll(async () => {
  upstream = createServer((req, response) => {
    req.resume();
    req.on("end", async () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const base = { id: "chatcmpl-bp", object: "chat.completion.chunk", created: 1, model: "big" };
      const lines = [
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] })}\n\n`,
      ];
      for (let index = 0; index < CHUNKS; index++) {
        lines.push(
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: piece(index) }, finish_reason: null }] })}\n\n`,
        );
      }
      lines.push(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
      lines.push(
        `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: CHUNKS, total_tokens: CHUNKS + 3 } })}\n\n`,
      );
      lines.push("data: [DONE]\n\n");
      await writeAll(response, lines);
      response.end();
    });
  });
  upstream.listen(0, "127.0.0.1");
  await once(upstream, "listening");
  router = await startRouterBroker();
  await router.addUpstream({
    slug: "bp",
    wire: "chat",
    base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    key: "key-bp",
  });
});

afterAll(async () => {
  await router?.close();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

/** POSTs a streaming request, leaves the response unread for `pauseMs`, then reads it to the end. */
function slowRead(path: string, headers: Record<string, string>, body: unknown, pauseMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${router.base}${path}`);
    const payload = JSON.stringify(body);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        res.pause();
        const chunks: Buffer[] = [];
        setTimeout(() => {
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
          res.resume();
        }, pauseMs);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const dataLines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6));

describe("router streams to a slow client (backpressure)", () => {
  it("passthrough: every upstream chunk reaches the client once, in order, and the stream ends", async () => {
    const text = await slowRead(
      "/chat/completions",
      { authorization: `Bearer ${router.key}` },
      { model: "bp/big", stream: true, messages: [{ role: "user", content: "hi" }] },
      300,
    );
    const lines = dataLines(text);
    expect(lines.at(-1)).toBe("[DONE]");
    const content = lines
      .slice(0, -1)
      .map((line) => JSON.parse(line).choices[0]?.delta?.content ?? "")
      .join("");
    expect(content).toBe(EXPECTED);
  });

  it("translated (messages client, chat upstream): every delta arrives once, in order, then message_stop", async () => {
    const text = await slowRead(
      "/messages",
      { "x-api-key": router.key },
      { model: "bp/big", stream: true, max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
      300,
    );
    const events = dataLines(text).map((line) => JSON.parse(line));
    expect(events.at(-1)?.type).toBe("message_stop");
    const content = events
      .filter((event) => event.type === "content_block_delta")
      .map((event) => event.delta.text)
      .join("");
    expect(content).toBe(EXPECTED);
    expect(events.find((event) => event.type === "message_delta")?.usage?.output_tokens).toBe(CHUNKS);
  });
});
