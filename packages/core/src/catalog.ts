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
  /** A JSON Schema type, or a list of them (`["string", "null"]`). */
  type?: string | string[];
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
  /** A display name for clients (MCP `title`). */
  title?: string;
  /** The JSON Schema of the tool's structured result (MCP `outputSchema`), as a forwarded server declares it. */
  outputSchema?: { type: "object"; [keyword: string]: unknown };
  /** MCP tool annotations (`readOnlyHint`, `destructiveHint`…), as a forwarded server declares them. */
  annotations?: Record<string, unknown>;
  /**
   * Whether the router may run calls of this tool as MCP tasks for clients that declare the tasks extension
   * (`forbidden` when absent).
   */
  taskSupport?: "forbidden" | "optional" | "required";
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
  /**
   * The service that expands the prompt (`prompts/get`), for prompts imported from a forwarded MCP server;
   * absent for prompts the router expands itself from `messages`.
   */
  type?: string;
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

/** An MCP server the router spawns and speaks to over its stdin and stdout. */
export interface ForwardStdioUpstream {
  kind: "stdio";
  /** The program; found on `PATH` when it has no slash. No shell is involved. */
  command: string;
  /** Its arguments. Secrets live here: only the program's name is ever shown. */
  args?: string[];
  /** Environment variables for the server, over a minimal inherited set. Never shown. */
  env?: Record<string, string>;
  /** Working directory of the server. */
  cwd?: string;
  /** `pooled` (default): one process kept running and shared by concurrent calls; `per-call`: one per call. */
  mode?: "pooled" | "per-call";
  /**
   * `true` or absent (the default): the server runs in a sandbox of its own (bubblewrap), which shows it the
   * system, its program's installation, its `cwd` and the absolute paths among its `args` (read-only), the
   * network, and a private writable home kept across restarts; not the router's environment, processes or files.
   * `false`: it runs unconfined, as the router's user, and can read whatever the router can; a router logs a
   * warning each time such a server starts.
   */
  sandbox?: boolean;
  /** Host paths the sandboxed server may write (bound at the same path), e.g. the directory a file server edits. */
  writablePaths?: string[];
}

/**
 * The router's own credential for an upstream: `static`, the same header for every caller; or `tokenExchange`, a
 * token obtained for each caller by RFC 8693 exchange of the caller's OAuth access token at the upstream's
 * authorization server. The client's own token never goes upstream.
 */
export type UpstreamAuth =
  | {
      static: {
        /** The header it goes in; default `authorization`. */
        header?: string;
        /** Its value, e.g. `Bearer …`. Never shown. */
        value: string;
      };
    }
  | {
      tokenExchange: {
        tokenEndpoint: string;
        clientId: string;
        /** Never shown. */
        clientSecret: string;
        clientAuth?: "client_secret_basic" | "client_secret_post";
        audience?: string | string[];
        resource?: string | string[];
        scope?: string | string[];
      };
    };

/** An MCP server the router reaches over Streamable HTTP. */
export interface ForwardHttpUpstream {
  kind: "http";
  /** Its MCP endpoint; only the origin is ever shown. */
  url: string;
  /** Headers sent with every request (e.g. `Authorization`). Their values are never shown. */
  headers?: Record<string, string>;
  /**
   * The router's credential for the calls it forwards: a static one goes with every request (as a header), an
   * exchanged one with each caller's calls (its catalog is read with `headers` alone).
   */
  upstreamAuth?: UpstreamAuth;
}

/**
 * An A2A agent the router reaches with the A2A transport: its card is read from
 * `<url>/.well-known/agent-card.json`, its skills are imported as tools.
 */
export interface ForwardA2aUpstream {
  kind: "a2a";
  /** The agent's base URL; only the origin is ever shown. */
  url: string;
  /** Headers sent with every request, for the card's security requirements. Their values are never shown. */
  headers?: Record<string, string>;
  /** The router's credential for the calls it forwards, as for an HTTP upstream ({@link ForwardHttpUpstream}). */
  upstreamAuth?: UpstreamAuth;
}

/** How a forward reaches its upstream: an MCP server (stdio or Streamable HTTP) or an A2A agent. */
export type ForwardUpstream = ForwardStdioUpstream | ForwardHttpUpstream | ForwardA2aUpstream;

/**
 * A forward: an existing MCP server whose tools, resources, resource templates and prompts the router imports
 * into a namespace and serves through the MCP transport, or an A2A agent whose skills it imports as tools and
 * serves through the A2A transport.
 */
export interface ForwardReference {
  id?: string;
  /** Unique within its namespace; names the service its imported entries are routed to. */
  name: string;
  description?: string;
  /** Namespace the catalog is imported into; "" or absent for the default namespace. */
  namespace?: string;
  upstream: ForwardUpstream;
  /** Put before each imported tool's and prompt's name (e.g. `gh_`), to keep names apart. */
  prefix?: string;
  labels?: Labels;
  /**
   * How long the upstream may take to become ready when the router first connects to it (a stdio server from
   * spawn to answering `initialize`, which covers a first `npx -y` download). Absent: the router's default.
   */
  startTimeoutMs?: number;
  /** How long the upstream may take to answer `initialize` on every later connection. Absent: the router's default. */
  handshakeTimeoutMs?: number;
}
