import { Code, TrestleError } from "@trestle/core";
import type { ToolCallEvent } from "@trestle/core/events";
import type { ApiBody, ApiData, ApiEvent, ApiOperationId } from "./api-types.js";
import { type ReconnectOptions, readEventStream, type ServerSentEvent } from "./event-stream.js";
import { type ManagementOperation, managementOperations, operationPath } from "./operations.js";

/** Options for {@link createManagementClient}. */
export interface ManagementClientOptions {
  /** The router's base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A bearer token with the scopes the calls need (`read`, `write`, `admin`…). */
  token?: string | undefined;
  /** The `fetch` to use; the global one by default (tests record requests through their own). */
  fetch?: typeof fetch;
  /**
   * Told the `warnings` of a successful answer: what the router did but cannot serve yet (a tool whose service
   * is not registered). Without it they are dropped.
   */
  onWarnings?: (warnings: readonly string[]) => void;
}

/** Which catalog entries a call means: a namespace ("" or absent for the default one) and a label filter. */
export interface CatalogQuery {
  namespace?: string | undefined;
  /** A label expression, e.g. `team=ops & !deprecated`. */
  labelFilter?: string | undefined;
}

/** The namespace a call means ("" or absent for the default one; `*` lists forwards of every namespace). */
export interface NamespaceQuery {
  namespace?: string | undefined;
}

/** What a code execution runs (`code`, plain or Base64; `arguments`; `environment`; `timeout` in ms). */
export type CodeExecutionRequest = ApiBody<"startCodeExecution">;

/** A started code execution: the task and where its output streams. */
export type CodeExecutionTask = ApiData<"startCodeExecution">;

/** One reply of a code execution, as the router streams it. */
export interface CodeExecutionReplyView {
  outputType: "stdout" | "stderr" | "status" | "completion" | "unspecified";
  status: string;
  content: string[];
  exitCode?: number;
  /** Milliseconds since the epoch. */
  timestamp?: number;
}

/** An event of a code execution's stream. */
export type CodeExecutionStreamEvent =
  | { event: "reply"; data: CodeExecutionReplyView }
  | { event: "error"; data: { code: number; message: string } }
  | { event: "dropped"; data: { dropped: number } }
  | { event: "end"; data: { taskId: string } };

/** A tool-call event and the SSE id it came with (pass it as `lastEventId` to resume after it). */
export interface ToolCallEventMessage {
  id: string | undefined;
  event: ApiEvent<"toolCallNotifications">;
}

/** A registry event: a service registered, deregistered, or its health changed. */
export type RegistryEventMessage = ApiEvent<"registryEvents">;

/** Counts of services by health. */
export type ServiceStatusSummary = ApiData<"capabilitiesStatus">;

/** Which tool-call events {@link ManagementClient.events} `.history` returns. */
export interface ToolCallHistoryQuery {
  limit?: number;
  toolName?: string;
  type?: ToolCallEvent["type"];
  namespace?: string;
}

/** Options of a stream the client reads. */
export interface StreamOptions {
  /** Ends the stream when it aborts. */
  signal?: AbortSignal | undefined;
}

/** Options of the tool-call event stream. */
export interface ToolCallEventsOptions extends StreamOptions {
  /** Only this tool's events. */
  toolName?: string | undefined;
  /** Resume after this event id (from {@link ToolCallEventMessage.id}). */
  lastEventId?: string | undefined;
  /** Reconnect when the connection drops, resuming after the last event seen. Default: unlimited reconnects. */
  reconnect?: ReconnectOptions | boolean | undefined;
  /** Told before each reconnect. */
  onReconnect?:
    | ((info: { attempt: number; delayMs: number; lastEventId: string | undefined }) => void)
    | undefined;
}

/** The operations behind one kind of catalog entry. */
interface EntryOperations {
  list: ApiOperationId;
  get: ApiOperationId;
  add: ApiOperationId;
  update: ApiOperationId;
  remove: ApiOperationId;
  removeMatching: ApiOperationId;
}

/** The calls on one kind of catalog entry, typed by the operations behind them. */
export interface CatalogEntries<O extends EntryOperations> {
  list(query?: CatalogQuery): Promise<ApiData<O["list"]>>;
  get(name: string, query?: NamespaceQuery): Promise<ApiData<O["get"]>>;
  add(entry: ApiBody<O["add"]>): Promise<ApiData<O["add"]>>;
  /** Replaces the entry named `name` with `entry`. */
  update(name: string, entry: ApiBody<O["update"]>, query?: NamespaceQuery): Promise<ApiData<O["update"]>>;
  remove(name: string, query?: NamespaceQuery): Promise<ApiData<O["remove"]>>;
  /** Removes every entry the label filter matches; resolves with what was removed. */
  removeMatching(labelFilter: string, query?: NamespaceQuery): Promise<ApiData<O["removeMatching"]>>;
}

/** The tools' operations. */
export type ToolOperations = {
  list: "listTools";
  get: "getTool";
  add: "addTool";
  update: "updateTool";
  remove: "removeTool";
  removeMatching: "removeTools";
};
/** The resources' operations. */
export type ResourceOperations = {
  list: "listResources";
  get: "getResource";
  add: "addResource";
  update: "updateResource";
  remove: "removeResource";
  removeMatching: "removeResources";
};
/** The prompts' operations. */
export type PromptOperations = {
  list: "listPrompts";
  get: "getPrompt";
  add: "addPrompt";
  update: "updatePrompt";
  remove: "removePrompt";
  removeMatching: "removePrompts";
};

/**
 * A typed client of a router's management API (`/api/**`): every call resolves with the envelope's `data`.
 * Bodies and answers are typed by the router's own operation schemas (`managementApi`).
 */
export interface ManagementClient {
  readonly baseUrl: string;
  tools: CatalogEntries<ToolOperations> & {
    /** Adds a tool after the capability has provisioned its configuration and secrets. */
    provision(request: ApiBody<"addToolWithPayload">): Promise<ApiData<"addToolWithPayload">>;
  };
  resources: CatalogEntries<ResourceOperations> & {
    /** Adds a resource after the capability has provisioned its configuration and secrets. */
    provision(request: ApiBody<"addResourceWithPayload">): Promise<ApiData<"addResourceWithPayload">>;
  };
  prompts: CatalogEntries<PromptOperations>;
  namespaces: {
    list(): Promise<ApiData<"listNamespaces">>;
    get(name: string): Promise<ApiData<"getNamespace">>;
    create(namespace: ApiBody<"createNamespace">): Promise<ApiData<"createNamespace">>;
    /** With `cascade`, the namespace's entries go too; without, a namespace that holds entries is refused. */
    delete(name: string, options?: { cascade?: boolean }): Promise<ApiData<"deleteNamespace">>;
  };
  forwards: {
    list(query?: NamespaceQuery): Promise<ApiData<"listForwards">>;
    get(name: string, query?: NamespaceQuery): Promise<ApiData<"getForward">>;
    /** Connects to the upstream, imports its catalog, and saves the forward; resolves once imported. */
    add(forward: ApiBody<"addForward">): Promise<ApiData<"addForward">>;
    update(
      name: string,
      forward: ApiBody<"updateForward">,
      query?: NamespaceQuery,
    ): Promise<ApiData<"updateForward">>;
    /** Removes the forward and everything it imported. */
    remove(name: string, query?: NamespaceQuery): Promise<ApiData<"removeForward">>;
    /** Lists the upstream again and re-imports. */
    refresh(name: string, query?: NamespaceQuery): Promise<ApiData<"refreshForward">>;
  };
  services: {
    list(): Promise<ApiData<"listCapabilities">>;
    status(): Promise<ServiceStatusSummary>;
    get(id: string): Promise<ApiData<"getCapability">>;
    health(id: string): Promise<ApiData<"capabilityHealth">>;
    /** Removes services not seen for `olderThanMs` (the router's default when absent); resolves with them. */
    removeStale(options?: { olderThanMs?: number }): Promise<ApiData<"removeStaleCapabilities">>;
    register(registration: ApiBody<"registerService">): Promise<ApiData<"registerService">>;
    deregister(id: string, serviceName?: string): Promise<void>;
    heartbeat(id: string): Promise<void>;
  };
  codeExecution: {
    /** Starts a run at once; its output is buffered until {@link stream} reads it. */
    start(engine: string, language: string, request: CodeExecutionRequest): Promise<CodeExecutionTask>;
    /**
     * Streams a task's replies as they come, then `end`. A task's stream is read once: closing it early
     * cancels the run.
     */
    stream(
      task: CodeExecutionTask | string,
      options?: StreamOptions,
    ): AsyncIterable<CodeExecutionStreamEvent>;
  };
  events: {
    /** Live tool-call events; reconnects and resumes after the last event seen unless `reconnect: false`. */
    toolCalls(options?: ToolCallEventsOptions): AsyncIterable<ToolCallEventMessage>;
    /** Tool-call events the router still holds, oldest first. */
    history(query?: ToolCallHistoryQuery): Promise<ApiData<"toolCallHistory">>;
    /** Live registry events. */
    registry(options?: StreamOptions): AsyncIterable<RegistryEventMessage>;
  };
  /** The router's OpenAPI document of this API. */
  openApiDocument(): Promise<Record<string, unknown>>;
}

/**
 * A management API failure: the router's refusal (with its HTTP `status`) or an unreachable router (no
 * `status`, code `Unavailable`). The message is the router's own, which never carries a secret.
 */
export class ManagementApiError extends TrestleError {
  constructor(
    message: string,
    code: Code,
    /** The HTTP status of the router's answer; absent when the router could not be reached. */
    readonly status?: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, code, options);
    this.name = "ManagementApiError";
  }
}

/** The Trestle code of an HTTP status, the inverse of the router's own mapping. */
function codeForStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 409:
      return Code.AlreadyExists;
    case 413:
    case 429:
      return Code.ResourceExhausted;
    case 501:
      return Code.Unimplemented;
    case 502:
    case 504:
      return Code.DeadlineExceeded;
    case 503:
      return Code.Unavailable;
    default:
      return status >= 500 ? Code.Internal : Code.Unknown;
  }
}

interface Call {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Sent as is (`text/plain`), for the heartbeat's bare id. */
  text?: string;
}

/**
 * Creates a typed client of a router's management API. Every path it calls is in {@link managementOperations},
 * which a test holds against the router's OpenAPI document.
 *
 * @example
 * ```ts
 * const router = createManagementClient({ baseUrl: "http://127.0.0.1:8080", token: process.env.TRESTLE_TOKEN });
 * await router.tools.add({ name: "weather", type: "http", uri: "https://api.example/weather" });
 * for await (const { event } of router.events.toolCalls({ signal })) console.log(event.type, event.toolName);
 * ```
 */
export function createManagementClient(options: ManagementClientOptions): ManagementClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? fetch;

  function url(operation: ManagementOperation, call: Call = {}): URL {
    const target = new URL(`${baseUrl}${operationPath(operation, call.params)}`);
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) target.searchParams.set(key, String(value));
    }
    return target;
  }

  function headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...extra };
  }

  function unreachable(error: unknown): ManagementApiError {
    const cause = (error as Error)?.cause ?? error;
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new ManagementApiError(
      `Cannot reach the router at ${baseUrl}: ${detail}`,
      Code.Unavailable,
      undefined,
      {
        cause: error,
      },
    );
  }

  async function refusal(response: Response): Promise<ManagementApiError> {
    const text = await response.text().catch(() => "");
    let message: string | undefined;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } | null }).error?.message;
    } catch {
      message = undefined;
    }
    return new ManagementApiError(
      `${response.status}: ${message ?? (text.slice(0, 200) || response.statusText)}`,
      codeForStatus(response.status),
      response.status,
    );
  }

  async function call<T>(operation: ManagementOperation, request: Call = {}): Promise<T> {
    const body =
      request.body !== undefined
        ? JSON.stringify(request.body)
        : request.text !== undefined
          ? request.text
          : undefined;
    const contentType =
      request.body !== undefined ? "application/json" : request.text !== undefined ? "text/plain" : undefined;
    let response: Response;
    try {
      response = await fetchImpl(url(operation, request), {
        method: operation.method,
        headers: headers(contentType ? { "content-type": contentType } : {}),
        ...(body !== undefined ? { body } : {}),
      });
    } catch (error) {
      throw unreachable(error);
    }
    if (!response.ok) throw await refusal(response);
    const text = await response.text();
    if (text.length === 0) return null as T;
    const parsed = JSON.parse(text) as Record<string, unknown>;
    // Every answer is the `{error, data}` envelope, but for the OpenAPI document, which may be served bare.
    if (operation === managementOperations.openApiDocument && !("data" in parsed)) return parsed as T;
    const warnings = parsed.warnings;
    if (Array.isArray(warnings) && warnings.length > 0) options.onWarnings?.(warnings.map(String));
    return (parsed.data ?? null) as T;
  }

  function stream(
    target: URL,
    streamOptions: StreamOptions & {
      lastEventId?: string | undefined;
      reconnect?: ReconnectOptions | boolean | undefined;
      onReconnect?: ToolCallEventsOptions["onReconnect"];
    },
  ): AsyncIterable<ServerSentEvent> {
    return readEventStream(
      async ({ lastEventId, signal }) => {
        try {
          return await fetchImpl(target, {
            headers: headers({
              accept: "text/event-stream",
              ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}),
            }),
            signal,
          });
        } catch (error) {
          if ((error as Error)?.name === "AbortError") throw error;
          // Unreachable is worth a reconnect; the loop decides, and gives this error up when it stops trying.
          throw unreachable(error);
        }
      },
      {
        signal: streamOptions.signal,
        lastEventId: streamOptions.lastEventId,
        reconnect: streamOptions.reconnect,
        onReconnect: streamOptions.onReconnect,
        failure: refusal,
      },
    );
  }

  function entries<O extends EntryOperations>(kind: "Tool" | "Resource" | "Prompt"): CatalogEntries<O> {
    const ops = managementOperations;
    const op = {
      Tool: {
        list: ops.listTools,
        add: ops.addTool,
        get: ops.getTool,
        update: ops.updateTool,
        remove: ops.removeTool,
        matching: ops.removeToolsMatching,
      },
      Resource: {
        list: ops.listResources,
        add: ops.addResource,
        get: ops.getResource,
        update: ops.updateResource,
        remove: ops.removeResource,
        matching: ops.removeResourcesMatching,
      },
      Prompt: {
        list: ops.listPrompts,
        add: ops.addPrompt,
        get: ops.getPrompt,
        update: ops.updatePrompt,
        remove: ops.removePrompt,
        matching: ops.removePromptsMatching,
      },
    }[kind];
    return {
      list: (query = {}) =>
        call(op.list, { query: { namespace: query.namespace, labelFilter: query.labelFilter } }),
      get: (name, query = {}) => call(op.get, { params: { name }, query: { namespace: query.namespace } }),
      add: (entry) => call(op.add, { body: entry }),
      update: (name, entry, query = {}) =>
        call(op.update, { params: { name }, query: { namespace: query.namespace }, body: entry }),
      remove: (name, query = {}) =>
        call(op.remove, { params: { name }, query: { namespace: query.namespace } }),
      removeMatching: (labelFilter, query = {}) =>
        call(op.matching, { query: { namespace: query.namespace, labelFilter } }),
    };
  }

  const ops = managementOperations;
  return {
    baseUrl,
    tools: {
      ...entries<ToolOperations>("Tool"),
      provision: (request) => call(ops.provisionTool, { body: request }),
    },
    resources: {
      ...entries<ResourceOperations>("Resource"),
      provision: (request) => call(ops.provisionResource, { body: request }),
    },
    prompts: entries<PromptOperations>("Prompt"),
    namespaces: {
      list: () => call(ops.listNamespaces),
      get: (name) => call(ops.getNamespace, { params: { name } }),
      create: (namespace) => call(ops.createNamespace, { body: namespace }),
      delete: (name, deleteOptions = {}) =>
        call(ops.deleteNamespace, {
          params: { name },
          query: { cascade: deleteOptions.cascade ? true : undefined },
        }),
    },
    forwards: {
      list: (query = {}) => call(ops.listForwards, { query: { namespace: query.namespace } }),
      get: (name, query = {}) =>
        call(ops.getForward, { params: { name }, query: { namespace: query.namespace } }),
      add: (forward) => call(ops.addForward, { body: forward }),
      update: (name, forward, query = {}) =>
        call(ops.updateForward, { params: { name }, query: { namespace: query.namespace }, body: forward }),
      remove: (name, query = {}) =>
        call(ops.removeForward, { params: { name }, query: { namespace: query.namespace } }),
      refresh: (name, query = {}) =>
        call(ops.refreshForward, { params: { name }, query: { namespace: query.namespace } }),
    },
    services: {
      list: () => call(ops.listServices),
      status: () => call(ops.serviceStatus),
      get: (id) => call(ops.getService, { params: { id } }),
      health: (id) => call(ops.serviceHealth, { params: { id } }),
      removeStale: (staleOptions = {}) =>
        call(ops.removeStaleServices, { query: { olderThanMs: staleOptions.olderThanMs } }),
      register: (registration) => call(ops.register, { body: registration }),
      deregister: async (id, serviceName) => {
        await call(ops.deregister, { body: { id, ...(serviceName !== undefined ? { serviceName } : {}) } });
      },
      heartbeat: async (id) => {
        await call(ops.heartbeat, { text: id });
      },
    },
    codeExecution: {
      start: (engine, language, request) =>
        call(ops.startCodeExecution, { params: { engine, language }, body: request }),
      async *stream(task, streamOptions = {}) {
        const taskId = typeof task === "string" ? task : task.taskId;
        for await (const message of stream(
          url(ops.streamCodeExecution, { params: { id: taskId } }),
          streamOptions,
        )) {
          yield { event: message.event, data: JSON.parse(message.data) } as CodeExecutionStreamEvent;
        }
      },
    },
    events: {
      async *toolCalls(eventOptions = {}) {
        const target = url(ops.toolCallEvents, { query: { toolName: eventOptions.toolName } });
        for await (const message of stream(target, {
          signal: eventOptions.signal,
          lastEventId: eventOptions.lastEventId,
          reconnect: eventOptions.reconnect ?? true,
          onReconnect: eventOptions.onReconnect,
        })) {
          yield { id: message.id, event: JSON.parse(message.data) as ToolCallEvent };
        }
      },
      history: (query = {}) =>
        call(ops.toolCallHistory, {
          query: {
            limit: query.limit,
            toolName: query.toolName,
            type: query.type,
            namespace: query.namespace,
          },
        }),
      async *registry(streamOptions = {}) {
        for await (const message of stream(url(ops.registryEvents), streamOptions)) {
          yield JSON.parse(message.data) as RegistryEventMessage;
        }
      },
    },
    openApiDocument: () => call(ops.openApiDocument),
  };
}
