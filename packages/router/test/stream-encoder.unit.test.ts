import { describe, expect, it } from "vitest";
import { type StreamPart, WIRE_CODECS, WIRES, type Wire } from "../src/index.js";
import { deterministic } from "./helpers.js";

/** What one wire's stream encoder writes to the client for `parts`. */
async function encode(wire: Wire, parts: StreamPart[]): Promise<string> {
  const source = new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  let text = "";
  for await (const frame of source.pipeThrough(WIRE_CODECS[wire].encodeStream(deterministic()))) text += frame;
  return text;
}

const STOP: StreamPart = { type: "finish", reason: { unified: "stop", raw: "stop" } };

describe.each(WIRES)("the %s stream encoder", (wire) => {
  it("ends parts that stop without a finish as a cut-off upstream: the wire's failure, never its success", async () => {
    const cut = await encode(wire, [{ type: "text-start" }, { type: "text-delta", text: "Hel" }]);
    expect(cut).toContain("upstream stream ended before its terminal event");
    const whole = await encode(wire, [{ type: "text-start" }, { type: "text-delta", text: "Hel" }, STOP]);
    expect(whole).not.toContain("upstream stream ended before its terminal event");
  });

  it("writes nothing for the parts after the first finish or error", async () => {
    const finished = await encode(wire, [{ type: "text-delta", text: "Hello" }, STOP]);
    const late: StreamPart[] = [
      { type: "text-delta", text: "late" },
      { type: "error", code: "upstream_error", message: "late failure" },
      STOP,
    ];
    expect(await encode(wire, [{ type: "text-delta", text: "Hello" }, STOP, ...late])).toBe(finished);
    const failed = [{ type: "error", code: "upstream_error", message: "boom" }] satisfies StreamPart[];
    expect(await encode(wire, [...failed, ...late])).toBe(await encode(wire, failed));
  });
});
