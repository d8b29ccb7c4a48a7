import type { ModelListSource, PresetKind } from "@notify/contracts/enums";
import type { RecordWire, UpstreamAuth } from "../config/records.js";

/**
 * The preset catalogue (docs/router.md, "Presets"): fifteen providers a user picks instead of typing a base URL.
 * A preset fills everything but the key: slug, label, wire, base URL, how the upstream authenticates, and which wire
 * each model family uses (prefix rules). Base URLs are the vendors' public ones; every entry names its source.
 *
 * The table of docs/router.md, "Presets", row by row:
 * | 2 | subscription sign-in of another tool (plan_signin_a, plan_signin_b) | responses wire |
 * | 1 | flat-plan service with API key, per-model wires                      | chat by default |
 * | 1 | per-token gateway with per-model wires                               | chat by default |
 * | 2 | per-token services                                                   | responses wire |
 * | 1 | per-token service                                                    | messages wire  |
 * | 6 | per-token services, including one aggregator                         | chat wire      |
 * | 2 | local servers on this computer (loopback)                            | chat wire      |
 */

/**
 * Smart switching's cost kinds (docs/router.md, "Smart switching"), as a preset declares its own: the contract's list.
 */
export type { PresetKind };

/**
 * A model family by the start of its ID, and the wire the provider serves it on; `null` is a wire the router does
 * not speak (such models are left out of the model list).
 */
export interface PrefixRule {
  prefix: string;
  wire: RecordWire | null;
}

/** Another tool on this computer that may hold a plain API key for the same provider (read only when asked). */
export type KeySourceId = "codex" | "claude_code";

export interface Preset {
  slug: string;
  label: string;
  kind: PresetKind;
  /** The upstream's own wire: what a model no prefix rule names is served on. */
  wire: RecordWire;
  base_url: string;
  auth: UpstreamAuth;
  /** Whether the provider wants a key (local servers and subscriptions need none). */
  needs_key: boolean;
  /** First match wins; matched case-insensitively on the model ID without a vendor path prefix. */
  prefix_rules: readonly PrefixRule[];
  /** `provider`: GET <base_url>/models; `host_cache`: the host tool's own cached list (no public list). */
  model_list: ModelListSource;
  key_sources: readonly KeySourceId[];
  /** The one aggregator among the per-token chat-wire services. */
  aggregator?: boolean;
  /** Where the facts come from. */
  source: string;
}

// OpenCode Zen (per-token gateway) and OpenCode Go (flat plan) serve each model family on its own endpoint under one
// base URL: anomalyco/opencode, packages/web/src/content/docs/zen.mdx and go.mdx, section "Endpoints" (the tables
// of model ID -> https://opencode.ai/zen/v1/{messages,responses,chat/completions} and .../zen/go/v1/...). Zen's
// Gemini models answer on Google's own wire (/v1/models/<id>), which the router does not speak.
const ZEN_RULES: readonly PrefixRule[] = [
  { prefix: "claude-", wire: "messages_wire" },
  { prefix: "qwen3", wire: "messages_wire" },
  { prefix: "gpt-", wire: "responses_wire" },
  { prefix: "gemini-", wire: null },
];
// Go: MiniMax and Qwen on the messages wire; GPT, Grok and Muse on the responses wire; the rest on chat.
const GO_RULES: readonly PrefixRule[] = [
  { prefix: "minimax-", wire: "messages_wire" },
  { prefix: "qwen3", wire: "messages_wire" },
  { prefix: "gpt-", wire: "responses_wire" },
  { prefix: "grok-", wire: "responses_wire" },
  { prefix: "muse-", wire: "responses_wire" },
];

// The vendors' own /models lists also name models that take no conversation at all (embeddings, speech, images,
// moderation); they are left out. OpenAI: platform.openai.com/docs/models (model families); Mistral:
// docs.mistral.ai/getting-started/models; Groq: console.groq.com/docs/models (speech-to-text and text-to-speech).
const OPENAI_NON_CHAT: readonly PrefixRule[] = [
  "text-embedding-",
  "whisper-",
  "tts-",
  "dall-e-",
  "gpt-image-",
  "omni-moderation-",
  "text-moderation-",
  "davinci-",
  "babbage-",
  "sora-",
].map((prefix) => ({ prefix, wire: null }));

export const PRESETS: readonly Preset[] = [
  {
    slug: "codex-plan",
    label: "ChatGPT plan (Codex sign-in)",
    kind: "subscription",
    wire: "responses_wire",
    // Codex's ChatGPT-backend provider: openai/codex codex-rs/core/src/model_provider_info.rs (base
    // https://chatgpt.com/backend-api/codex for ChatGPT auth); its model list is Codex's own cache,
    // $CODEX_HOME/models_cache.json (codex-rs/core/src/models_manager/cache.rs, manager.rs MODEL_CACHE_FILE).
    base_url: "https://chatgpt.com/backend-api/codex",
    auth: "plan_signin_a",
    needs_key: false,
    prefix_rules: [],
    model_list: "host_cache",
    key_sources: [],
    source: "openai/codex: model_provider_info.rs (ChatGPT backend), models_manager/cache.rs (models_cache.json)",
  },
  {
    slug: "codex-plan-key",
    label: "ChatGPT plan key (Codex sign-in)",
    kind: "subscription",
    wire: "responses_wire",
    // The sign-in's identity token exchanged for an API key (openai/codex codex-rs/login: token exchange with
    // requested_token=openai-api-key at auth.openai.com), which then speaks the public API.
    base_url: "https://api.openai.com/v1",
    auth: "plan_signin_b",
    needs_key: false,
    prefix_rules: OPENAI_NON_CHAT,
    model_list: "host_cache",
    key_sources: [],
    source:
      "openai/codex: codex-rs/login (identity token exchanged for an API key); platform.openai.com/docs/api-reference",
  },
  {
    slug: "opencode-go",
    label: "OpenCode Go",
    kind: "flat_plan",
    wire: "chat_wire",
    base_url: "https://opencode.ai/zen/go/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: GO_RULES,
    model_list: "provider",
    key_sources: [],
    source: "opencode.ai/docs/go (anomalyco/opencode packages/web/src/content/docs/go.mdx, Endpoints)",
  },
  {
    slug: "opencode-zen",
    label: "OpenCode Zen",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://opencode.ai/zen/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: ZEN_RULES,
    model_list: "provider",
    key_sources: [],
    source: "opencode.ai/docs/zen (anomalyco/opencode packages/web/src/content/docs/zen.mdx, Endpoints)",
  },
  {
    slug: "openai",
    label: "OpenAI",
    kind: "per_token",
    wire: "responses_wire",
    base_url: "https://api.openai.com/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: OPENAI_NON_CHAT,
    model_list: "provider",
    // Codex keeps a plain API key in auth.json's OPENAI_API_KEY (openai/codex codex-rs/login/src/auth/storage.rs).
    key_sources: ["codex"],
    source: "platform.openai.com/docs/api-reference/responses and /models/list",
  },
  {
    slug: "xai",
    label: "xAI",
    kind: "per_token",
    wire: "responses_wire",
    base_url: "https://api.x.ai/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [
      { prefix: "grok-imagine-", wire: null },
      { prefix: "grok-2-image", wire: null },
    ],
    model_list: "provider",
    key_sources: [],
    source: "docs.x.ai/docs/api-reference (POST /v1/responses, GET /v1/models)",
  },
  {
    slug: "anthropic",
    label: "Anthropic",
    kind: "per_token",
    wire: "messages_wire",
    base_url: "https://api.anthropic.com/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [],
    model_list: "provider",
    // Claude Code keeps a plain API key as primaryApiKey in ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json).
    key_sources: ["claude_code"],
    source: "docs.anthropic.com/en/api/messages and /en/api/models-list",
  },
  {
    slug: "openrouter",
    label: "OpenRouter",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://openrouter.ai/api/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [],
    model_list: "provider",
    key_sources: [],
    aggregator: true,
    source: "openrouter.ai/docs/api-reference (POST /api/v1/chat/completions, GET /api/v1/models)",
  },
  {
    slug: "deepseek",
    label: "DeepSeek",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://api.deepseek.com",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [],
    model_list: "provider",
    key_sources: [],
    source: "api-docs.deepseek.com (base_url https://api.deepseek.com, /chat/completions, /models)",
  },
  {
    slug: "mistral",
    label: "Mistral",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://api.mistral.ai/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [
      { prefix: "mistral-embed", wire: null },
      { prefix: "codestral-embed", wire: null },
      { prefix: "mistral-ocr", wire: null },
      { prefix: "mistral-moderation", wire: null },
    ],
    model_list: "provider",
    key_sources: [],
    source: "docs.mistral.ai/api (POST /v1/chat/completions, GET /v1/models)",
  },
  {
    slug: "groq",
    label: "Groq",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://api.groq.com/openai/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [
      { prefix: "whisper-", wire: null },
      { prefix: "distil-whisper-", wire: null },
      { prefix: "playai-tts", wire: null },
    ],
    model_list: "provider",
    key_sources: [],
    source: "console.groq.com/docs/openai (base_url https://api.groq.com/openai/v1)",
  },
  {
    slug: "together",
    label: "Together AI",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://api.together.xyz/v1",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [],
    model_list: "provider",
    key_sources: [],
    source: "docs.together.ai/reference (POST /v1/chat/completions; GET /v1/models answers a bare array)",
  },
  {
    slug: "zai",
    label: "Z.ai (GLM)",
    kind: "per_token",
    wire: "chat_wire",
    base_url: "https://api.z.ai/api/paas/v4",
    auth: "api_key",
    needs_key: true,
    prefix_rules: [],
    model_list: "provider",
    key_sources: [],
    source: "docs.z.ai/api-reference (base https://api.z.ai/api/paas/v4, /chat/completions)",
  },
  {
    slug: "ollama",
    label: "Ollama (this computer)",
    kind: "local",
    wire: "chat_wire",
    // Ollama listens on 127.0.0.1:11434 and serves an OpenAI-compatible API under /v1 (ollama/ollama docs/openai.md).
    base_url: "http://127.0.0.1:11434/v1",
    auth: "api_key",
    needs_key: false,
    prefix_rules: [],
    model_list: "provider",
    key_sources: [],
    source: "ollama/ollama docs/openai.md (http://localhost:11434/v1) and docs/faq.md (default bind 127.0.0.1:11434)",
  },
  {
    slug: "lmstudio",
    label: "LM Studio (this computer)",
    kind: "local",
    wire: "chat_wire",
    // LM Studio's local server defaults to port 1234 with OpenAI-compatible endpoints under /v1.
    base_url: "http://127.0.0.1:1234/v1",
    auth: "api_key",
    needs_key: false,
    prefix_rules: [],
    model_list: "provider",
    key_sources: [],
    source: "lmstudio.ai/docs/app/api/endpoints/openai (http://localhost:1234/v1)",
  },
];

export function presetBySlug(slug: string): Preset | undefined {
  return PRESETS.find((preset) => preset.slug === slug);
}

/**
 * Where the flat-plan presets live, as `host/path` (smart switching's cost order, rule 2). The host alone is not
 * enough: opencode.ai serves the flat plan under /zen/go and the per-token gateway under /zen.
 */
export const FLAT_PLAN_BASES: ReadonlySet<string> = new Set(
  PRESETS.filter((preset) => preset.kind === "flat_plan").map((preset) => {
    const url = new URL(preset.base_url);
    return `${url.hostname}${url.pathname}`.replace(/\/+$/, "");
  }),
);

/** The preset whose base URL is exactly this one (after the record's normalization: no trailing slash). */
export function presetForBaseUrl(baseUrl: string): Preset | undefined {
  const wanted = baseUrl.replace(/\/+$/, "").toLowerCase();
  return PRESETS.find((preset) => preset.base_url.toLowerCase() === wanted);
}
