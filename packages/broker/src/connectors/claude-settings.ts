import { ROUTER_KEY_HEADER } from "./codex-config.js";

/**
 * Host B's settings (docs/connectors.md, "Claude Code: settings.json"), written into the account's `settings.json` by a
 * JSON merge that touches only these keys (https://code.claude.com/docs/en/settings "Environment variables", "Available
 * settings"; https://code.claude.com/docs/en/model-config "Environment variables";
 * https://code.claude.com/docs/en/llm-gateway):
 * - `env.ANTHROPIC_BASE_URL`: Claude Code appends `/v1/messages`, so it is the broker's `/router`.
 * - `env.ANTHROPIC_CUSTOM_HEADERS`: newline-separated `Name: value` lines; the router key line goes after the
 *   owner's lines, so the agent's own credential stays its own (docs/router.md, "Authentication").
 * - `env.ANTHROPIC_DEFAULT_OPUS_MODEL`, `_SONNET_MODEL`, `_HAIKU_MODEL`: the models behind the built-in entries.
 * - `env.CLAUDE_CODE_SUBAGENT_MODEL`: the subagent model.
 * - `modelPicker` `{options: [{model, label, description, behavesAs}], replaceBuiltInOptions}`: one picker row per
 *   routed selector (Claude Code 2.1.330's settings schema: "Curate the /model picker"; `behavesAs` names a model
 *   this version knows whose client-side handling applies). `replaceBuiltInOptions` is the "replace the host's own
 *   lineup" switch, off unless asked.
 * No `ANTHROPIC_AUTH_TOKEN` or API key setting is ever written.
 */

export interface ClaudeConnection {
  /** `{broker}/router`. */
  baseUrl: string;
  routerKey: string;
  model: string;
  smallModel?: string | undefined;
  subagentModel?: string | undefined;
  /** Every routed selector with the native model it names (when it is `provider/model`). */
  selectors: { id: string; model?: string | undefined }[];
  replaceLineup: boolean;
}

/** The dotted names of everything Notify may set, for recording and restoring prior values. */
export const MANAGED_ENV = [
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_CUSTOM_HEADERS",
  "ANTHROPIC_DEFAULT_OPUS_MODEL",
  "ANTHROPIC_DEFAULT_SONNET_MODEL",
  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
  "CLAUDE_CODE_SUBAGENT_MODEL",
] as const;

/** A known model of Claude Code 2.1.330 that a routed selector of no known family behaves as. */
export const DEFAULT_BEHAVES_AS = "claude-sonnet-4-6";

type Json = Record<string, unknown>;

/** What a key held before Notify set it (absent: it was not there). */
export type Prior = { present: false } | { present: true; value: unknown };

/** Prior values of env keys and of `modelPicker`, recorded at the first connect. */
export interface ClaudePrior {
  /** The settings had an `env` object. */
  envPresent: boolean;
  env: Record<string, Prior>;
  modelPicker: Prior;
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The `behavesAs` for a selector: its own native model when that is a Claude model ID, else a known default. */
export function behavesAs(model: string | undefined): string {
  const family = model?.match(/claude-(?:opus|sonnet|haiku|fable)-\d[\w.-]*/)?.[0];
  return family ?? DEFAULT_BEHAVES_AS;
}

/** The owner's header lines without any router key line, then the router key's. */
export function mergedHeaders(owner: unknown, routerKey: string): string {
  const lines = typeof owner === "string" ? owner.split("\n").filter((line) => line.trim() !== "") : [];
  const kept = lines.filter((line) => line.split(":")[0]?.trim().toLowerCase() !== ROUTER_KEY_HEADER);
  return [...kept, `${ROUTER_KEY_HEADER}: ${routerKey}`].join("\n");
}

/** Records what the keys Notify sets held before (only called while none of Notify's values is in the file). */
export function recordPrior(document: Json): ClaudePrior {
  const env = isObject(document.env) ? document.env : {};
  const prior: ClaudePrior = { envPresent: isObject(document.env), env: {}, modelPicker: { present: false } };
  for (const name of MANAGED_ENV) {
    prior.env[name] = name in env ? { present: true, value: env[name] } : { present: false };
  }
  if ("modelPicker" in document) prior.modelPicker = { present: true, value: document.modelPicker };
  return prior;
}

function pickerRows(connection: ClaudeConnection): Json[] {
  return connection.selectors.map((selector) => ({
    model: selector.id,
    label: selector.id,
    description: "Through the Notify router",
    behavesAs: behavesAs(selector.model),
  }));
}

/**
 * The settings with Notify's values merged in; the owner's other keys (and other env entries) stay as they are.
 * `prior` is the state from before the first connect: a rewrite starts from it, not from Notify's own last values.
 */
export function connectClaudeSettings(document: Json, prior: ClaudePrior, connection: ClaudeConnection): Json {
  const next = structuredClone(document);
  const env: Json = isObject(next.env) ? next.env : {};
  const ownerHeaders = prior.env.ANTHROPIC_CUSTOM_HEADERS;
  env.ANTHROPIC_BASE_URL = connection.baseUrl;
  env.ANTHROPIC_CUSTOM_HEADERS = mergedHeaders(
    ownerHeaders?.present ? ownerHeaders.value : undefined,
    connection.routerKey,
  );
  env.ANTHROPIC_DEFAULT_OPUS_MODEL = connection.model;
  env.ANTHROPIC_DEFAULT_SONNET_MODEL = connection.model;
  env.ANTHROPIC_DEFAULT_HAIKU_MODEL = connection.smallModel ?? connection.model;
  const subagent = prior.env.CLAUDE_CODE_SUBAGENT_MODEL;
  if (connection.subagentModel) env.CLAUDE_CODE_SUBAGENT_MODEL = connection.subagentModel;
  else if (subagent?.present) env.CLAUDE_CODE_SUBAGENT_MODEL = subagent.value;
  else delete env.CLAUDE_CODE_SUBAGENT_MODEL;
  next.env = env;
  const ownerPicker = prior.modelPicker.present && isObject(prior.modelPicker.value) ? prior.modelPicker.value : {};
  const ownerRows = Array.isArray(ownerPicker.options) ? ownerPicker.options : [];
  const routed = new Set(connection.selectors.map((selector) => selector.id));
  next.modelPicker = {
    ...ownerPicker,
    options: [
      ...ownerRows.filter((row) => !(isObject(row) && routed.has(row.model as string))),
      ...pickerRows(connection),
    ],
    replaceBuiltInOptions: connection.replaceLineup || ownerPicker.replaceBuiltInOptions === true,
  };
  return next;
}

/** The settings with every key Notify set back to its prior value (or removed when it had none). */
export function disconnectClaudeSettings(document: Json, prior: ClaudePrior): Json {
  const next = structuredClone(document);
  if (isObject(next.env)) {
    const env = next.env;
    for (const name of MANAGED_ENV) {
      const before = prior.env[name];
      if (before?.present) env[name] = before.value;
      else delete env[name];
    }
    // An env object Notify created, with nothing else put in it since, goes again.
    if (Object.keys(env).length === 0 && !prior.envPresent) delete next.env;
  }
  if (prior.modelPicker.present) next.modelPicker = prior.modelPicker.value;
  else delete next.modelPicker;
  return next;
}
