export * from "./arc/schemas.js";
export { DIGEST_PATTERN, type DigestChoice, type DigestInput, digestDocument, requestDigest } from "./digest.js";
export { contractSchemas } from "./json-schema.js";
export {
  type ArcCreateRequest,
  type ArcEventOptions,
  type ArcEventResult,
  type ArcExtensions,
  ArcHttpError,
  type ArcInteraction,
  type ArcInteractionStatus,
  type ArcNotification,
  type ArcOutcome,
  ArcProducer,
  type ArcProducerOptions,
  type ArcUpdateRequest,
  type WaitOptions,
} from "./producer.js";
export * from "./relay/api.js";
export { RELAY_CONTRACT_VERSION, RelayAnswer, RelayInteractionRequest } from "./relay/schemas.js";
export { type BackoffOptions, backoffMs, delay, type HeaderBag, MAX_TIMER_MS, retryAfterMs } from "./retry.js";
export * from "./routing.js";
export {
  formatProblems,
  jsonPath,
  type Problem,
  type Validation,
  validateArcEvent,
  validateRelayAnswer,
  validateRelayInteractionRequest,
} from "./validate.js";
