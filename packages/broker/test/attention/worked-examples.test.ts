/**
 * Issue 24: docs/routing.md's worked examples are pasteable into `notify apply`. Each ```yaml block under "Worked
 * examples" is applied as written to a real broker (the relay provider enrolled at a real relay, the two webhook
 * providers the examples name created first), and `notify outbound list` must print the DELIVERY line the docs
 * quote for it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { sqliteRelay } from "@notify/test-kit/relay-harness";
import { describe, expect, it } from "vitest";
import { applyInProcess } from "../cli/apply-in-process.js";
import { runCli, startCliBroker } from "../cli/cli-harness.js";
import { uiSend } from "../cli/outbound-helpers.js";
import { tempDir } from "../helpers.js";

const DOC = fileURLToPath(new URL("../../../../docs/routing.md", import.meta.url));

/** The worked examples: each yaml block (dedented) and the DELIVERY lines quoted in backticks after it. */
function workedExamples(): { yaml: string; lines: string[] }[] {
  const text = readFileSync(DOC, "utf8");
  const section = text.slice(text.indexOf("## Worked examples"));
  const examples: { yaml: string; lines: string[] }[] = [];
  const blocks = [...section.matchAll(/^( *)```yaml\n([\s\S]*?)\n\1```\n/gm)];
  blocks.forEach((block, index) => {
    const indent = block[1]?.length ?? 0;
    const yaml = (block[2] ?? "")
      .split("\n")
      .map((line) => line.slice(indent))
      .join("\n");
    const after = section.slice((block.index ?? 0) + block[0].length, blocks[index + 1]?.index ?? section.length);
    const lines = [...after.matchAll(/`([A-Za-z][\w-]*: [^`]+)`/g)].map((match) => match[1] as string);
    examples.push({ yaml: `${yaml}\n`, lines });
  });
  return examples;
}

describe("docs/routing.md, Worked examples", () => {
  it("has three examples, each quoting the DELIVERY line notify outbound list prints", () => {
    const examples = workedExamples();
    expect(examples).toHaveLength(3);
    for (const example of examples) expect(example.lines.length).toBeGreaterThan(0);
  });

  it("each applies as written, and notify outbound list prints the lines the docs quote", async () => {
    const relay = sqliteRelay();
    const relayUrl = await relay.listen();
    const broker = await startCliBroker();
    try {
      const dir = tempDir("notify-routing-examples-");
      // The providers the examples name: the relay (enrolled through the broker's API, as `notify relay enroll`
      // does) and two webhooks (nothing is sent), applied in this process: the runs this test is about are the
      // examples' own and the listings after them, each the spawned CLI.
      await uiSend(broker, "POST", "/relay/enroll", { url: relayUrl, enrollmentToken: ENROLLMENT_TOKEN });
      const providers = join(dir, "providers.yaml");
      writeFileSync(
        providers,
        [
          "outbound:",
          "  providers:",
          "    - { name: team-hook, kind: webhook, enabled: true, settings: { url: 'http://127.0.0.1:9/team' } }",
          "    - { name: pager, kind: webhook, enabled: true, settings: { url: 'http://127.0.0.1:9/pager' } }",
          "",
        ].join("\n"),
      );
      await applyInProcess(broker, providers);

      for (const [index, example] of workedExamples().entries()) {
        const file = join(dir, `example-${index + 1}.yaml`);
        writeFileSync(file, example.yaml);
        const result = await runCli(["apply", file, ...broker.target]);
        expect(result.code, `example ${index + 1}: ${result.stderr}`).toBe(0);
        const listed = await runCli(["outbound", "list", ...broker.target]);
        expect(listed.code).toBe(0);
        const delivery = listed.stdout.slice(listed.stdout.indexOf("DELIVERY\n"));
        for (const line of example.lines) expect(delivery, `example ${index + 1}`).toContain(`  ${line}\n`);
      }
      // The first example changed the route enrollment made; no route to the phone still sends at once.
      const routes = await broker.api<{ name: string; providerId: string }[]>("GET", "/ui/api/outbound/routes");
      expect(routes.body.filter((route) => route.name === "relay")).toHaveLength(1);
    } finally {
      await broker.close();
      relay.app.server.closeAllConnections();
      await relay.close();
    }
  }, 60_000);
});
