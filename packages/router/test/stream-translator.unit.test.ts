import { describe, expect, it } from "vitest";
import { WIRES, type Wire } from "../src/index.js";
import { StreamTranslator } from "../src/stream-translator.js";
import { deterministic, fixtureChunks, fixtureExpectation, renderSse } from "./helpers.js";

// The proxy translates streams with StreamTranslator (synchronous); translateStream (web streams) is the same
// composition, pinned by the golden snapshots. Both must write the same bytes for every fixture and client wire.
const FIXTURES: { wire: Wire; name: string }[] = [
  ...WIRES.flatMap((wire) =>
    ["text", "tool-calls", "reasoning", "length"].map((name) => ({ wire, name: `${wire}-${name}` })),
  ),
  { wire: "responses", name: "responses-custom-tool" },
];

function run(upstream: Wire, client: Wire, sse: string, customToolNames: string[], size: number): string {
  const translator = new StreamTranslator(upstream, client, {
    ...deterministic(),
    includeUsage: true,
    customToolNames: new Set(customToolNames),
  });
  const bytes = new TextEncoder().encode(sse);
  let out = "";
  for (let offset = 0; offset < bytes.length; offset += size)
    out += translator.push(bytes.subarray(offset, offset + size));
  return out + translator.end();
}

describe.each(FIXTURES)("StreamTranslator on $name", ({ wire, name }) => {
  const sse = renderSse(wire, fixtureChunks(name));
  const custom = fixtureExpectation(name).customToolNames ?? [];
  it.each(WIRES)("to a %s client: the golden snapshot's bytes at every split", async (client) => {
    const { readFileSync } = await import("node:fs");
    const golden = readFileSync(new URL(`./__snapshots__/golden/${name}.to-${client}.sse`, import.meta.url), "utf8");
    for (const size of [1, 7, 13, 1 << 20]) expect(run(wire, client, sse, custom, size)).toBe(golden);
  });
});

describe("StreamTranslator failures", () => {
  it("a cut-off upstream ends in the client wire's error event; a failed body too", () => {
    const sse = renderSse("chat", fixtureChunks("chat-text"));
    const cut = sse.slice(0, sse.indexOf("[DONE]") - 6);
    const truncated = run("chat", "messages", cut, [], 64);
    expect(truncated).toContain("event: error");
    const translator = new StreamTranslator("messages", "responses", deterministic());
    const head = renderSse("messages", fixtureChunks("messages-text")).slice(0, 200);
    const text = translator.push(new TextEncoder().encode(head)) + translator.fail();
    expect(text).toContain("response.failed");
  });
});
