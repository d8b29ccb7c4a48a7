export { type ApiReply, type BrokerApi, brokerApi } from "./broker-api.js";
export type { Json } from "./json.js";
export {
  type Action,
  type Hit,
  MOCK_USAGE,
  type MockWire,
  ModelMock,
  type ModelMockOptions,
  type Reply,
  resultText,
  startModelMock,
  TOOL_ARGUMENTS,
  type ToolResult,
  type Turn,
  type Usage,
} from "./model-mock.js";
export { ENROLLMENT_TOKEN } from "./relay.js";
export { removeTempDirs, tempDir } from "./temp-dirs.js";
export { type UntilValueOptions, until, untilValue } from "./wait.js";
