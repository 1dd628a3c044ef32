import type { IncomingMessage, ServerResponse } from "node:http";
import {
  AgentCard,
  type AgentSkill,
  formatSSEEvent,
  SSE_HEADERS,
  type StreamResponse,
  type SubscribeToTaskRequest,
  Task,
  TaskState,
} from "@a2a-js/sdk";
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  A2A_ERROR_CODE,
  A2AError,
  TaskNotFoundError,
  toJsonRpcError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  type TaskStore,
} from "@a2a-js/sdk/server";
import type { ServerRequestObservation } from "@trestle/telemetry";
import type { Caller, CallerPrincipal } from "../calls/caller.js";
import { isJsonContentType, readBody, writeJson } from "../http/body.js";
import { createSealedBox } from "../sealed-box.js";
import type { A2aTaskTable } from "../state/a2a-tasks.js";
import { createStoreTaskStore, PrincipalUser } from "./task-store.js";
import {
  type A2aFrontBackend,
  createToolExecutor,
  METHOD_STATE_KEY,
  VERSION_STATE_KEY,
} from "./tool-executor.js";

/** The A2A version the router's agents speak. */
export const A2A_FRONT_VERSION = "1.0";

/** The A2A version of the v0.3 compatibility layer (an absent `A2A-Version` means it). */
const A2A_LEGACY_VERSION = "0.3";

/** How often `SubscribeToTask` on a replica that does not run the task reads the store. */
const FOLLOW_POLL_MS = 500;
/** How long such a subscription follows a task at most. */
const FOLLOW_MAX_MS = 10 * 60_000;
/** How long a task is kept after its last change, by default. */
const DEFAULT_TASK_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** How often old tasks are removed. */
const SWEEP_INTERVAL_MS = 60 * 60_000;

/** Options of {@link createA2aEndpoint}. */
export interface A2aEndpointOptions {
  backend: A2aFrontBackend;
  /** Where tasks live (the server's table in the store's database), so that any replica answers for them. */
  tasks: A2aTaskTable;
  maxBodyBytes: number;
  /** The router's version, on the card. */
  version: string;
  /** True when the router needs a bearer token: the card then declares it. */
  requiresToken: boolean;
  /** How this router is reached from outside (`https://router.example`); default: the request's own scheme and Host. */
  publicUrl?: string;
  /** How long a task is kept after its last change (then `GetTask` answers -32001). Default 7 days. */
  taskRetentionMs?: number;
  /** A stream whose reader leaves more than this many bytes unread is closed (bounded memory per stream). */
  sseMaxBufferedBytes: number;
  /** Told when a slow reader's stream was closed. */
  onStreamDropped?: (bufferedBytes: number) => void;
  /**
   * Seals what an `INPUT_REQUIRED` task keeps for its next message (the call's arguments), so that the stored task
   * holds none of them in clear. Replicas that share the secret continue each other's tasks; without one, only
   * this process can.
   */
  sealingSecret?: string;
  /** Most tasks one principal may hold (changed within the retention) before a new message is refused. */
  maxTasksPerPrincipal: number;
  /** Told when a request failed in a way no client caused (logged by the caller, without the request's data). */
  onError?: (error: unknown) => void;
  /**
   * Observes each A2A JSON-RPC request with a known method (telemetry: its server span, active until the handler
   * answers or returns its stream); nothing is observed without it.
   */
  observe?: (
    request: { method: string; params: unknown; id: unknown },
    req: IncomingMessage,
    namespace: string,
    principal: CallerPrincipal,
  ) => ServerRequestObservation;
}

/** The A2A front: one agent per namespace at `/{namespace}/a2a`, the default namespace's at `/a2a`. */
export interface A2aEndpoint {
  /**
   * Serves the agent card (`kind: "card"`) or a JSON-RPC request (`kind: "rpc"`) of `namespace`'s agent, made by
   * `principal`: the tasks it starts are its own, and no other principal's task answers it.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    kind: "card" | "rpc",
    principal: CallerPrincipal,
  ): Promise<void>;
  /** Cancels the calls still running and stops removing old tasks. */
  close(): void;
}

function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

/**
 * The SDK's request handler, with `SubscribeToTask` on a replica that does not run the task following the task's
 * stored state (the SDK's own follows only a task its replica runs).
 */
class ReplicaAwareRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: TaskStore,
    executor: ConstructorParameters<typeof DefaultRequestHandler>[2],
    private readonly buses: DefaultExecutionEventBusManager,
  ) {
    super(card, tasks, executor, buses);
  }

  override async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    if (this.buses.getByTaskId(params.id, context)) {
      yield* super.resubscribe(params, context);
      return;
    }
    const end = Date.now() + FOLLOW_MAX_MS;
    let last: string | undefined;
    for (;;) {
      const task = await this.tasks.load(params.id, context);
      if (!task) throw new TaskNotFoundError(`Task not found: ${params.id}`);
      if (last === undefined && isTerminal(task.status?.state)) {
        throw new UnsupportedOperationError(
          `Task ${params.id} is in a terminal state and cannot be subscribed to.`,
        );
      }
      const seen = JSON.stringify(Task.toJSON(task));
      if (seen !== last) {
        if (last === undefined) yield { payload: { $case: "task", value: task } };
        else {
          yield {
            payload: {
              $case: "statusUpdate",
              value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined },
            },
          };
        }
        last = seen;
      }
      const state = task.status?.state;
      if (isTerminal(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED || Date.now() > end) return;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    }
  }
}

/** The methods that start a task unless their message names one to continue (v1.0 and v0.3 names). */
const STARTS_TASK = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

/** True when a message request continues a task it names (it holds no new task then). */
function continuesTask(request: { params?: unknown }): boolean {
  const message = (request.params as { message?: { taskId?: unknown } } | undefined)?.message;
  return typeof message?.taskId === "string" && message.taskId !== "";
}

function jsonRpcError(res: ServerResponse, id: unknown, code: number, message: string, status = 200): void {
  writeJson(res, status, JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }));
}

function sendJson(res: ServerResponse, value: unknown): void {
  writeJson(res, 200, JSON.stringify(value));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Creates the A2A front. Each namespace is an A2A v1.0 agent (JSON-RPC binding; v0.3 clients through the SDK's
 * compatibility layer, with v0.3 method names and card): its card lists the namespace's
 * tools as skills (and the code execution tool when engines are registered); `SendMessage` and
 * `SendStreamingMessage` call a tool (see `createToolExecutor`); `GetTask`, `ListTasks`, `CancelTask` and
 * `SubscribeToTask` work on the tasks it started, from any replica (they live in the store).
 *
 * Errors are A2A's: `-32001` task not found, `-32002` not cancelable, `-32003` push notifications not supported,
 * `-32004` unsupported operation, `-32009` version not supported (a v1.0 method without `A2A-Version: 1.0`, whose
 * absence means 0.3); `-32601` only for a name that is no A2A method at all (an MCP method sent here), which
 * reaches nothing behind the router.
 */
export function createA2aEndpoint(options: A2aEndpointOptions): A2aEndpoint {
  const { backend, tasks: taskTable } = options;
  const agents = new Map<
    string,
    { handler: DefaultRequestHandler; rpc: JsonRpcTransportHandler; legacy: LegacyJsonRpcTransportHandler }
  >();
  const running = new Map<string, AbortController>();
  const pendingBox = createSealedBox("trestle a2a pending call", options.sealingSecret);
  const retentionMs = options.taskRetentionMs ?? DEFAULT_TASK_RETENTION_MS;
  // Tasks would pile up in the store forever: each replica removes the old ones now and then (idempotent). An
  // expired task reads as absent before that (the task store checks its age), so the sweep's period only bounds
  // how long its row stays.
  const sweep = setInterval(
    () => {
      void taskTable.removeA2aTasks(Date.now() - retentionMs).catch(() => undefined);
    },
    Math.min(SWEEP_INTERVAL_MS, retentionMs),
  );
  sweep.unref();

  /** The card's skeleton the SDK's handler checks versions and capabilities against. */
  const baseCard = (): AgentCard => ({
    name: "Trestle",
    description: "",
    supportedInterfaces: [
      { url: "", protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_FRONT_VERSION },
    ],
    provider: undefined,
    version: options.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: [],
    signatures: [],
  });

  function agentOf(namespace: string) {
    let agent = agents.get(namespace);
    if (!agent) {
      const buses = new DefaultExecutionEventBusManager();
      const tasks = createStoreTaskStore(taskTable, namespace, (taskId) => running.get(taskId)?.abort(), {
        retentionMs,
      });
      const handler = new ReplicaAwareRequestHandler(
        baseCard(),
        tasks,
        createToolExecutor(backend, namespace, taskTable, running, pendingBox),
        buses,
      );
      agent = {
        handler,
        rpc: new JsonRpcTransportHandler(handler),
        legacy: new LegacyJsonRpcTransportHandler(handler),
      };
      agents.set(namespace, agent);
    }
    return agent;
  }

  /** The skills of `caller`'s agent: the tools it may see, the code execution tool as a skill of its own. */
  function skills(caller: Caller): AgentSkill[] {
    const calls = backend.calls;
    const tools = calls.listTools(caller);
    const list: AgentSkill[] = tools
      .filter((tool) => !calls.isCodeExecution(tool))
      .map((tool) => ({
        id: tool.name,
        name: tool.title ?? tool.name,
        description: clip(
          `${tool.description ?? tool.name}\nCall it with a data part {"tool": "${tool.name}", "arguments": {...}}; arguments: ${JSON.stringify(tool.inputSchema ?? { type: "object" })}`,
          4_000,
        ),
        tags: ["tool"],
        examples: [],
        inputModes: ["application/json"],
        outputModes: ["application/json", "text/plain"],
        securityRequirements: [],
      }));
    const codeTool = tools.find((tool) => calls.isCodeExecution(tool));
    if (codeTool) {
      const languages = [...new Set(calls.engines().map((e) => e.language))].sort().join(", ");
      list.push({
        id: codeTool.name,
        name: "Code execution",
        description: `Runs code and streams its output (SendStreamingMessage). Languages: ${languages}. Call it with a data part {"tool": "${codeTool.name}", "arguments": {"language": ..., "code": ...}}`,
        tags: ["code-execution"],
        examples: [],
        inputModes: ["application/json"],
        outputModes: ["text/plain", "application/json"],
        securityRequirements: [],
      });
    }
    return list;
  }

  function cardFor(req: IncomingMessage, caller: Caller): AgentCard {
    const namespace = caller.namespace;
    const origin =
      options.publicUrl?.replace(/\/+$/, "") ??
      `${(req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${req.headers.host ?? "localhost"}`;
    const card = baseCard();
    card.name = namespace ? `Trestle namespace '${namespace}'` : "Trestle";
    card.description = `The tools of the Trestle router's ${namespace ? `namespace '${namespace}'` : "default namespace"}, as an A2A agent: each skill is a tool.`;
    card.supportedInterfaces = [
      {
        url: `${origin}${namespace ? `/${namespace}` : ""}/a2a`,
        protocolBinding: "JSONRPC",
        tenant: "",
        protocolVersion: A2A_FRONT_VERSION,
      },
    ];
    if (options.requiresToken) {
      card.securitySchemes = {
        bearer: {
          scheme: {
            $case: "httpAuthSecurityScheme",
            value: { description: "A Trestle token with the mcp scope", scheme: "Bearer", bearerFormat: "" },
          },
        },
      };
      card.securityRequirements = [{ schemes: { bearer: { list: [] } } }];
    }
    card.skills = skills(caller);
    return card;
  }

  async function handleRpc(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void> {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "GET, POST" }).end();
      return;
    }
    // JSON only: a form or text/plain body is what a web page may post without a preflight.
    if (!isJsonContentType(req)) {
      req.resume();
      jsonRpcError(
        res,
        null,
        A2A_ERROR_CODE.INVALID_REQUEST,
        "Invalid request: the A2A JSON-RPC binding takes Content-Type: application/json",
        415,
      );
      return;
    }
    const body = await readBody(req, options.maxBodyBytes);
    if (body.tooLarge) {
      res.writeHead(413, { connection: "close" }).end();
      return;
    }
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(body.text) as typeof request;
    } catch {
      jsonRpcError(res, null, A2A_ERROR_CODE.PARSE_ERROR, "Parse error: the body is not JSON");
      return;
    }
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
      jsonRpcError(
        res,
        null,
        A2A_ERROR_CODE.INVALID_REQUEST,
        "Invalid request: one JSON-RPC request object is expected",
      );
      return;
    }
    const method = typeof request.method === "string" ? request.method : "";
    const legacy = isLegacyJsonRpcMethod(method);
    if (!legacy && !isV1JsonRpcMethod(method)) {
      // Not an A2A method at all (an MCP method sent to the A2A leg): refused here, nothing reaches a backend.
      jsonRpcError(
        res,
        request.id,
        A2A_ERROR_CODE.METHOD_NOT_FOUND,
        `Method not found: '${clip(method, 100)}' is no A2A method${method.includes("/") ? " (MCP clients use /mcp)" : ""}`,
      );
      return;
    }
    const header = req.headers["a2a-version"];
    const requested = (Array.isArray(header) ? header[0] : header) || undefined;
    // v1.0 names with A2A-Version 1.0; v0.3 names (through the SDK's compatibility layer) with 0.3 or none.
    const version = legacy ? A2A_LEGACY_VERSION : (requested ?? A2A_LEGACY_VERSION);
    if (
      (legacy && requested !== undefined && requested !== A2A_LEGACY_VERSION) ||
      (!legacy && version !== A2A_FRONT_VERSION)
    ) {
      jsonRpcError(
        res,
        request.id,
        A2A_ERROR_CODE.VERSION_NOT_SUPPORTED,
        legacy
          ? `'${method}' is an A2A 0.3 method: send it with A2A-Version 0.3 (or none), or use the 1.0 name with 1.0`
          : `A2A version ${requested ?? "0.3 (no A2A-Version header)"} is not supported with '${method}': send A2A-Version 1.0`,
      );
      return;
    }
    if (STARTS_TASK.has(method) && !continuesTask(request)) {
      // The store's count of the principal's rows: exact across replicas, and it includes tasks past their
      // retention until the sweep removes them (at most one sweep period), so it refuses early, never late.
      const held = await taskTable.countA2aTasks(principal.id);
      if (held >= options.maxTasksPerPrincipal) {
        jsonRpcError(
          res,
          request.id,
          A2A_ERROR_CODE.INTERNAL_ERROR,
          `Too many tasks: '${principal.name}' holds ${held} tasks, the most a principal may (each is kept ${Math.round(retentionMs / 3_600_000)} h after its last change)`,
        );
        return;
      }
    }
    const context = new ServerCallContext({
      requestedVersion: version,
      user: new PrincipalUser(principal),
      state: new Map<string, unknown>([
        [METHOD_STATE_KEY, method],
        [VERSION_STATE_KEY, version],
      ]),
    });
    const agent = agentOf(namespace);
    const run = () =>
      legacy
        ? agent.legacy.handle(request as Record<string, unknown>, context)
        : agent.rpc.handle(request as Record<string, unknown>, context);
    const observation = options.observe?.(
      { method, params: request.params, id: request.id },
      req,
      namespace,
      principal,
    );
    let answer: Awaited<ReturnType<typeof run>>;
    try {
      answer = await (observation ? observation.run(run) : run());
    } catch (error) {
      observation?.end("internal", error);
      throw error;
    }
    const failed = (answer as { error?: { code?: unknown } }).error;
    observation?.end(failed ? String(failed.code) : undefined);
    if (typeof (answer as AsyncGenerator)[Symbol.asyncIterator] !== "function") {
      sendJson(res, answer);
      return;
    }
    const stream = answer as AsyncGenerator<unknown, void, undefined>;
    let first: IteratorResult<unknown, void>;
    try {
      first = await stream.next();
    } catch (error) {
      // A stream that fails before its first event (an unknown task) is a JSON-RPC error, not a broken response.
      if (error instanceof A2AError) {
        const { code, message } = toJsonRpcError(error);
        jsonRpcError(res, request.id, code, message);
      } else {
        options.onError?.(error);
        jsonRpcError(
          res,
          request.id,
          A2A_ERROR_CODE.INTERNAL_ERROR,
          "Internal error: the request could not be served",
        );
      }
      return;
    }
    if (first.done) {
      res.writeHead(204).end();
      return;
    }
    // An error before the first event is a plain JSON-RPC answer, not a stream.
    const firstValue = first.value as { error?: unknown };
    if (firstValue.error !== undefined) {
      sendJson(res, firstValue);
      await stream.return(undefined);
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    let closed = false;
    res.once("close", () => {
      closed = true;
      void stream.return(undefined);
    });
    const write = (event: unknown): boolean => {
      res.write(formatSSEEvent(event));
      if (res.writableLength <= options.sseMaxBufferedBytes) return true;
      // A reader this far behind would have the router hold the whole stream for it: it is let go.
      options.onStreamDropped?.(res.writableLength);
      res.destroy();
      return false;
    };
    try {
      if (write(first.value)) {
        for await (const event of stream) {
          if (closed || !write(event)) break;
        }
      }
    } finally {
      if (!res.writableEnded) res.end();
    }
  }

  /**
   * The card a v0.3 client reads (one that sends no `A2A-Version`, or 0.3): the v0.3 fields, with the v1.0
   * `supportedInterfaces` besides, so that either kind of client can read it.
   */
  function legacyCard(card: AgentCard): Record<string, unknown> {
    const v1 = AgentCard.toJSON(card) as Record<string, unknown>;
    const url = card.supportedInterfaces[0]?.url ?? "";
    return {
      protocolVersion: "0.3.0",
      name: card.name,
      description: card.description,
      url,
      preferredTransport: "JSONRPC",
      version: card.version,
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: card.defaultInputModes,
      defaultOutputModes: card.defaultOutputModes,
      skills: card.skills.map(({ id, name, description, tags, examples, inputModes, outputModes }) => ({
        id,
        name,
        description,
        tags,
        examples,
        inputModes,
        outputModes,
      })),
      ...(options.requiresToken
        ? { securitySchemes: { bearer: { type: "http", scheme: "Bearer" } }, security: [{ bearer: [] }] }
        : {}),
      supportedInterfaces: v1.supportedInterfaces,
    };
  }

  return {
    async handle(req, res, namespace, kind, principal) {
      if (kind === "card") {
        if (req.method !== "GET" && req.method !== "HEAD") {
          res.writeHead(405, { allow: "GET" }).end();
          return;
        }
        const header = req.headers["a2a-version"];
        const requested = (Array.isArray(header) ? header[0] : header) || A2A_LEGACY_VERSION;
        const card = cardFor(req, { principal, namespace });
        res.setHeader("vary", "A2A-Version");
        sendJson(res, requested === A2A_LEGACY_VERSION ? legacyCard(card) : AgentCard.toJSON(card));
        return;
      }
      await handleRpc(req, res, namespace, principal);
    },
    close() {
      clearInterval(sweep);
      for (const controller of running.values()) controller.abort();
    },
  };
}
