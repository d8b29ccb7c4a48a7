import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback model on the OpenAI Responses wire that makes Codex call its freeform `apply_patch` tool, which the
 * test-kit mock cannot: Codex 0.169.0 offers that tool only to a model of its catalogue (`gpt-5.5`, every entry
 * `"apply_patch_tool_type": "freeform"`), as `{type: "custom", name: "apply_patch"}`, and the model calls it with a
 * `custom_tool_call` item streamed as `response.output_item.added`, `response.custom_tool_call_input.delta` and
 * `.done`, `response.output_item.done`, `response.completed`. Codex answers it with a `custom_tool_call_output`.
 *
 * Turn k (k = the tool outputs in the request so far) answers `steps[k]`: a patch to apply, or text; past the last
 * step, `FINAL`. Any other request (Codex's side request for the task's title, which offers apply_patch alone, or one
 * not streamed) gets text; `GET /v1/models` an empty list.
 */
export type PatchStep = { patch: string } | { text: string };

// biome-ignore lint/suspicious/noExplicitAny: the wire format is read loosely by tests.
type Loose = any;

export interface PatchModel {
  /** The base URL with `/v1` (Codex's `base_url`). */
  url: string;
  /** Every request of the agent's own turns (not its side requests), in order. */
  requests: Loose[];
  /** The tool outputs of a request (`custom_tool_call_output`, `function_call_output`), in order. */
  outputs(request: Loose): { call_id: string; output: string }[];
  close(): Promise<void>;
}

const outputsOf = (request: Loose): { call_id: string; output: string }[] =>
  (Array.isArray(request?.input) ? request.input : [])
    .filter((item: Loose) => item?.type === "custom_tool_call_output" || item?.type === "function_call_output")
    .map((item: Loose) => ({
      call_id: String(item.call_id),
      output: typeof item.output === "string" ? item.output : JSON.stringify(item.output),
    }));

export async function startPatchModel(steps: PatchStep[]): Promise<PatchModel> {
  const requests: Loose[] = [];
  let n = 0;
  const server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    if (request.method === "GET") return json(response, { object: "list", data: [] });
    const body: Loose = text === "" ? {} : JSON.parse(text);
    n += 1;
    const tools: string[] = (Array.isArray(body.tools) ? body.tools : []).map((tool: Loose) => tool?.name);
    const offersPatch = tools.includes("apply_patch");
    // The agent's own turns offer its shell too; a side request (the task's title) offers apply_patch alone.
    const agentTurn = body.stream === true && tools.includes("exec_command");
    const step: PatchStep = agentTurn ? (steps[outputsOf(body).length] ?? { text: "FINAL" }) : { text: "OK" };
    if (agentTurn) requests.push(body);
    const item: Loose =
      "patch" in step && offersPatch
        ? { type: "custom_tool_call", id: `ctc_${n}`, call_id: `call_${n}`, name: "apply_patch", input: step.patch }
        : {
            type: "message",
            id: `msg_${n}`,
            role: "assistant",
            content: [
              { type: "output_text", text: "text" in step ? step.text : "no apply_patch offered", annotations: [] },
            ],
          };
    const done = { ...item, status: "completed" };
    const envelope = (output: Loose[], status: string) => ({
      id: `resp_${n}`,
      object: "response",
      created_at: 1_760_000_000,
      status,
      model: body.model,
      output,
      usage:
        status === "completed"
          ? {
              input_tokens: 10,
              input_tokens_details: { cached_tokens: 0 },
              output_tokens: 5,
              output_tokens_details: { reasoning_tokens: 0 },
              total_tokens: 15,
            }
          : null,
    });
    if (!body.stream) return json(response, envelope([done], "completed"));
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let sequence = 0;
    const send = (event: Loose) =>
      response.write(`event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`);
    send({ type: "response.created", response: envelope([], "in_progress") });
    if (item.type === "custom_tool_call") {
      send({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, input: "", status: "in_progress" },
      });
      send({ type: "response.custom_tool_call_input.delta", item_id: item.id, output_index: 0, delta: item.input });
      send({ type: "response.custom_tool_call_input.done", item_id: item.id, output_index: 0, input: item.input });
    } else {
      send({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, content: [], status: "in_progress" },
      });
      const words = item.content[0].text;
      send({ type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: words });
    }
    send({ type: "response.output_item.done", output_index: 0, item: done });
    send({ type: "response.completed", response: envelope([done], "completed") });
    response.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    outputs: outputsOf,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
