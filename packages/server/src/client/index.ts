/**
 * A typed client of a Trestle router's management API, for programs that manage a router: catalog, namespaces,
 * forwards, services, code execution and event streams (Server-Sent Events with reconnect and `Last-Event-ID`).
 * It loads nothing of the router itself: `import { createManagementClient } from "@trestle/server/client"`.
 *
 * @packageDocumentation
 */
export type { ApiBody, ApiData, ApiEvent, ApiOperationId } from "./api-types.js";
export {
  type OpenEventStream,
  type ReadEventStreamOptions,
  type ReconnectOptions,
  readEventStream,
  type ServerSentEvent,
} from "./event-stream.js";
export {
  type CatalogEntries,
  type CatalogQuery,
  type CodeExecutionReplyView,
  type CodeExecutionRequest,
  type CodeExecutionStreamEvent,
  type CodeExecutionTask,
  createManagementClient,
  ManagementApiError,
  type ManagementClient,
  type ManagementClientOptions,
  type NamespaceQuery,
  type PromptOperations,
  type RegistryEventMessage,
  type ResourceOperations,
  type ServiceStatusSummary,
  type StreamOptions,
  type ToolCallEventMessage,
  type ToolCallEventsOptions,
  type ToolCallHistoryQuery,
  type ToolOperations,
} from "./management-client.js";
export {
  type ManagementOperation,
  type ManagementOperationName,
  managementOperations,
  operationPath,
} from "./operations.js";
