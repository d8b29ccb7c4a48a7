import { readFileSync, statSync } from "node:fs";
import { extname } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { ExitError } from "../exit-error.js";

/** A configuration file is small; anything bigger is a mistake (a log, a binary), not a config. */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Reads an apply file: `.json` as JSON, `.yaml`/`.yml` as YAML, anything else JSON first and then YAML. Parse
 * errors give a line and column but never the source text around them, which could hold a secret.
 */
export function readApplyFile(path: string): unknown {
  let text: string;
  try {
    if (statSync(path).size > MAX_FILE_BYTES) throw new ExitError(1, `${path} is larger than 1 MiB`);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ExitError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ExitError(1, `cannot read ${path}${code === "ENOENT" ? ": no such file" : code ? ` (${code})` : ""}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const extension = extname(path).toLowerCase();
  if (extension === ".json") return parseJson(text, path);
  if (extension === ".yaml" || extension === ".yml") return parseYaml(text, path);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return parseYaml(text, path, "neither JSON nor valid YAML");
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8's messages quote the source near the error ('Unexpected token ... "{"token": sec"...'): keep the position.
    const position = /line (\d+) column (\d+)/.exec((error as Error).message);
    const where = position ? ` at line ${position[1]}, column ${position[2]}` : "";
    throw new ExitError(1, `${path} is not valid JSON${where}`);
  }
}

function parseYaml(text: string, path: string, what = "not valid YAML"): unknown {
  const lineCounter = new LineCounter();
  // YAML 1.2 core schema (no `yes`/`no` booleans), duplicate keys refused; messages without source excerpts.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const [problem] = [...document.errors, ...document.warnings];
  if (problem) {
    const { line, col } = lineCounter.linePos(problem.pos[0]);
    throw new ExitError(1, `${path} is ${what}: ${problem.message} at line ${line}, column ${col}`);
  }
  return document.toJS({ maxAliasCount: 100 }) as unknown;
}
