/**
 * Code mode for MCP namespaces: the namespace's tools as typed stubs (TypeScript declarations, a Python stub),
 * the preludes that give a sandboxed program its `tools` object, and the tool channel between that program and
 * the router.
 *
 * @packageDocumentation
 */
export {
  ChannelProtocolError,
  createLineSplitter,
  decodeToolCallRequest,
  decodeToolCallResponse,
  encodeChannelMessage,
  type LineSplitter,
  type ToolCallRequest,
  type ToolCallResponse,
} from "./channel-protocol.js";
export { type CodeModeDescriptionOptions, codeModeDescription } from "./code-mode-description.js";
export { type CodeModeTool, RESULT_RULE, type StubOptions } from "./code-mode-tool.js";
export {
  type DefinitionTokenCounts,
  type DefinitionTokenInput,
  definitionTokenCounts,
} from "./definition-tokens.js";
export { baseIdentifier, parameterIdentifiers, toolIdentifiers } from "./identifiers.js";
export {
  type CodeModeManifest,
  codeModeManifest,
  JAVASCRIPT_PRELUDE_FILE,
  javascriptPrelude,
  type ManifestTool,
  type PreludeOptions,
  PYTHON_PRELUDE_FILE,
  pythonPrelude,
  type ToolChannelEndpoint,
} from "./preludes.js";
export { type ProgramOutcome, programOutcome, type ToolResultLike } from "./program-result.js";
export { pythonStub } from "./python-stub.js";
export type { SchemaTypeLimits } from "./schema-types.js";
export { pythonType, typescriptType } from "./schema-types.js";
export {
  serveToolChannel,
  type ToolChannel,
  type ToolChannelCall,
  type ToolChannelHandler,
  type ToolChannelOptions,
  type ToolChannelSummary,
} from "./tool-channel-server.js";
export { typescriptDeclarations } from "./typescript-declarations.js";
