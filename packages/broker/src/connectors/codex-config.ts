import { ConnectorError } from "./connector-error.js";
import {
  describeLines,
  joinLines,
  OWNER_PREFIX,
  type Region,
  regionLines,
  splitLines,
  stripRegions,
  tomlProblem,
} from "./toml-regions.js";

/** The provider id Notify adds under `[model_providers]` (Codex reserves `openai`, `ollama` and `lmstudio`). */
export const CODEX_PROVIDER_ID = "notify-router";
export const ROUTER_KEY_HEADER = "x-notify-router-key";

/** What a connected Codex account is told. */
export interface CodexConnection {
  /** `{broker}/router/v1`. */
  baseUrl: string;
  routerKey: string;
  model: string;
  effort?: string | undefined;
  subagentModel?: string | undefined;
  subagentEffort?: string | undefined;
  reviewModel?: string | undefined;
  /** The generated catalogue's path. */
  catalogPath: string;
}

const toml = (value: string): string => JSON.stringify(value);

/**
 * config.toml keys (https://developers.openai.com/codex/config-reference; https://developers.openai.com/codex/config-sample):
 * root `model`, `model_provider`, `model_reasoning_effort`, `review_model` (the /review model) and
 * `model_catalog_json`; `[model_providers.<id>]` with `name`, `base_url`, `wire_api = "responses"` and
 * `http_headers` (static headers on every request: the router key travels in its own header, so Codex needs no
 * `env_key` and no bearer); `[agents]` `default_subagent_model` and `default_subagent_reasoning_effort` (fields of
 * Codex 0.169.0's `AgentsToml`). Root keys must come before any table, so the root region opens the file.
 */
function rootRegion(connection: CodexConnection): Region {
  const lines = [
    `model_provider = ${toml(CODEX_PROVIDER_ID)}`,
    `model = ${toml(connection.model)}`,
    `model_catalog_json = ${toml(connection.catalogPath)}`,
  ];
  if (connection.effort) lines.push(`model_reasoning_effort = ${toml(connection.effort)}`);
  if (connection.reviewModel) lines.push(`review_model = ${toml(connection.reviewModel)}`);
  return { name: "settings", lines };
}

function providerRegion(connection: CodexConnection): Region {
  return {
    name: "provider",
    lines: [
      `[model_providers.${CODEX_PROVIDER_ID}]`,
      'name = "Notify router"',
      `base_url = ${toml(connection.baseUrl)}`,
      'wire_api = "responses"',
      `http_headers = { ${toml(ROUTER_KEY_HEADER)} = ${toml(connection.routerKey)} }`,
    ],
  };
}

/** Keys Notify sets inside tables: `[agents]` (subagents). */
function tableKeys(connection: CodexConnection): Map<string, string[]> {
  const agents: string[] = [];
  if (connection.subagentModel) agents.push(`default_subagent_model = ${toml(connection.subagentModel)}`);
  if (connection.subagentEffort) agents.push(`default_subagent_reasoning_effort = ${toml(connection.subagentEffort)}`);
  const tables = new Map<string, string[]>();
  if (agents.length > 0) tables.set("agents", agents);
  return tables;
}

const keyOf = (line: string): string => line.slice(0, line.indexOf(" ="));

/**
 * The owner's file with Notify's regions (after taking out any earlier ones). An owner's root key, a key of a table
 * Notify adds keys to, or a line of `[model_providers.notify-router]` that a region sets is commented out, not
 * removed. A table the owner already has gets Notify's keys in a region right under its header (TOML allows a
 * table once); otherwise Notify's region at the end opens it.
 */
export function connectCodexConfig(ownerText: string, connection: CodexConnection): string {
  const parsed = splitLines(stripRegions(ownerText));
  const infos = describeLines(parsed.lines);
  const root = rootRegion(connection);
  const tables = tableKeys(connection);
  const rootKeys = new Set(root.lines.map(keyOf));
  const tableKeyNames = new Map([...tables].map(([table, lines]) => [table, new Set(lines.map(keyOf))]));
  const providerTable = `model_providers.${CODEX_PROVIDER_ID}`;
  const ownerTables = new Set<string>();

  const out: string[] = [...regionLines(root)];
  parsed.lines.forEach((line, index) => {
    const info = infos[index];
    if (info === undefined) return;
    const overridden =
      (info.key !== undefined &&
        ((info.table === "" && rootKeys.has(info.key)) || tableKeyNames.get(info.table)?.has(info.key) === true)) ||
      (info.table === providerTable && line.trim() !== "" && !line.trimStart().startsWith("#"));
    out.push(overridden ? `${OWNER_PREFIX}${line}` : line);
    const keys = info.header ? tables.get(info.table) : undefined;
    if (keys !== undefined && !ownerTables.has(info.table)) {
      ownerTables.add(info.table);
      out.push(...regionLines({ name: info.table, lines: keys }));
    }
  });
  // No blank lines of Notify's own outside the markers: taking the regions out must leave the owner's lines only.
  out.push(...regionLines(providerRegion(connection)));
  for (const [table, keys] of tables) {
    if (!ownerTables.has(table)) out.push(...regionLines({ name: table, lines: [`[${table}]`, ...keys] }));
  }
  return joinLines({ lines: out, newline: parsed.newline, trailing: true, bom: parsed.bom === true });
}

/**
 * A config.toml Codex cannot read is refused, naming the line, and left as it was: Notify's lines would only be
 * added to a file Codex already ignores, and the connect would look done (issue 31, item 6).
 */
export function checkCodexConfig(file: string, text: string): void {
  const problem = tomlProblem(text);
  if (problem !== undefined) {
    throw new ConnectorError(
      409,
      `cannot parse ${file} (${problem.message}); it was left as it was: fix it, then connect again`,
    );
  }
}

/** connectCodexConfig for `file`: the owner's text must parse, and so must the result, or nothing is written. */
export function connectCodexConfigFile(file: string, ownerText: string, connection: CodexConnection): string {
  checkCodexConfig(file, ownerText);
  const text = connectCodexConfig(ownerText, connection);
  const problem = tomlProblem(text);
  if (problem !== undefined) {
    throw new ConnectorError(
      409,
      `${file} would no longer parse with Notify's settings in it (${problem.message}): a key Notify sets is written ` +
        "in a form it does not edit (dotted keys or an inline table); it was left as it was",
    );
  }
  return text;
}

/** The owner's file without anything Notify wrote. */
export const disconnectCodexConfig = (text: string): string => stripRegions(text);
