import { randomBytes } from "node:crypto";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  type GetPromptResult,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  ReadResourceRequestSchema,
  type RequestId,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type CallContext,
  type CodeExecutionBridge,
  createClientLegs,
  type InvokerBridge,
  isUriTemplate,
  matchUriTemplate,
  type ResourceBridge,
} from "@trestle/bridge";
import {
  type Cancellation,
  type InputAnswers,
  type InputRequired,
  type JsonObject,
  type PromptReference,
  type ResourceReference,
  requiredClientCapabilities,
  type ToolResult,
  TrestleError,
} from "@trestle/core";
import type { z } from "zod";
import { acceptCommonToolCall } from "./call-tool-params.js";
import type { CatalogView, EngineLanguage } from "./catalog-view.js";
import { codeExecutionTool, runCodeExecutionTool } from "./code-execution-tool.js";
import {
  INPUT_METHOD,
  inputRequiredResult,
  inputResponseFrom,
  readInputAnswers,
  relayInputToSession,
  requireInputCapabilities,
} from "./input-relay.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ListPages } from "./list-pages.js";
import { createParamHeaderCheck } from "./param-headers.js";
import { type CallTurn, createParkedCalls } from "./parked-calls.js";
import { expandPrompt } from "./prompt-expansion.js";
import { type ModernClient, ModernErrorCode, negotiateLegacyRevision } from "./protocol-era.js";
import { ProtocolError, RESOURCE_NOT_FOUND } from "./protocol-error.js";
import { createRequestStateSealer } from "./request-state.js";
import type { ReusableResult } from "./reusable-result.js";
import { LOG_LEVELS, type LogLevel, type SessionState } from "./session-registry.js";
import { MAX_RESOURCE_SUBSCRIPTIONS } from "./subscriptions.js";
import { declaresTasks, TASKS_EXTENSION, type TaskRunner, tasksRequired } from "./tasks.js";
import { toMcpTool } from "./tool-listing.js";

/** Who sent a request: what a method handler may know of the client behind it. */
export interface RequestOrigin {
  /** The request id as the client sent it. */
  readonly originalId: RequestId;
  /** The client's session (it holds the log level the client set); absent in stateless mode. */
  readonly session: SessionState | undefined;
  /** The HTTP request's headers (lower-cased), or empty for stdio. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Set for a stateless (2026-07-28) request: the client's declarations from its `_meta`. */
  readonly modern?: ModernClient | undefined;
  /**
   * The principal the request was admitted as (token name, `anonymous` on a router without tokens, `stdio` for the
   * stdio front). Tasks, sealed request states and held calls are bound to it.
   */
  readonly principal: string;
}

/** What a method handler gets besides the request. */
export interface McpRequestExtra {
  /**
   * Aborted when the client cancels the request or goes away. Pass it on as it is (a call's `cancellation`); read
   * its `signal` only for an API that takes an `AbortSignal`, which it then makes (each costs on Node 20).
   */
  readonly cancellation: Cancellation;
  readonly origin: RequestOrigin;
  /** Sends a notification tied to the request (progress, log message); does nothing once it was cancelled. */
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /**
   * Asks a session's client (sampling, elicitation, roots) on the request's stream and resolves with its result;
   * absent for a stateless request, which gets `input_required` instead.
   */
  sendRequest?(request: { method: string; params?: Record<string, unknown> }): Promise<unknown>;
}

/**
 * Answers one MCP request: returns (or resolves to) the result, or throws a {@link ProtocolError} (any error with
 * a safe-integer `code` keeps its code; others answer -32603). A result that answers many requests alike (a page
 * of a large list) may be a {@link ReusableResult}: it is then encoded and serialized once per revision.
 */
export type McpRequestHandler = (
  request: { method: string; params?: unknown },
  extra: McpRequestExtra,
) => unknown;

/**
 * The MCP methods one namespace serves, by method name: the one table both transports (Streamable HTTP and
 * stdio) dispatch to. A method absent from it answers -32601.
 */
export type McpMethodTable = ReadonlyMap<string, McpRequestHandler>;

/**
 * Adds `handler` for `schema`'s method so that params of the wrong shape answer -32602 (Invalid params) with what
 * was wrong (the SDK's Protocol answered a parse failure with -32603, which tells a client the server broke when
 * it was the request). The request is parsed once, here, and nowhere else.
 */
function onRequest<S extends z.ZodType<{ method: string }>>(
  table: Map<string, McpRequestHandler>,
  method: string,
  schema: S,
  handler: (request: z.output<S>, extra: McpRequestExtra, raw: { params?: unknown }) => unknown,
  /**
   * A check of the method's common shape without the schema library, for a hot path: what it returns must be
   * what the schema would; undefined leaves the request to the schema.
   */
  accept?: (request: { method: string; params?: unknown }) => z.output<S> | undefined,
): void {
  table.set(method, (request, extra) => {
    const accepted = accept?.(request);
    if (accepted !== undefined) return handler(accepted, extra, request);
    const parsed = schema.safeParse(request);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`)
        .join("; ");
      throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Invalid params for ${method}: ${problems}`);
    }
    // The raw request too: the SDK's schemas drop fields they do not know (2026-07-28 `inputResponses`).
    return handler(parsed.data, extra, request);
  });
}

/** What the MCP endpoint routes to. */
export interface McpBackend {
  catalog: CatalogView;
  invoker: InvokerBridge;
  resources: ResourceBridge;
  codeExecution: CodeExecutionBridge;
  /** Registered code execution engines and their languages. */
  engines(): readonly EngineLanguage[];
  /** True when some service could serve resources (a resource-provider or multi-capability service is registered). */
  canServeResources(): boolean;
  /** Forwarded MCP servers: what their upstreams advertise, and their prompts. Absent: no forwards. */
  forwards?: McpForwards;
  /** Runs calls as MCP tasks for stateless clients that declare the extension. Absent: no tasks. */
  tasks?: TaskRunner;
}

/** What the MCP endpoint asks about forwarded MCP servers. */
export interface McpForwards {
  /** The capabilities the upstreams of a namespace's forwards advertise. */
  capabilitiesOf(namespace: string): readonly { forward: string; capabilities: ServerCapabilities }[];
  /** Expands a prompt imported from a forward by asking its upstream. */
  getPrompt(
    prompt: PromptReference,
    args: Record<string, string>,
    options?: { signal?: AbortSignal; input?: InputAnswers },
  ): Promise<GetPromptResult & { inputRequired?: InputRequired }>;
}

/** The capabilities a namespace may advertise, each narrowed away when a forward's upstream lacks it. */
type NarrowedCapability = "tools" | "resources" | "prompts" | "logging" | "completions";

/** Settings of the MCP endpoint. */
export interface McpSettings {
  serverInfo: { name: string; version: string };
  /** Name of the code execution tool; listed only while an engine is registered. */
  codeExecutionToolName: string;
  /** Items per page of tools/list, resources/list and prompts/list. */
  pageSize: number;
  /** True where list_changed notifications can reach the client (stateful HTTP, stdio). */
  listChangedDelivered: boolean;
  /** Request headers forwarded to capabilities as call metadata (lower-case names), e.g. `authorization`. */
  forwardHeaders: readonly string[];
  /** Longest URI `resources/read` accepts, in characters; {@link DEFAULT_MAX_RESOURCE_URI_LENGTH} when absent. */
  maxResourceUriLength?: number;
  /** The MCP revisions accepted, oldest first. */
  acceptedRevisions: readonly string[];
  /**
   * Caching hints on stateless list and discover results: how long a client may keep them (it hears of changes
   * on `subscriptions/listen` sooner), and whether shared caches may (`public`: no token is needed here).
   */
  caching: { listTtlMs: number; cacheScope: "public" | "private" };
  /**
   * Key that seals the `requestState` of `input_required` results. Replicas sharing it accept each other's
   * states (any replica serves the repeated request); a random key (the default) limits them to this process.
   */
  requestStateKey?: Buffer;
}

/**
 * Longest resource URI read by default: far beyond any real one, and a bound on the work one request can ask of
 * the template matcher (which scans every template of the namespace).
 */
export const DEFAULT_MAX_RESOURCE_URI_LENGTH = 8 * 1024;

const TEXT_MIME =
  /^(text\/|application\/(json|xml|javascript|x-yaml|yaml|toml|x-sh|sql|graphql|ld\+json)|[^/]+\/[^;]*\+(json|xml))/i;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A resource's content as MCP contents. The capability contract carries content as strings; a capability returns
 * binary content Base64-encoded (as the built-in file provider does), so content whose MIME type is not textual
 * and that is strict Base64 is served as a `blob`.
 */
function asMcpContents(
  content:
    | { uri: string; mimeType?: string; text: string }
    | { uri: string; mimeType?: string; blob: string },
) {
  if (!("text" in content)) return content;
  if (
    content.mimeType &&
    !TEXT_MIME.test(content.mimeType) &&
    content.text.length > 0 &&
    STRICT_BASE64.test(content.text)
  ) {
    return { uri: content.uri, mimeType: content.mimeType, blob: content.text };
  }
  return content;
}

/**
 * The pages of a list made from a catalog list, made again only when the catalog hands out a new list (it keeps
 * one until it changes): what a repeated `resources/list` or `prompts/list` answers is then made once.
 */
function pagesOf<S, T>(
  key: string,
  pageSize: number,
  derive: (source: readonly S[]) => T[],
): (source: readonly S[]) => ListPages<T> {
  let made: { source: readonly S[]; pages: ListPages<T> } | undefined;
  return (source) => {
    if (made?.source !== source) made = { source, pages: new ListPages(key, derive(source), pageSize) };
    return made.pages;
  };
}

const isTemplate = (resource: ResourceReference): boolean => isUriTemplate(resource.location);

/**
 * A failed call as the JSON-RPC error its task records: a protocol error keeps its code (an MCP backend's own
 * code where it gave one), any other failure is -32603 with the router's sentence about it.
 */
function asTaskError(error: unknown): unknown {
  if (error instanceof ProtocolError || !(error instanceof TrestleError)) return error;
  const upstream = Number(error.metadata["mcp-error-code"]);
  return new ProtocolError(
    Number.isSafeInteger(upstream) && upstream < 0 ? upstream : JsonRpcErrorCode.InternalError,
    error.rawMessage,
  );
}

/**
 * A backend's answer that asks for input the client cannot give, yet says something itself (an A2A agent's
 * question as text, with the handle to continue the conversation): that answer, as a complete result. `undefined`
 * when the client can answer, or when the backend said nothing (the caller refuses with -32021 then).
 */
function answerWithoutInput(
  result: ToolResult,
  declared: Readonly<Record<string, unknown>>,
): ToolResult | undefined {
  if (!result.inputRequired || result.content.length === 0) return undefined;
  try {
    requireInputCapabilities(Object.values(result.inputRequired.requests), declared);
    return undefined;
  } catch {
    const { inputRequired: _, ...answer } = result;
    return answer;
  }
}

/** The input a client declared it can give (elicitation, sampling, roots), as the backend is told. */
function inputCapabilitiesOf(declared: Readonly<Record<string, unknown>>): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const name of ["elicitation", "sampling", "roots"]) {
    const value = declared[name];
    if (typeof value === "object" && value !== null && !Array.isArray(value)) out[name] = value as JsonObject;
  }
  return out;
}

/**
 * The least level of log messages a request's client wants: a session's setting (info until it sets one), or a
 * stateless request's `_meta` level (none at all when it names none, as 2026-07-28 says).
 */
function wantedLogLevel(origin: RequestOrigin): LogLevel | undefined {
  if (origin.modern) return origin.modern.logLevel;
  return origin.session?.logLevel ?? "info";
}

/**
 * The method table that serves one namespace: initialize, ping, tools (catalog tools and the code execution
 * tool), resources and templates, prompts, completion, logging. Both transports dispatch to it (see
 * `McpDispatcher`); nothing in between parses a request.
 */
export function createNamespaceMethods(
  namespace: string,
  backend: McpBackend,
  settings: McpSettings,
): McpMethodTable {
  const table = new Map<string, McpRequestHandler>();
  // One frozen client leg per revision, shared by the calls' translation reports (the history keeps a thousand).
  const clientLegs = createClientLegs();
  const requestStates = createRequestStateSealer(settings.requestStateKey ?? randomBytes(32));
  const parkedCalls = createParkedCalls({ holdMs: 10 * 60_000, maxHeld: 1_000 });
  const checkParamHeaders = createParamHeaderCheck();

  /**
   * The first forward of this namespace whose upstream does not advertise `capability`: what the router serves
   * here is narrowed to what every forward's upstream offers (the intersection, never the union).
   */
  const lackingForward = (capability: NarrowedCapability): string | undefined =>
    backend.forwards?.capabilitiesOf(namespace).find((f) => f.capabilities[capability] === undefined)
      ?.forward;

  /** Refuses a method of a capability narrowed away, with -32601 naming the method and the forward. */
  const requireCapability = (capability: NarrowedCapability, method: string): void => {
    const forward = lackingForward(capability);
    if (forward === undefined) return;
    throw new ProtocolError(
      JsonRpcErrorCode.MethodNotFound,
      `Method not found: ${method} is not offered in ${namespace ? `namespace '${namespace}'` : "the default namespace"}, because the MCP server forwarded as '${forward}' does not support ${capability}`,
    );
  };

  const capabilities = (modern = false): ServerCapabilities => {
    const caps = unnarrowedCapabilities(modern);
    for (const capability of ["tools", "resources", "prompts", "logging", "completions"] as const) {
      if (caps[capability] !== undefined && lackingForward(capability) !== undefined) delete caps[capability];
    }
    return caps;
  };

  const unnarrowedCapabilities = (modern: boolean): ServerCapabilities => {
    // A stateless client hears of changes on subscriptions/listen, which every replica serves.
    const listChanged = modern || settings.listChangedDelivered;
    const caps: ServerCapabilities = { tools: { listChanged }, logging: {} };
    if (backend.catalog.listResources(namespace).length > 0 || backend.canServeResources()) {
      // Subscriptions: a session subscribes with resources/subscribe, a stateless client on subscriptions/listen.
      caps.resources = { listChanged, subscribe: true };
    }
    const prompts = backend.catalog.listPrompts(namespace);
    if (prompts.length > 0) caps.prompts = { listChanged };
    // Completion is offered where there is something to complete: prompt arguments or resource templates.
    if (
      prompts.some((p) => (p.arguments ?? []).length > 0) ||
      backend.catalog.listResources(namespace).some(isTemplate)
    ) {
      caps.completions = {};
    }
    return caps;
  };

  // The router advertises what it can serve for this namespace now, and names itself.
  const instructions =
    `Trestle MCP router${namespace ? `, namespace '${namespace}'` : ""}: tools, resources and prompts here are served by ` +
    "capability services behind the router.";
  /** Caching hints for a stateless client's list or discover result; nothing for a session's. */
  const cacheHints = (origin: RequestOrigin) =>
    origin.modern
      ? { ttlMs: settings.caching.listTtlMs, cacheScope: settings.caching.cacheScope }
      : undefined;

  onRequest(table, "initialize", InitializeRequestSchema, (request, extra) => {
    const protocolVersion = negotiateLegacyRevision(
      request.params.protocolVersion,
      settings.acceptedRevisions,
    );
    const session = extra.origin.session;
    // An HTTP session got both when it was created; a stdio connection's session gets them now.
    if (session && session.protocolVersion === undefined) {
      session.protocolVersion = protocolVersion;
      session.clientCapabilities = { ...request.params.capabilities };
    }
    return { protocolVersion, capabilities: capabilities(), serverInfo: settings.serverInfo, instructions };
  });

  // The stateless era's handshake-free discovery: the revisions, what this namespace serves now, who serves it.
  table.set("server/discover", () => ({
    supportedVersions: [...settings.acceptedRevisions].reverse(),
    capabilities: {
      ...capabilities(true),
      ...(backend.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    },
    serverInfo: settings.serverInfo,
    instructions,
    ttlMs: settings.caching.listTtlMs,
    cacheScope: settings.caching.cacheScope,
  }));

  onRequest(table, "logging/setLevel", SetLevelRequestSchema, (request, extra) => {
    requireCapability("logging", "logging/setLevel");
    const session = extra.origin.session;
    if (session) session.logLevel = request.params.level as LogLevel;
    return {};
  });

  /** The listed tools and their pages, made again only when the catalog or the engines change. */
  let toolCache:
    | { tools: readonly unknown[]; engines: readonly EngineLanguage[]; pages: ListPages<Tool> }
    | undefined;
  const toolPages = (): ListPages<Tool> => {
    const tools = backend.catalog.listTools(namespace);
    const engines = backend.engines();
    if (toolCache && toolCache.tools === tools && toolCache.engines === engines) return toolCache.pages;
    const list = tools.map(toMcpTool);
    if (engines.length > 0 && !tools.some((t) => t.name === settings.codeExecutionToolName)) {
      list.push(codeExecutionTool(settings.codeExecutionToolName, engines));
    }
    toolCache = { tools, engines, pages: new ListPages("tools", list, settings.pageSize) };
    return toolCache.pages;
  };

  onRequest(table, "tools/list", ListToolsRequestSchema, (request, extra) => {
    requireCapability("tools", "tools/list");
    // A page is the same for every client of a revision: it is encoded and serialized once (a catalog of 10,000
    // tools is ten pages of 380 KB of JSON, each a few milliseconds to write again).
    return toolPages().page(request.params?.cursor, cacheHints(extra.origin));
  });

  /** A call's context; `cancel` is the request's cancellation, or a task's signal where the call outlives it. */
  const contextFor = (origin: RequestOrigin, cancel: Cancellation | AbortSignal): CallContext => {
    const metadata: Record<string, string> = {};
    for (const name of settings.forwardHeaders) {
      const value = origin.headers[name];
      if (typeof value === "string") metadata[name] = value;
    }
    const traceparent = origin.headers.traceparent;
    if (typeof traceparent === "string") metadata.traceparent = traceparent;
    const context: CallContext = { requestId: String(origin.originalId), namespace, metadata };
    if (origin.session) context.connectionId = origin.session.id;
    if (cancel instanceof AbortSignal) context.signal = cancel;
    else context.cancellation = cancel;
    return context;
  };

  onRequest(
    table,
    "tools/call",
    CallToolRequestSchema,
    async (request, extra, raw): Promise<CallToolResult> => {
      requireCapability("tools", "tools/call");
      const origin = extra.origin;
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const tool = backend.catalog.getTool(namespace, name);
      if (tool) {
        // Over HTTP in the stateless era, arguments the tool marks for headers must be mirrored as sent.
        if (origin.modern && Object.keys(origin.headers).length > 0)
          checkParamHeaders(tool.inputSchema, args, origin.headers);
        const context = contextFor(origin, extra.cancellation);
        // The backend learns what this client can answer; what it then refuses for lack of it is -32021 here.
        context.inputCapabilities = inputCapabilitiesOf(
          origin.modern?.capabilities ?? origin.session?.clientCapabilities ?? {},
        );
        const execute = (ctx: CallContext) =>
          backend.invoker.execute(args, tool, ctx).catch((error: unknown) => {
            const required = requiredClientCapabilities(error);
            if (!required) throw error;
            throw new ProtocolError(
              ModernErrorCode.MissingRequiredClientCapability,
              `Missing required client capability: tool '${name}' needs ${Object.keys(required).join(" and ")}, which the client did not declare`,
              { requiredCapabilities: required },
            );
          });
        // Whatever the backend reports during the call reaches this client: progress under the client's own
        // token (when it asked for progress), log messages at the level the client set.
        const progressToken = request.params._meta?.progressToken;
        if (progressToken !== undefined) {
          context.onProgress = (p) =>
            void extra
              .sendNotification({ method: "notifications/progress", params: { progressToken, ...p } })
              .catch(() => undefined);
        }
        context.onLog = (message) => {
          const wanted = wantedLogLevel(origin);
          if (wanted === undefined || LOG_LEVELS.indexOf(message.level) < LOG_LEVELS.indexOf(wanted)) return;
          void extra
            .sendNotification({ method: "notifications/message", params: { ...message } })
            .catch(() => undefined);
        };
        const claims = {
          method: "tools/call",
          name,
          namespace,
          principal: origin.principal,
          arguments: args,
        };
        const answers = readInputAnswers(raw.params, requestStates, claims);
        if (answers) {
          context.input = {
            responses: answers.responses,
            ...(answers.state !== undefined ? { state: answers.state } : {}),
          };
        }
        context.client = clientLegs(
          "mcp",
          origin.modern?.revision ?? origin.session?.protocolVersion ?? "",
          "tools/call",
        );
        const ask = extra.sendRequest;
        if (ask && Object.keys(context.inputCapabilities).length > 0) {
          // A legacy upstream's question during the call goes to a session's client at once, on this stream.
          const declared = origin.session?.clientCapabilities ?? {};
          context.onInputRequest = async (input) => {
            requireInputCapabilities([input], declared);
            return inputResponseFrom(
              input.kind,
              await ask({ method: INPUT_METHOD[input.kind], params: input.params }),
            );
          };
        }
        const modern = origin.modern;
        const taskSupport = tool.taskSupport ?? "forbidden";
        if (modern && taskSupport === "required" && !declaresTasks(modern.capabilities))
          throw tasksRequired(name);
        if (
          modern &&
          backend.tasks &&
          taskSupport !== "forbidden" &&
          declaresTasks(modern.capabilities) &&
          !answers?.parked
        ) {
          // A task: the client polls tasks/get (on any replica); questions while it runs show on the task.
          const started = await backend.tasks.start(
            { namespace, principal: claims.principal },
            (hooks) =>
              execute({
                ...context,
                signal: hooks.signal,
                onInputRequest: hooks.onInputRequest,
                // A failure of the call is the task's failure (with its JSON-RPC error), not a tool result.
                failures: "reject",
                ...(hooks.input ? { input: hooks.input } : {}),
              }).catch((error: unknown) => {
                throw asTaskError(error);
              }) as Promise<ToolResult & Record<string, unknown>>,
            // Questions the client did not declare it can answer fail the task with -32021.
            { checkInput: (input) => requireInputCapabilities([input], modern.capabilities) },
          );
          if ("task" in started) return started.task as unknown as CallToolResult;
          requireInputCapabilities(Object.values(started.inputRequired.requests), modern.capabilities);
          return inputRequiredResult(
            started.inputRequired,
            requestStates,
            claims,
          ) as unknown as CallToolResult;
        }
        if (modern) {
          // A stateless client: the backend's questions come back as input_required, whether the backend asks
          // without holding the call (a 2026-07-28 upstream) or while it runs (a legacy upstream: the call is held).
          const finish = (turn: CallTurn<ToolResult>): CallToolResult => {
            const asks = "asks" in turn ? turn.asks : turn.done.inputRequired;
            const park = "park" in turn ? turn.park : undefined;
            if (!asks) return (turn as { done: ToolResult }).done as CallToolResult;
            const fallback = "done" in turn ? answerWithoutInput(turn.done, modern.capabilities) : undefined;
            if (fallback) return fallback as CallToolResult;
            try {
              requireInputCapabilities(Object.values(asks.requests), modern.capabilities);
            } catch (error) {
              if (park) parkedCalls.cancel(park, "The client cannot give the input the backend asked for");
              throw error;
            }
            return inputRequiredResult(asks, requestStates, claims, park) as unknown as CallToolResult;
          };
          if (answers?.parked) {
            const turn = parkedCalls.resume<ToolResult>(answers.parked, origin.principal, answers);
            if (!turn) {
              throw new ProtocolError(
                JsonRpcErrorCode.InvalidParams,
                "Invalid requestState: the call waiting for these answers is no longer held here (it ended, waited too long, this state was used already, or another replica holds it); make the request again without requestState",
              );
            }
            return finish(await turn);
          }
          // A client that can give no input at all is never asked during a call: nothing is held for it.
          if (Object.keys(context.inputCapabilities).length === 0)
            return finish({ done: await execute(context) });
          return finish(
            await parkedCalls.start<ToolResult>(
              origin.principal,
              (onInputRequest, signal) => execute({ ...context, onInputRequest, signal }),
              extra.cancellation.signal,
            ),
          );
        }
        let result = await execute(context);
        const fallback = answerWithoutInput(result, origin.session?.clientCapabilities ?? {});
        if (fallback) return fallback as CallToolResult;
        // A session's client is asked each question itself, and the call repeated with its answers.
        if (result.inputRequired && ask) {
          result = await relayInputToSession(
            result,
            (answers) => execute({ ...context, input: answers }),
            ask,
            origin.session?.clientCapabilities ?? {},
            `Tool '${name}'`,
          );
        }
        if (result.inputRequired) {
          throw new ProtocolError(
            JsonRpcErrorCode.InternalError,
            `Tool '${name}' needs input from the client, which this connection cannot relay`,
          );
        }
        return result as CallToolResult;
      }
      if (name === settings.codeExecutionToolName && backend.engines().length > 0) {
        const progressToken = request.params._meta?.progressToken;
        // Code runs long: a stateless client that declares the tasks extension gets a task to poll.
        if (origin.modern && backend.tasks && declaresTasks(origin.modern.capabilities)) {
          const started = await backend.tasks.start(
            { namespace, principal: origin.principal },
            (hooks) =>
              runCodeExecutionTool(
                args,
                backend.engines(),
                backend.codeExecution,
                contextFor(origin, hooks.signal),
                async () => undefined,
              ) as Promise<CallToolResult & Record<string, unknown>>,
          );
          if (!("task" in started)) {
            throw new ProtocolError(JsonRpcErrorCode.InternalError, "A code execution asked for input");
          }
          return started.task as unknown as CallToolResult;
        }
        return runCodeExecutionTool(
          args,
          backend.engines(),
          backend.codeExecution,
          contextFor(origin, extra.cancellation),
          async (chunk) => {
            if (progressToken !== undefined) {
              await extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken, progress: chunk.sequence, message: chunk.text },
              });
            }
            const level: LoggingLevel = chunk.stream === "stderr" ? "warning" : "info";
            const wanted = wantedLogLevel(origin);
            if (wanted !== undefined && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(wanted)) {
              await extra.sendNotification({
                method: "notifications/message",
                params: { level, logger: "code-execution", data: { stream: chunk.stream, text: chunk.text } },
              });
            }
          },
        );
      }
      throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${name}`);
    },
    acceptCommonToolCall,
  );

  const resourcePages = pagesOf("resources", settings.pageSize, (all: readonly ResourceReference[]) =>
    all
      .filter((r) => !isTemplate(r))
      .map((r) => ({
        uri: r.location,
        name: r.name,
        ...(r.description ? { description: r.description } : {}),
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      })),
  );
  onRequest(table, "resources/list", ListResourcesRequestSchema, (request, extra) => {
    requireCapability("resources", "resources/list");
    return resourcePages(backend.catalog.listResources(namespace)).page(
      request.params?.cursor,
      cacheHints(extra.origin),
    );
  });

  const templatePages = pagesOf("resourceTemplates", settings.pageSize, (all: readonly ResourceReference[]) =>
    all.filter(isTemplate).map((r) => ({
      uriTemplate: r.location,
      name: r.name,
      ...(r.description ? { description: r.description } : {}),
      ...(r.mimeType ? { mimeType: r.mimeType } : {}),
    })),
  );
  onRequest(table, "resources/templates/list", ListResourceTemplatesRequestSchema, (request, extra) => {
    requireCapability("resources", "resources/templates/list");
    return templatePages(backend.catalog.listResources(namespace)).page(
      request.params?.cursor,
      cacheHints(extra.origin),
    );
  });

  onRequest(table, "resources/read", ReadResourceRequestSchema, async (request, extra) => {
    requireCapability("resources", "resources/read");
    const { uri } = request.params;
    const maxUriLength = settings.maxResourceUriLength ?? DEFAULT_MAX_RESOURCE_URI_LENGTH;
    if (uri.length > maxUriLength) {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        `Invalid params: the resource URI has ${uri.length} characters; at most ${maxUriLength} are accepted`,
      );
    }
    const resource =
      backend.catalog.getResource(namespace, uri) ??
      backend.catalog
        .listResources(namespace)
        .find((r) => isTemplate(r) && matchUriTemplate(r.location, uri) !== undefined);
    if (!resource) {
      // 2026-07-28 answers an unknown resource with Invalid params; the legacy revisions with -32002.
      const code = extra.origin.modern ? JsonRpcErrorCode.InvalidParams : RESOURCE_NOT_FOUND;
      throw new ProtocolError(code, `Resource not found: ${uri}`, { uri });
    }
    try {
      const contents = await backend.resources.read(
        resource,
        uri,
        contextFor(extra.origin, extra.cancellation),
      );
      // Content comes from a capability at read time: a client may not assume it stays the same.
      const hints = extra.origin.modern ? { ttlMs: 0, cacheScope: "private" as const } : undefined;
      return { contents: contents.map(asMcpContents), ...hints };
    } catch (error) {
      const message = (error as { rawMessage?: string }).rawMessage ?? (error as Error).message;
      throw new ProtocolError(JsonRpcErrorCode.InternalError, `Reading ${uri} failed: ${message}`, { uri });
    }
  });

  const subscribe = (uri: string, origin: RequestOrigin, method: string): Set<string> => {
    requireCapability("resources", method);
    const session = origin.session;
    if (!session) throw new ProtocolError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    const maxUriLength = settings.maxResourceUriLength ?? DEFAULT_MAX_RESOURCE_URI_LENGTH;
    if (uri.length > maxUriLength) {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        `Invalid params: the resource URI has ${uri.length} characters; at most ${maxUriLength} are accepted`,
      );
    }
    session.resourceSubscriptions ??= new Set();
    return session.resourceSubscriptions;
  };
  onRequest(table, "resources/subscribe", SubscribeRequestSchema, (request, extra) => {
    const subscriptions = subscribe(request.params.uri, extra.origin, "resources/subscribe");
    if (!subscriptions.has(request.params.uri) && subscriptions.size >= MAX_RESOURCE_SUBSCRIPTIONS) {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        `Invalid params: a session may subscribe to at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources`,
      );
    }
    subscriptions.add(request.params.uri);
    return {};
  });
  onRequest(table, "resources/unsubscribe", UnsubscribeRequestSchema, (request, extra) => {
    subscribe(request.params.uri, extra.origin, "resources/unsubscribe").delete(request.params.uri);
    return {};
  });

  const promptPages = pagesOf("prompts", settings.pageSize, (all: readonly PromptReference[]) =>
    all.map((p) => ({
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      ...(p.arguments ? { arguments: p.arguments } : {}),
    })),
  );
  onRequest(table, "prompts/list", ListPromptsRequestSchema, (request, extra) => {
    requireCapability("prompts", "prompts/list");
    return promptPages(backend.catalog.listPrompts(namespace)).page(
      request.params?.cursor,
      cacheHints(extra.origin),
    );
  });

  // Argument values are not known to the catalog: completion answers with the values already seen in the
  // catalog for resource template variables, and with none for prompt arguments.
  onRequest(table, "completion/complete", CompleteRequestSchema, (request) => {
    requireCapability("completions", "completion/complete");
    const { ref, argument } = request.params;
    let values: string[] = [];
    if (ref.type === "ref/prompt") {
      const prompt = backend.catalog.getPrompt(namespace, ref.name);
      if (!prompt) throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    } else if (ref.type === "ref/resource") {
      const template = backend.catalog
        .listResources(namespace)
        .find((r) => r.location === ref.uri && isTemplate(r));
      if (!template)
        throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      const seen = new Set<string>();
      for (const r of backend.catalog.listResources(namespace)) {
        if (isTemplate(r)) continue;
        const value = matchUriTemplate(template.location, r.location)?.[argument.name];
        if (value?.startsWith(argument.value)) seen.add(value);
      }
      values = [...seen].sort().slice(0, 100);
    }
    return { completion: { values, total: values.length, hasMore: false } };
  });

  onRequest(table, "prompts/get", GetPromptRequestSchema, async (request, extra, raw) => {
    requireCapability("prompts", "prompts/get");
    const { name } = request.params;
    const prompt = backend.catalog.getPrompt(namespace, name);
    if (!prompt) throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    if (prompt.type === undefined || !backend.forwards) {
      return expandPrompt(prompt, request.params.arguments ?? {});
    }
    const origin = extra.origin;
    const claims = {
      method: "prompts/get",
      name,
      namespace,
      principal: origin.principal,
      arguments: request.params.arguments ?? {},
    };
    const input = readInputAnswers(raw.params, requestStates, claims);
    const get = (answers?: InputAnswers) =>
      (backend.forwards as McpForwards)
        .getPrompt(prompt, request.params.arguments ?? {}, {
          signal: extra.cancellation.signal,
          ...(answers ? { input: answers } : {}),
        })
        .catch((error: unknown) => {
          const message = (error as { rawMessage?: string }).rawMessage ?? (error as Error).message;
          throw new ProtocolError(
            JsonRpcErrorCode.InternalError,
            `Getting prompt '${prompt.name}' failed: ${message}`,
          );
        });
    let result = await get(input);
    if (result.inputRequired && origin.modern) {
      requireInputCapabilities(Object.values(result.inputRequired.requests), origin.modern.capabilities);
      return inputRequiredResult(result.inputRequired, requestStates, claims);
    }
    if (result.inputRequired && extra.sendRequest) {
      result = await relayInputToSession(
        result,
        get,
        extra.sendRequest,
        origin.session?.clientCapabilities ?? {},
        `Prompt '${name}'`,
      );
    }
    if (result.inputRequired) {
      throw new ProtocolError(
        JsonRpcErrorCode.InternalError,
        `Prompt '${name}' needs input from the client, which this connection cannot relay`,
      );
    }
    const { inputRequired: _, ...complete } = result;
    return complete;
  });

  // The tasks extension (stateless clients only): tasks of this namespace and of the asking principal.
  if (backend.tasks) {
    const tasks = backend.tasks;
    // Only a client that declares the extension may use its methods (-32021 naming it otherwise).
    const owner = (origin: RequestOrigin) => {
      if (!declaresTasks(origin.modern?.capabilities)) throw tasksRequired();
      return { namespace, principal: origin.principal };
    };
    const params = (request: { params?: unknown }) => (request.params ?? {}) as Record<string, unknown>;
    table.set("tasks/get", (request, extra) => tasks.get(owner(extra.origin), params(request).taskId));
    table.set("tasks/update", async (request, extra) => {
      await tasks.update(owner(extra.origin), params(request).taskId, params(request).inputResponses);
      return {};
    });
    table.set("tasks/cancel", async (request, extra) => {
      await tasks.cancel(owner(extra.origin), params(request).taskId);
      return {};
    });
  }

  table.set("ping", () => ({}));
  return table;
}
