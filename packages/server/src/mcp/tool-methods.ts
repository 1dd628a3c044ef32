import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "@trestle/bridge";
import type { JsonObject, ToolReference, ToolResult } from "@trestle/core";
import type { ToolCallOptions } from "../calls/call-service.js";
import {
  answerWithoutInput,
  asProtocolError,
  asTaskError,
  inputCapabilitiesOf,
  refusalResult,
} from "./call-outcome.js";
import { acceptCommonToolCall } from "./call-tool-params.js";
import {
  INPUT_METHOD,
  type InputRequiredResult,
  inputRequiredResult,
  inputResponseFrom,
  readInputAnswers,
  relayInputToSession,
  requireInputCapabilities,
} from "./input-relay.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ListPages } from "./list-pages.js";
import {
  logLevelWanted,
  type McpRequestExtra,
  type McpRequestHandler,
  onRequest,
  type RequestOrigin,
  wantedLogLevel,
} from "./method-table.js";
import type { NamespaceScope } from "./namespace-scope.js";
import { createParamHeaderCheck } from "./param-headers.js";
import type { CallTurn } from "./parked-calls.js";
import { ProtocolError } from "./protocol-error.js";
import type { LogLevel } from "./session-registry.js";
import { declaresTasks, type TaskHandle, tasksRequired } from "./tasks.js";
import { toMcpTool } from "./tool-listing.js";
import { encodeToolResult } from "./wire/results.js";
import type { McpRevision } from "./wire/revisions.js";
import type { CallToolResultIn } from "./wire/types.js";

/**
 * What `tools/call` answers: the tool's result in the client's revision, or (for a stateless client) a task to
 * poll or a request for input.
 */
type ToolCallAnswer = CallToolResultIn<McpRevision> | TaskHandle | InputRequiredResult;

/**
 * Adds `tools/list` and `tools/call` to `table`: the tools the call service lets the request's principal see, and
 * their calls through it, relayed in each era's way (tasks, `input_required` with a sealed state and a held call,
 * or questions asked on a session's stream).
 */
export function registerToolMethods(table: Map<string, McpRequestHandler>, scope: NamespaceScope): void {
  const { backend, namespace } = scope;
  const calls = backend.calls;
  const checkParamHeaders = createParamHeaderCheck();
  /** The pages of each list the call service hands out (the same list while nothing changed: made once). */
  const pages = new WeakMap<readonly ToolReference[], ListPages<"tools">>();

  onRequest(table, "tools/list", ListToolsRequestSchema, (request, extra) => {
    scope.requireCapability("tools", "tools/list");
    const tools = calls.listTools(extra.origin);
    let made = pages.get(tools);
    if (!made) {
      // A page is the same for every client of a revision: it is encoded and serialized once (a catalog of
      // 10,000 tools is ten pages of 380 KB of JSON, each a few milliseconds to write again).
      made = new ListPages("tools", tools.map(toMcpTool), scope.settings.pageSize);
      pages.set(tools, made);
    }
    return made.page(request.params?.cursor, scope.cacheHints(extra.origin));
  });

  onRequest(
    table,
    "tools/call",
    CallToolRequestSchema,
    async (request, extra, raw): Promise<ToolCallAnswer> => {
      scope.requireCapability("tools", "tools/call");
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as JsonObject;
      const tool = calls.findTool(extra.origin, name);
      if (!tool) throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const progressToken = request.params._meta?.progressToken;
      if (calls.isCodeExecution(tool)) return runCode(tool, args, extra, progressToken);
      return callCatalogTool(tool, args, request.params._meta, extra, raw);
    },
    acceptCommonToolCall,
  );

  /** A call of the service, its refusals (policy, bounds) as tool results and its other failures in MCP's terms. */
  const call = (origin: RequestOrigin, tool: ToolReference, args: JsonObject, options: ToolCallOptions) =>
    calls.callTool(origin, tool, args, options).catch((error: unknown) => {
      const refused = refusalResult(error);
      if (refused) return refused;
      throw asProtocolError(error, `tool '${tool.name}'`);
    });

  async function runCode(
    tool: ToolReference,
    args: JsonObject,
    extra: McpRequestExtra,
    progressToken: string | number | undefined,
  ): Promise<ToolCallAnswer> {
    const origin = extra.origin;
    // Code runs long: a stateless client that declares the tasks extension gets a task to poll.
    if (origin.modern && backend.tasks && declaresTasks(origin.modern.capabilities)) {
      const started = await backend.tasks.start(
        { namespace, principal: origin.principal.id },
        (hooks) => call(origin, tool, args, scope.contextFor(origin, hooks.signal)),
        { encode: (result) => encodeToolResult(result, origin.revision).value },
      );
      if (!("task" in started)) {
        throw new ProtocolError(JsonRpcErrorCode.InternalError, "A code execution asked for input");
      }
      return started.task;
    }
    const result = await call(origin, tool, args, {
      ...scope.contextFor(origin, extra.cancellation),
      onOutput: async (chunk) => {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: chunk.sequence, message: chunk.text },
          });
        }
        const level: LogLevel = chunk.stream === "stderr" ? "warning" : "info";
        if (logLevelWanted(level, wantedLogLevel(origin))) {
          await extra.sendNotification({
            method: "notifications/message",
            params: { level, logger: "code-execution", data: { stream: chunk.stream, text: chunk.text } },
          });
        }
      },
    });
    return encodeToolResult(result, origin.revision).value;
  }

  async function callCatalogTool(
    tool: ToolReference,
    args: JsonObject,
    meta: { progressToken?: string | number } | undefined,
    extra: McpRequestExtra,
    raw: { params?: unknown },
  ): Promise<ToolCallAnswer> {
    const origin = extra.origin;
    const revision = origin.revision;
    const name = tool.name;
    // Over HTTP in the stateless era, arguments the tool marks for headers must be mirrored as sent.
    if (origin.modern && Object.keys(origin.headers).length > 0)
      checkParamHeaders(tool.inputSchema, args, origin.headers);
    const context: CallContext = scope.contextFor(origin, extra.cancellation);
    // The backend learns what this client can answer; what it then refuses for lack of it is -32021 here.
    context.inputCapabilities = inputCapabilitiesOf(
      origin.modern?.capabilities ?? origin.session?.clientCapabilities ?? {},
    );
    const execute = (ctx: CallContext) => call(origin, tool, args, ctx);
    // Whatever the backend reports during the call reaches this client: progress under the client's own token
    // (when it asked for progress), log messages at the level the client set.
    const progressToken = meta?.progressToken;
    if (progressToken !== undefined) {
      context.onProgress = (p) =>
        void extra
          .sendNotification({ method: "notifications/progress", params: { progressToken, ...p } })
          .catch(() => undefined);
    }
    context.onLog = (message) => {
      if (!logLevelWanted(message.level, wantedLogLevel(origin))) return;
      void extra
        .sendNotification({ method: "notifications/message", params: { ...message } })
        .catch(() => undefined);
    };
    const binding = {
      method: "tools/call",
      name,
      namespace,
      principal: origin.principal.id,
      arguments: args,
    };
    const answers = readInputAnswers(raw.params, scope.requestStates, binding);
    if (answers) {
      context.input = {
        responses: answers.responses,
        ...(answers.state !== undefined ? { state: answers.state } : {}),
      };
    }
    // The revision the result is encoded for: `revisionNotes` writes on the call's event what it cannot carry.
    context.client = scope.clientLeg("mcp", revision, "tools/call");
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
        { namespace, principal: origin.principal.id },
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
          }),
        {
          // Questions the client did not declare it can answer fail the task with -32021.
          checkInput: (input) => requireInputCapabilities([input], modern.capabilities),
          encode: (result) => encodeToolResult(result, revision).value,
        },
      );
      if ("task" in started) return started.task;
      requireInputCapabilities(Object.values(started.inputRequired.requests), modern.capabilities);
      return inputRequiredResult(started.inputRequired, scope.requestStates, binding);
    }
    if (modern) {
      // A stateless client: the backend's questions come back as input_required, whether the backend asks without
      // holding the call (a 2026-07-28 upstream) or while it runs (a legacy upstream: the call is held).
      const finish = (turn: CallTurn<ToolResult>): ToolCallAnswer => {
        if ("done" in turn) {
          const asks = turn.done.inputRequired;
          if (!asks) return encodeToolResult(turn.done, revision).value;
          const fallback = answerWithoutInput(turn.done, modern.capabilities);
          if (fallback) return encodeToolResult(fallback, revision).value;
          requireInputCapabilities(Object.values(asks.requests), modern.capabilities);
          return inputRequiredResult(asks, scope.requestStates, binding);
        }
        try {
          requireInputCapabilities(Object.values(turn.asks.requests), modern.capabilities);
        } catch (error) {
          scope.parkedCalls.cancel(turn.park, "The client cannot give the input the backend asked for");
          throw error;
        }
        return inputRequiredResult(turn.asks, scope.requestStates, binding, turn.park);
      };
      if (answers?.parked) {
        const turn = scope.parkedCalls.resume<ToolResult>(answers.parked, origin.principal.id, answers);
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
        await scope.parkedCalls.start<ToolResult>(
          origin.principal.id,
          (onInputRequest, signal) => execute({ ...context, onInputRequest, signal }),
          extra.cancellation.signal,
        ),
      );
    }
    let result = await execute(context);
    const fallback = answerWithoutInput(result, origin.session?.clientCapabilities ?? {});
    if (fallback) return encodeToolResult(fallback, revision).value;
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
    return encodeToolResult(result, revision).value;
  }
}
