import { readServerSentEvents, type ServerSentEvent } from "./event-stream";
import type {
  CodeExecutionEvent,
  CodeExecutionTask,
  Forward,
  Namespace,
  Prompt,
  RegisteredService,
  Resource,
  ServiceCircuit,
  Tool,
  ToolCallEvent,
} from "./types";

/**
 * A refusal of the management API, with the router's own message (which never carries a secret), or a router
 * that could not be reached (`status` 0).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when the router could not be reached. */
    readonly status: number,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** True when the token is missing, wrong or not allowed: the operator must sign in again. */
  get unauthorized(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** Options for {@link createApiClient}. */
export interface ApiClientOptions {
  /** The bearer token (an `admin` token): sent in the `Authorization` header, never in a URL. */
  token: string;
  /** The router's origin (`https://router.example`); the page's own when empty. */
  origin?: string;
  /** The `fetch` to use (tests pass their own). */
  fetch?: typeof fetch;
}

/** Which tool-call events the history answers. */
export interface HistoryQuery {
  limit?: number;
  toolName?: string;
  namespace?: string;
  type?: "started" | "completed" | "failed";
}

/** A tool-call event with the SSE id to resume after it. */
export interface ToolCallMessage {
  id: string | undefined;
  event: ToolCallEvent;
}

/** What a code run takes. */
export interface CodeRunRequest {
  code: string;
  timeout?: number;
}

type Query = Record<string, string | number | undefined>;

/** Every path the UI calls, in one table, so that a test can hold each against the router's OpenAPI document. */
export const API_PATHS = {
  namespaces: "/api/v1/namespaces",
  tools: "/api/v1/tools",
  resources: "/api/v1/resources",
  prompts: "/api/v1/prompts",
  services: "/api/v1/capabilities",
  circuits: "/api/v1/capabilities/circuits",
  forwards: "/api/v1/forwards",
  forwardRefresh: "/api/v1/forwards/{name}/refresh",
  toolCallHistory: "/api/v2/tool-calls/history",
  toolCallNotifications: "/api/v2/tool-calls/notifications",
  codeExecution: "/api/v2/code-execution-engine/{engine}/{language}",
  codeExecutionStream: "/api/v2/code-execution-engine/tasks/{id}/stream",
} as const;

/** The path of `template` with each `{name}` filled in as one encoded segment. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${template} needs '${name}'`);
    return encodeURIComponent(value);
  });
}

/** The message of an error answer: the envelope's `error.message`, else the start of the body or the status. */
async function refusalOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let message: string | undefined;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } | null }).error?.message as string;
  } catch {
    message = undefined;
  }
  const detail = typeof message === "string" && message ? message : text.slice(0, 200) || response.statusText;
  return new ApiError(detail || `HTTP ${response.status}`, response.status);
}

/**
 * A client of the router's public management API for the admin UI: typed calls for what the pages show, and the
 * two event streams read over `fetch`. Every request carries the token in its `Authorization` header.
 */
export function createApiClient(options: ApiClientOptions) {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const origin = options.origin ?? "";

  function url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const text = search.toString();
    return `${origin}${path}${text ? `?${text}` : ""}`;
  }

  async function send(
    path: string,
    request: {
      method?: string;
      query?: Query;
      body?: string;
      headers?: Record<string, string>;
      signal?: AbortSignal;
    },
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetchImpl(url(path, request.query), {
        method: request.method ?? "GET",
        headers: { authorization: `Bearer ${options.token}`, ...request.headers },
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      if ((error as Error)?.name === "AbortError") throw error;
      throw new ApiError(`Cannot reach the router: ${(error as Error)?.message ?? String(error)}`, 0);
    }
    if (!response.ok) throw await refusalOf(response);
    return response;
  }

  /** Sends a request and answers the envelope's `data`. */
  async function call<T>(
    path: string,
    request: { method?: string; query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const hasBody = request.body !== undefined;
    const response = await send(path, {
      ...(request.method ? { method: request.method } : {}),
      ...(request.query ? { query: request.query } : {}),
      ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
      headers: { accept: "application/json", ...(hasBody ? { "content-type": "application/json" } : {}) },
    });
    const envelope = (await response.json()) as { data?: T };
    return envelope.data as T;
  }

  async function* stream(
    path: string,
    signal: AbortSignal,
    headers: Record<string, string> = {},
    onOpen?: () => void,
  ): AsyncGenerator<ServerSentEvent, void, undefined> {
    const response = await send(path, { signal, headers: { accept: "text/event-stream", ...headers } });
    if (!response.body) throw new ApiError("The router answered the stream without a body", response.status);
    onOpen?.();
    yield* readServerSentEvents(response.body);
  }

  const inNamespace = (namespace: string) => ({ namespace });

  return {
    listNamespaces: () => call<Namespace[]>(API_PATHS.namespaces),
    listTools: (namespace: string) => call<Tool[]>(API_PATHS.tools, { query: inNamespace(namespace) }),
    listResources: (namespace: string) =>
      call<Resource[]>(API_PATHS.resources, { query: inNamespace(namespace) }),
    listPrompts: (namespace: string) => call<Prompt[]>(API_PATHS.prompts, { query: inNamespace(namespace) }),
    /** Adds a tool; the router's refusal names every field that is wrong. */
    addTool: (tool: Tool) => call<Tool>(API_PATHS.tools, { method: "POST", body: tool }),
    listServices: () => call<RegisteredService[]>(API_PATHS.services),
    listCircuits: () => call<ServiceCircuit[]>(API_PATHS.circuits),
    /** The forwards of every namespace. */
    listForwards: () => call<Forward[]>(API_PATHS.forwards, { query: { namespace: "*" } }),
    refreshForward: (name: string, namespace: string) =>
      call<Forward>(fillPath(API_PATHS.forwardRefresh, { name }), { method: "POST", query: { namespace } }),
    toolCallHistory: (query: HistoryQuery = {}) =>
      call<ToolCallEvent[]>(API_PATHS.toolCallHistory, {
        query: {
          limit: query.limit,
          toolName: query.toolName,
          namespace: query.namespace,
          type: query.type,
        },
      }),
    /**
     * Live tool-call events until `signal` aborts; with `lastEventId`, the events after it that the router's
     * history still holds come first, so nothing between a history read and the stream is lost. `onOpen` is
     * told once the router has accepted the stream.
     */
    async *toolCalls(
      signal: AbortSignal,
      options: { lastEventId?: string | undefined; onOpen?: () => void } = {},
    ): AsyncGenerator<ToolCallMessage> {
      const headers: Record<string, string> = options.lastEventId
        ? { "last-event-id": options.lastEventId }
        : {};
      for await (const message of stream(API_PATHS.toolCallNotifications, signal, headers, options.onOpen)) {
        yield { id: message.id, event: JSON.parse(message.data) as ToolCallEvent };
      }
    },
    startCode: (engine: string, language: string, request: CodeRunRequest) =>
      call<CodeExecutionTask>(fillPath(API_PATHS.codeExecution, { engine, language }), {
        method: "POST",
        body: request,
      }),
    /** A run's output as it comes, then `end`. A task's stream can be read once. */
    async *codeOutput(taskId: string, signal: AbortSignal): AsyncGenerator<CodeExecutionEvent> {
      for await (const message of stream(fillPath(API_PATHS.codeExecutionStream, { id: taskId }), signal)) {
        yield { event: message.event, data: JSON.parse(message.data) } as CodeExecutionEvent;
      }
    },
  };
}

/** The admin UI's client of the management API. */
export type ApiClient = ReturnType<typeof createApiClient>;
