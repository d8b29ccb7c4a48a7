export const ROUTER_PACKAGE = "@notify/router";

export { type CollectedReply, collectReply } from "./collect-reply.js";
export { AccountInputError, type SavedAccount } from "./config/accounts.js";
export { RouterConfig, RouterConfigError } from "./config/config-service.js";
export type { EffortOverrides, EffortScope } from "./config/effort-config.js";
export {
  type ConfigSnapshot,
  destinationProblem,
  normalizedBaseUrl,
  RECORD_WIRES,
  type RecordWire,
  type Route,
  type RouterSettings,
  type Upstream,
} from "./config/records.js";
export { type KeySealer, migrateRouterDatabase } from "./config/store.js";
export {
  EFFORT_FAMILIES,
  EFFORT_LEVELS,
  type EffortFamily,
  type EffortLevel,
  familyById,
  familyOf,
} from "./effort/families.js";
export {
  automaticTable,
  type EffortDecision,
  type EffortOverride,
  type EffortTable,
  effortTable,
  mapEffort,
  overrideProblem,
} from "./effort/mapping.js";
export { type EffortView, effortView } from "./effort/view.js";
export { readEffort, writeEffort } from "./effort/wire-fields.js";
export { allCoolingAnswer, CooldownBook, cooldownMs, FAILOVER_STATUSES } from "./failover.js";
export { type RouterPluginOptions, type RouterRuntimeSettings, routerPlugin } from "./http/plugin.js";
export { type IdGenerator, randomId, sequentialIds } from "./ids.js";
export type {
  AssistantMessage,
  DecodedRequest,
  FinishReason,
  ImagePart,
  Message,
  Reply,
  ReplyPart,
  Request,
  StreamPart,
  TextPart,
  Tool,
  ToolCallPart,
  ToolChoice,
  ToolMessage,
  ToolResultPart,
  UnifiedFinishReason,
  Usage,
  UserMessage,
  Warning,
  WarningCode,
  Wire,
} from "./ir.js";
export { WIRES } from "./ir.js";
export { type AttemptRecord, Ledger, type RequestRecord } from "./ledger/ledger.js";
export { DEFAULT_NATIVE_BASE_URL, isNativeFamily } from "./native.js";
export {
  FLAT_PLAN_BASES,
  type KeySourceId,
  PRESETS,
  type PrefixRule,
  type Preset,
  type PresetKind,
  presetBySlug,
  presetForBaseUrl,
} from "./presets/catalogue.js";
export { ruleWireFor, type WiredModels, wireModels } from "./presets/model-wires.js";
export { type StrippedIds, stripReplayedIds } from "./replayed-ids.js";
export { createRouter, type RouterOptions, type RouterServices } from "./router.js";
export { type Selection, selectTargets, type Target } from "./select.js";
export { FLAT_PLAN_HOSTS, isFlatPlanUrl } from "./smart-switching.js";
export { encodeSseEvent, type SseEvent, sseDecoderStream } from "./sse.js";
export { AGENT_ACCOUNTS_KEY, type AgentAccountEntry, parseAgentAccounts } from "./subscriptions/agent-accounts.js";
export type { ReconcileReport } from "./subscriptions/apply-reconcile.js";
export { CODEX_CLIENT_ID, CODEX_TOKEN_URL } from "./subscriptions/auth-server.js";
export { defaultCodexHome, readSigninFile, type SigninEnv } from "./subscriptions/signin-file.js";
export { isKeyTool, type KeyTool, TOOL_KEY_SOURCES, toolApiKey } from "./subscriptions/tool-keys.js";
export type { SubscriptionOptions } from "./subscriptions/upstream-credentials.js";
export {
  clientWantsUsage,
  decodeUpstreamStream,
  type TranslatedRequest,
  type TranslateRequestOptions,
  type TranslateResponseOptions,
  type TranslateStreamOptions,
  translateRequest,
  translateResponse,
  translateStream,
} from "./translate.js";
export { TranslationError, type TranslationErrorCode } from "./translation-error.js";
export { CONNECTION_FAILED_MESSAGE, providerErrorCode, TRUNCATED_STREAM_MESSAGE } from "./upstream-error.js";
export { DEFAULT_TIMEOUTS, type UpstreamTimeouts } from "./upstreams/client.js";
export { chatRequestWantsUsage, decodeChatRequest } from "./wires/chat/decode-request.js";
export { decodeChatResponse } from "./wires/chat/decode-response.js";
export { decodeChatStream } from "./wires/chat/decode-stream.js";
export { encodeChatRequest } from "./wires/chat/encode-request.js";
export { encodeChatResponse } from "./wires/chat/encode-response.js";
export { encodeChatStream } from "./wires/chat/encode-stream.js";
export { WIRE_CODECS, type WireCodec } from "./wires/codecs.js";
export type { EncodeOptions } from "./wires/encode-options.js";
export { decodeMessagesRequest } from "./wires/messages/decode-request.js";
export { decodeMessagesResponse } from "./wires/messages/decode-response.js";
export { decodeMessagesStream } from "./wires/messages/decode-stream.js";
export { DEFAULT_MAX_TOKENS, encodeMessagesRequest } from "./wires/messages/encode-request.js";
export { encodeMessagesResponse } from "./wires/messages/encode-response.js";
export { encodeMessagesStream } from "./wires/messages/encode-stream.js";
export { type DecodeResponsesRequestOptions, decodeResponsesRequest } from "./wires/responses/decode-request.js";
export { decodeResponsesResponse } from "./wires/responses/decode-response.js";
export { decodeResponsesStream } from "./wires/responses/decode-stream.js";
export { encodeResponsesRequest } from "./wires/responses/encode-request.js";
export { encodeResponsesResponse } from "./wires/responses/encode-response.js";
export { encodeResponsesStream } from "./wires/responses/encode-stream.js";
