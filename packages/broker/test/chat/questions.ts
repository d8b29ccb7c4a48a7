import type { Json } from "@notify/test-kit";
import { expect } from "vitest";

/** A caller of the broker's HTTP API: ChatBroker's (a broker process) or InProcessChat's. */
export type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body?: Json }>;

/** A single_choice question's request: each choice `[id, label]`, or `[id, label, detail]`, in order. */
export function singleChoice(prompt: string, ...choices: [id: string, label: string, detail?: string][]): Json {
  return {
    kind: "single_choice",
    prompt,
    choices: choices.map(([id, label, detail]) => (detail === undefined ? { id, label } : { id, label, detail })),
  };
}

/**
 * The recall every chat suite checks: `answered` (a permission question) is allowed on the desktop (source `ui`),
 * `cancelled` is cancelled; the chat app's messages of both are then to be edited to say so.
 */
export async function answerOnDesktopAndCancel(call: Call, answered: Json, cancelled: Json): Promise<void> {
  const answer = {
    response_id: "r1",
    request_digest: answered.request_digest,
    nonce: answered.nonce,
    choice_id: "allow",
    source: "ui",
  };
  expect((await call("POST", `/v1/interactions/${answered.id}/respond`, answer)).status).toBe(200);
  expect((await call("POST", `/v1/interactions/${cancelled.id}/cancel`)).status).toBe(200);
}

/** Asks each of `prompts` as a permission question (the broker's default kind), in order; their created bodies. */
export async function askEach(call: Call, ...prompts: string[]): Promise<Json[]> {
  const created: Json[] = [];
  for (const prompt of prompts) {
    const reply = await call("POST", "/v1/interactions/request", { prompt });
    expect(reply.status).toBe(201);
    created.push(reply.body as Json);
  }
  return created;
}
