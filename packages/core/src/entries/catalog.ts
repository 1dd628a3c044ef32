/**
 * `@trestle/core/catalog`: the shapes of what the router's catalog holds (tools, resources, prompts, namespaces,
 * forwards), how a forward's upstream may be named, and the check of a tool's required arguments.
 *
 * @packageDocumentation
 */
export type {
  ForwardA2aUpstream,
  ForwardHttpUpstream,
  ForwardReference,
  ForwardStdioUpstream,
  ForwardUpstream,
  InputSchema,
  Labels,
  Namespace,
  PromptArgument,
  PromptContent,
  PromptMessage,
  PromptReference,
  PropertyDefinition,
  PropertyTarget,
  ResourceParam,
  ResourcePayload,
  ResourceReference,
  ToolPayload,
  ToolReference,
  UpstreamAuth,
} from "../catalog.js";
export { describeForwardUpstream, forwardProgramName } from "../forward-upstream.js";
export { validateRequiredArguments } from "../required-arguments.js";
