// Writes the JSON Schema files under schemas/ from the zod source (run after `tsc -b`).
import { mkdirSync, writeFileSync } from "node:fs";
import { contractSchemas } from "../dist/json-schema.js";

const directory = new URL("../schemas/", import.meta.url);
mkdirSync(directory, { recursive: true });
for (const [name, schema] of Object.entries(contractSchemas())) {
  writeFileSync(new URL(name, directory), `${JSON.stringify(schema, null, 2)}\n`);
  process.stderr.write(`wrote schemas/${name}\n`);
}
