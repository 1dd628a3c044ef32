/**
 * The catalog's shapes, as Wanaku's REST API carries them (JSON, camelCase). The registry stores and validates
 * them; the bridge turns them into capability requests; the server serves them over MCP. They live here, in
 * core, because all three need them and none may depend on another.
 */

/** Where a tool property's value is sent, besides the arguments. */
export type PropertyTarget = "header" | "configuration" | "cookie";

/**
 * One property of a tool's input schema: any JSON Schema keyword, plus Wanaku's routing keywords
 * (`target`, `scope`, `value`).
 */
export interface PropertyDefinition {
  type?: string;
  description?: string;
  /** `header` with `scope: "service"` sends the value as a request header named after the property. */
  target?: PropertyTarget;
  scope?: string;
  /** Default value, used when the call does not pass the argument. */
  value?: string;
  [keyword: string]: unknown;
}

/** A tool's input schema: a JSON Schema object. */
export interface InputSchema {
  type: "object";
  properties?: Record<string, PropertyDefinition>;
  required?: string[];
  [keyword: string]: unknown;
}

/** Labels on a catalog entry, filtered with Wanaku's label expressions. */
export type Labels = Record<string, string>;

/** A tool in the catalog. `type` names the capability service that executes it. */
export interface ToolReference {
  id?: string;
  /** The MCP tool name, unique within its namespace. */
  name: string;
  description?: string;
  /** Sent verbatim as `ToolInvokeRequest.uri`; the capability expands any template in it. */
  uri: string;
  /** The `serviceName` of the capability that executes it. */
  type: string;
  inputSchema?: InputSchema;
  /** Namespace name; "" or absent for the default namespace. */
  namespace?: string;
  configurationURI?: string;
  secretsURI?: string;
  labels?: Labels;
}

/** A parameter of a resource, sent as `ResourceRequest.params`. */
export interface ResourceParam {
  name: string;
  value: string;
}

/**
 * A resource in the catalog. `location` is the MCP resource URI (a URI template when it holds `{var}`
 * placeholders) and is also sent as `ResourceRequest.location`.
 */
export interface ResourceReference {
  id?: string;
  location: string;
  /** The `serviceName` of the capability that provides it. */
  type: string;
  name: string;
  description?: string;
  mimeType?: string;
  params?: ResourceParam[];
  configurationURI?: string;
  secretsURI?: string;
  namespace?: string;
  labels?: Labels;
}

/** Content of a prompt message. */
export type PromptContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** One message of a prompt. `{{var}}` in text content is replaced by the argument `var` on `prompts/get`. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: PromptContent;
}

/** An argument a prompt accepts. */
export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** A prompt in the catalog. */
export interface PromptReference {
  id?: string;
  name: string;
  description?: string;
  messages: PromptMessage[];
  arguments?: PromptArgument[];
  namespace?: string;
  labels?: Labels;
}

/** A tool with the configuration and secrets to provision for it (`POST /api/v1/tools/payloads`). */
export interface ToolPayload {
  payload: ToolReference;
  configurationData?: string;
  secretsData?: string;
}

/** A resource with the configuration and secrets to provision for it (`POST /api/v1/resources/payloads`). */
export interface ResourcePayload {
  payload: ResourceReference;
  configurationData?: string;
  secretsData?: string;
}

/** A namespace: a separate catalog served at `/{name}/mcp`. The default namespace has the name "". */
export interface Namespace {
  id?: string;
  name: string;
  description?: string;
  labels?: Labels;
}
