#!/usr/bin/env node
// Bundles the light entries of the CLI (issue 33, item 2): dist/cli/hook-line.js, the `notify hook` command line
// that agents run on every tool call, becomes dist/cli/hook-line.cjs, one CommonJS file with its dependencies in it,
// which main.js loads instead of some thirty modules. CommonJS because an ES module's `import` of a built-in module
// builds its whole namespace (node:fs's pulls in fs/promises and the stream modules), and `require` does not.
// node:crypto is replaced by cli/lazy-crypto.js, which loads Node's crypto module only when it is needed.
// The bundle ends with the files it was made from (relative to it), so main.js can tell when a later `tsc -b`
// changed one of them and use the modules instead.
//
// Usage: node packages/broker/scripts/bundle.mjs   (after tsc -b; npm run build runs it)
import { renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(PACKAGE, "dist", "cli");
const ENTRIES = [{ input: join(CLI, "hook-line.js"), output: join(CLI, "hook-line.cjs") }];

/** node:crypto, for the bundle: cli/lazy-crypto.js (built beside the entry). */
const lazyCrypto = {
  name: "notify-lazy-crypto",
  resolveId(source, importer) {
    if ((source === "node:crypto" || source === "crypto") && importer !== join(CLI, "lazy-crypto.js")) {
      return join(CLI, "lazy-crypto.js");
    }
    return null;
  },
};

/** Every module of the graph, the ones tree-shaking left out of the output too (a constant inlined from one). */
const graph = (ids) => ({
  name: "notify-module-graph",
  buildEnd() {
    ids.push(...this.getModuleIds());
  },
});

for (const entry of ENTRIES) {
  const warnings = [];
  const ids = [];
  const build = await rolldown({
    input: entry.input,
    platform: "node",
    plugins: [lazyCrypto, graph(ids)],
    onLog: (level, log) => {
      if (level === "warn") warnings.push(log.message);
    },
  });
  const { output } = await build.generate({ format: "cjs" });
  await build.close();
  if (warnings.length > 0 || output.length !== 1) {
    process.stderr.write(`bundle: ${entry.input}:\n${warnings.join("\n")}\n`);
    process.exit(1);
  }
  const [chunk] = output;
  // Files of this repository's packages only: dependencies change with `npm install`, which a rebuild follows.
  const inputs = ids
    .filter((id) => isAbsolute(id) && !id.includes(`${sep}node_modules${sep}`))
    .sort()
    .map((id) => relative(dirname(entry.output), id).split(sep).join("/"));
  // Written beside and renamed: a CLI starting meanwhile (a test run) reads the old bundle or the new, never half.
  const temporary = `${entry.output}.${process.pid}.tmp`;
  writeFileSync(temporary, `${chunk.code}\nexports.bundleInputs = ${JSON.stringify(inputs)};\n`);
  renameSync(temporary, entry.output);
}
