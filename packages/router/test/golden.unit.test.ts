import { describe, expect, it } from "vitest";
import { translateStream, WIRES, type Wire } from "../src/index.js";
import {
  byteStream,
  decodeSse,
  deterministic,
  type FixtureExpectation,
  fixtureChunks,
  fixtureExpectation,
  readText,
  renderSse,
  type Semantics,
  summarize,
} from "./helpers.js";

// docs/router.md, "Translation": every upstream stream reaches every client wire with the same text, the same
// tool-call arguments, the same usage and the same finish, whatever the chunk boundaries.
const FIXTURES: { wire: Wire; name: string }[] = [
  ...WIRES.flatMap((wire) =>
    ["text", "tool-calls", "reasoning", "length"].map((name) => ({ wire, name: `${wire}-${name}` })),
  ),
  { wire: "responses", name: "responses-custom-tool" },
];
const SPLITS = [1, 7, 13];

function translate(upstream: Wire, client: Wire, sse: string, expected: FixtureExpectation, size = 0) {
  const bytes = byteStream(sse, size);
  return readText(
    translateStream(upstream, client, bytes, {
      ...deterministic(),
      includeUsage: true,
      customToolNames: new Set(expected.customToolNames ?? []),
    }),
  );
}

/** What a client wire can carry of a reply: the messages wire does not break reasoning tokens out. */
function asSeenBy(client: Wire, expected: FixtureExpectation): Semantics {
  const { customToolNames: _names, ...semantics } = expected;
  if (client === "messages" && semantics.usage !== null)
    return { ...semantics, usage: { ...semantics.usage, reasoning: 0 } };
  return semantics;
}

describe.each(FIXTURES)("upstream fixture $name", ({ wire, name }) => {
  const chunks = fixtureChunks(name);
  const expected = fixtureExpectation(name);
  const sse = renderSse(wire, chunks);

  it("decodes to the recorded text, tool calls, usage and finish", async () => {
    expect(summarize(await decodeSse(wire, sse))).toEqual(asSeenBy(wire, expected));
  });

  it("decodes the same whatever the chunk boundaries and line endings", async () => {
    const whole = await decodeSse(wire, sse);
    for (const size of SPLITS) expect(await decodeSse(wire, sse, size)).toEqual(whole);
    expect(await decodeSse(wire, renderSse(wire, chunks, "\r\n"), 5)).toEqual(whole);
    expect(await decodeSse(wire, renderSse(wire, chunks, "\r"), 3)).toEqual(whole);
  });

  describe.each(WIRES)(`to a %s client`, (client) => {
    it("writes the checked-in stream, byte for byte, at every split", async () => {
      const output = await translate(wire, client, sse, expected);
      await expect(output).toMatchFileSnapshot(`./__snapshots__/golden/${name}.to-${client}.sse`);
      for (const size of SPLITS) expect(await translate(wire, client, sse, expected, size)).toBe(output);
    });

    it("carries the same meaning, read back with the client wire's decoder", async () => {
      const output = await translate(wire, client, sse, expected, 7);
      expect(summarize(await decodeSse(client, output))).toEqual(asSeenBy(client, asSeenBy(wire, expected)));
    });
  });
});
