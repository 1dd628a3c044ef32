/**
 * The Trestle MCP router as a library: `createRouter(config)` is the composition root the `trestle` CLI uses.
 *
 * @packageDocumentation
 */
export {
  type ConfigSources,
  configSources,
  type RouterConfig,
  type RouterConfigInput,
  readConfigFile,
  resolveConfig,
  resolveRouterConfig,
  routerConfigSchema,
} from "./config.js";
export { renderConfigReference } from "./config-reference.js";
export type {
  ApiMethod,
  ApiOperation,
  Envelope,
  ErrorStatus,
  EventStreamResponseSpec,
  JsonBodySpec,
  JsonResponseSpec,
  TextBodySpec,
} from "./http/json-api.js";
export { managementApiDocument } from "./management/document-route.js";
export { type ManagementOperationId, managementApi } from "./management/operations.js";
export { createRouter, type Router, type RouterOverrides } from "./router.js";
export { SERVER_VERSION } from "./version.js";
