import { type Part, Role, type SendMessageRequest, TaskState } from "@a2a-js/sdk";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  createCallScope,
  healthFromProbeError,
  type JsonObject,
  type JsonValue,
  type ServiceTarget,
  type ToolCall,
  type ToolResult,
  type TranslationLeg,
  type TranslationNote,
  type TranslationRecorder,
  TrestleError,
  translationRecorderKey,
  upstreamCredentialKey,
  withCredentialHeaders,
} from "@trestle/core";
import { appendParts, dataPart, partsToContent, textOf, textPart } from "./a2a-content.js";
import { a2aFailure, unimplemented } from "./a2a-failure.js";
import { A2A_META_KEY, checkCredentials } from "./agent-catalog.js";
import { type A2aAgent, type AgentConnection, connectAgent } from "./agent-client.js";
import { A2A_INPUT_KEY, answerText, fromAnswers, REPLY_SCHEMA } from "./agent-questions.js";
import { type Credential, sendOptions } from "./call-credential.js";
import { skillArguments } from "./skill-arguments.js";
import { a2aSkillUri, parseA2aSkillUri } from "./skill-uri.js";
import { type Exchange, fromTask, isTerminal, taskStateName } from "./task-exchange.js";
import { decodeTaskHandle, encodeTaskHandle, type TaskHandle } from "./task-handle.js";
import { traceHeaders } from "./trace-headers.js";

// The input key and the names of task states are part of this module's API: results carry them.
export { A2A_INPUT_KEY, taskStateName };

/** Where the transport finds the agent behind a target: the router's A2A forwards. Asked on every call. */
export interface A2aAgentDirectory {
  /** The agent behind `target`, or `undefined` when there is none (the call then fails with `NotFound`). */
  agentFor(target: ServiceTarget): A2aAgent | undefined;
}

/** Options for {@link createA2aTransport}. */
export interface A2aTransportOptions {
  /** The router's A2A forwards; wins over `agentFor`. */
  directory?: A2aAgentDirectory;
  /** The agent behind a target. Default: `http://<host>:<port>` of the target. */
  agentFor?: (target: ServiceTarget) => A2aAgent | undefined;
  /** Default deadline of a call, all turns included. Default 120,000 ms; `CallOptions.timeoutMs` wins. */
  timeoutMs?: number;
  /**
   * How many times one call may ask the client for input while it runs (when the caller can ask: the call has
   * `onInputRequest`). Default 8; past it, the call returns `inputRequired` instead.
   */
  maxInputRounds?: number;
  /** How long a card read stays in use before it is read again. Default 300,000 ms. */
  cardTtlMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_INPUT_ROUNDS = 8;
const DEFAULT_CARD_TTL_MS = 300_000;
const CANCEL_TIMEOUT_MS = 5_000;

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener that throws must not fail the call.
  }
}

/**
 * Creates a {@link BridgeTransport} that puts A2A agents (v1.0, and v0.3 through the SDK's compatibility layer)
 * behind the router with `@a2a-js/sdk`. Each skill of an agent's card is a tool (see `readAgentCatalog`); calling
 * it sends one A2A message:
 *
 * - the call's `message` argument as a text part, `data` as a data part, the skill's id in the message's
 *   metadata (`skillId`: A2A has no skill field), with `SendStreamingMessage` when the card says the agent
 *   streams (each chunk relayed through `CallOptions.onProgress`) and `SendMessage` otherwise; the `A2A-Version`
 *   and method names of the version the card speaks (`message/send`, `message/stream` for v0.3);
 * - the reply's parts become MCP content (text; a file by URL a resource link; a file by bytes an image, audio or
 *   embedded resource; a data part `structuredContent.data` plus a JSON text block);
 * - the task and context ids come back as an opaque handle, `structuredContent.task` (and `_meta`), which the
 *   client passes back as the `task` argument to carry on the conversation;
 * - `INPUT_REQUIRED`: asked through `CallOptions.onInputRequest` as an elicitation while the call runs when the
 *   caller can ask, else returned as `ToolResult.inputRequired` (state: the handle) with the question as text;
 *   the repeated call's `ToolCall.input` answers it in the same task;
 * - `FAILED`, `REJECTED`, `CANCELED` (by the agent) and `AUTH_REQUIRED` are `isError` results saying so;
 * - aborting the call's signal (or its deadline passing) sends `CancelTask` for the running task.
 *
 * The translation is reported through the call's {@link TranslationRecorder} (core's `translationRecorderKey`):
 * the backend leg (`a2a`, version, method) and what was rewritten, approximated or dropped.
 *
 * `readResource`, `getPrompt`, `executeCode` and `provision` reject with `Unimplemented`; `probeHealth` reads the
 * card. Failures are `TrestleError`s naming the agent by its origin only; header values never appear.
 */
export function createA2aTransport(options: A2aTransportOptions = {}): BridgeTransport {
  const { directory } = options;
  const agentFor = directory
    ? (target: ServiceTarget) => directory.agentFor(target)
    : (options.agentFor ??
      ((target: ServiceTarget): A2aAgent => ({ url: `http://${target.host}:${target.port}` })));
  const cardTtlMs = options.cardTtlMs ?? DEFAULT_CARD_TTL_MS;
  const maxInputRounds = options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
  const connections = new Map<string, { key: string; at: number; connection: Promise<AgentConnection> }>();
  let closed = false;
  /** The legs calls spoke, frozen and shared by version and method: a history keeps a report per call. */
  const legs = new Map<string, TranslationLeg>();

  function legFor(version: string, method: string): TranslationLeg {
    const key = `${version}\u0000${method}`;
    let leg = legs.get(key);
    if (!leg) {
      leg = Object.freeze({ protocol: "a2a", version, method });
      // Two versions and two methods make four; an agent's odd version string gets no room past a few.
      if (legs.size < 16) legs.set(key, leg);
    }
    return leg;
  }

  function resolveAgent(target: ServiceTarget): A2aAgent {
    if (closed) throw new TrestleError("The A2A transport is closed", Code.Unavailable);
    const agent = agentFor(target);
    if (!agent) {
      throw new TrestleError(
        `No A2A agent is configured behind service '${target.serviceName}' (id ${target.id})`,
        Code.NotFound,
      );
    }
    return agent;
  }

  async function connectionFor(
    target: ServiceTarget,
    agent: A2aAgent,
    signal: AbortSignal,
  ): Promise<AgentConnection> {
    const key = JSON.stringify([agent.url, agent.headers ?? {}]);
    const cached = connections.get(target.id);
    if (cached && cached.key === key && Date.now() - cached.at < cardTtlMs) return cached.connection;
    const connection = connectAgent(agent, signal).then((c) => {
      checkCredentials(c.card, agent);
      return c;
    });
    const entry = { key, at: Date.now(), connection };
    connections.set(target.id, entry);
    connection.catch(() => {
      if (connections.get(target.id) === entry) connections.delete(target.id);
    });
    return connection;
  }

  async function cancelQuietly(connection: AgentConnection, taskId: string, credential: Credential) {
    try {
      await connection.client.cancelTask(
        { tenant: "", id: taskId, metadata: undefined },
        sendOptions(AbortSignal.timeout(CANCEL_TIMEOUT_MS), credential),
      );
    } catch {
      // The task may have ended meanwhile; the call's own outcome stands.
    }
  }

  async function callTool(
    call: ToolCall,
    target: ServiceTarget,
    callOptions?: CallOptions,
  ): Promise<ToolResult> {
    const { forward, skillId } = parseA2aSkillUri(call.tool.uri);
    // The router's credential for this call's caller goes with its requests (failures are scrubbed of it too).
    const credential = callOptions?.contextValues?.get(upstreamCredentialKey);
    const configured = resolveAgent(target);
    const agent = credential
      ? { ...configured, headers: withCredentialHeaders(configured.headers, credential) }
      : configured;
    const args = skillArguments(call.arguments ?? {});
    const recorder = callOptions?.contextValues?.get(translationRecorderKey);
    const notes: TranslationNote[] = [];
    const note = (action: TranslationNote["action"], what: string, detail: string) => {
      if (notes.some((n) => n.what === what && n.detail === detail)) return;
      const entry = { action, what, detail };
      notes.push(entry);
      recorder?.note(entry);
    };
    const deadlineMs = callOptions?.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const fileUri = (name: string) => `${a2aSkillUri(forward, skillId)}/files/${encodeURIComponent(name)}`;

    // What the first message says: the arguments, or the answer to an earlier turn's question.
    let handle: TaskHandle | undefined;
    let parts: Part[] = [];
    if (call.input) {
      const answered = fromAnswers(call.input);
      handle = answered.handle;
      if (!answered.accepted) {
        // The client declined: the task waits for nobody, so it ends here.
        const declined = createCallScope(callOptions?.signal, deadlineMs);
        try {
          const connection = await connectionFor(target, configured, declined.signal);
          if (handle.taskId) await cancelQuietly(connection, handle.taskId, credential);
        } finally {
          declined.dispose();
        }
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: "The client declined the agent's request for input; the A2A task was cancelled",
            },
          ],
          structuredContent: { state: "canceled" },
        };
      }
      parts = [textPart(answered.text as string)];
      note("rewritten", "input answer", "the client's answer sent to the waiting A2A task as a text part");
    } else {
      if (args.task !== undefined) handle = decodeTaskHandle(args.task);
      if (args.message !== undefined) parts.push(textPart(args.message));
      if (args.data !== undefined) parts.push(dataPart(args.data));
      if (parts.length === 0) {
        throw new TrestleError(
          "Give 'message' (text) or 'data' (an object) to send to the agent",
          Code.InvalidArgument,
        );
      }
    }
    note(
      "approximated",
      "skill input schema",
      "A2A skills declare no input schema: the tool took a text message, optional data and a task handle",
    );
    note(
      "rewritten",
      "tools/call arguments",
      "sent as one A2A message: 'message' as a text part, 'data' as a data part, the skill id in message metadata 'skillId' (A2A has no skill field)",
    );
    if (handle)
      note("rewritten", "task handle", "the opaque 'task' handle carried back as A2A taskId/contextId");

    // The call's deadline and cancellation, from here on: arguments that cannot be sent fail before it starts.
    const scope = createCallScope(callOptions?.signal, deadlineMs);

    let connection: AgentConnection | undefined;
    let exchange: Exchange | undefined;
    try {
      connection = await connectionFor(target, configured, scope.signal);
      const streaming = connection.card.capabilities?.streaming === true;
      const legacy = connection.version.startsWith("0.");
      const method = streaming
        ? legacy
          ? "message/stream"
          : "SendStreamingMessage"
        : legacy
          ? "message/send"
          : "SendMessage";
      recorder?.backend(legFor(connection.version, method));

      let progress = 0;
      const onProgress = callOptions?.onProgress;
      const report = (text: string) => {
        if (!onProgress || !text) return;
        progress += 1;
        safely(() => onProgress({ progress, message: text }));
      };

      for (let round = 0; ; round++) {
        const request: SendMessageRequest = {
          tenant: "",
          message: {
            messageId: crypto.randomUUID(),
            contextId: handle?.contextId ?? "",
            taskId: handle?.taskId ?? "",
            role: Role.ROLE_USER,
            parts,
            metadata: { skillId },
            extensions: [],
            referenceTaskIds: handle?.previousTaskId ? [handle.previousTaskId] : [],
          },
          configuration: undefined,
          metadata: undefined,
        };
        exchange = { contextId: handle?.contextId ?? "", statusParts: [], artifacts: new Map() };
        await exchangeMessage(
          connection,
          request,
          streaming,
          exchange,
          scope.signal,
          report,
          credential,
          traceHeaders(callOptions),
        );
        if (exchange.state !== TaskState.TASK_STATE_INPUT_REQUIRED || !callOptions?.onInputRequest) break;
        if (round >= maxInputRounds) break;
        const question = textOf(exchange.statusParts).trim() || "The agent needs more input";
        note(
          "rewritten",
          "TASK_STATE_INPUT_REQUIRED",
          "asked of the client as an MCP elicitation while the call ran",
        );
        const answer = await callOptions.onInputRequest({
          kind: "elicitation",
          params: { message: question, requestedSchema: REPLY_SCHEMA },
        });
        const text =
          answer.action === "accept" ? answerText(answer.result?.content ?? answer.result) : undefined;
        if (text === undefined) {
          if (exchange.taskId) await cancelQuietly(connection, exchange.taskId, credential);
          return {
            isError: true,
            content: [
              {
                type: "text",
                text: "The client declined the agent's request for input; the A2A task was cancelled",
              },
            ],
            structuredContent: { state: "canceled" },
          };
        }
        handle = { contextId: exchange.contextId, ...(exchange.taskId ? { taskId: exchange.taskId } : {}) };
        parts = [textPart(text)];
      }
      return resultOf(exchange, connection, fileUri, note);
    } catch (thrown) {
      if (scope.signal.aborted) {
        const reason = TrestleError.from(scope.signal.reason, Code.Canceled);
        if (connection && exchange?.taskId && !isTerminal(exchange.state)) {
          note("rewritten", "cancellation", "the call's cancellation sent to the agent as CancelTask");
          await cancelQuietly(connection, exchange.taskId, credential);
        }
        throw reason;
      }
      throw a2aFailure(thrown, agent, "SendMessage");
    } finally {
      scope.dispose();
    }
  }

  async function exchangeMessage(
    connection: AgentConnection,
    request: SendMessageRequest,
    streaming: boolean,
    into: Exchange,
    signal: AbortSignal,
    report: (text: string) => void,
    credential: Credential,
    trace?: Record<string, string>,
  ): Promise<void> {
    if (!streaming) {
      const reply = await connection.client.sendMessage(request, sendOptions(signal, credential, trace));
      if ("role" in reply) {
        into.message = reply;
        into.contextId = reply.contextId || into.contextId;
      } else {
        fromTask(reply, into);
      }
      return;
    }
    // A call cancelled before the agent named its task would leave the task running, with no id to cancel it by:
    // the stream is read on until the id comes (at most CANCEL_TIMEOUT_MS), then the caller sends CancelTask.
    const stream = new AbortController();
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      if (into.taskId) stream.abort(signal.reason);
      else grace = setTimeout(() => stream.abort(signal.reason), CANCEL_TIMEOUT_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const event of connection.client.sendMessageStream(
        request,
        sendOptions(stream.signal, credential, trace),
      )) {
        const payload = event.payload;
        switch (payload?.$case) {
          case "message":
            into.message = payload.value;
            into.contextId = payload.value.contextId || into.contextId;
            report(textOf(payload.value.parts));
            break;
          case "task":
            fromTask(payload.value, into);
            break;
          case "statusUpdate": {
            const { status } = payload.value;
            into.taskId = payload.value.taskId || into.taskId;
            into.contextId = payload.value.contextId || into.contextId;
            into.state = status?.state;
            into.statusParts = status?.message?.parts ?? [];
            if (status?.state === TaskState.TASK_STATE_WORKING) report(textOf(into.statusParts));
            break;
          }
          case "artifactUpdate": {
            const { artifact, append } = payload.value;
            if (!artifact) break;
            const existing = append ? (into.artifacts.get(artifact.artifactId) ?? []) : [];
            into.artifacts.set(artifact.artifactId, appendParts(existing, artifact.parts));
            report(textOf(artifact.parts));
            break;
          }
        }
        if (signal.aborted && into.taskId) break;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      clearTimeout(grace);
      signal.removeEventListener("abort", onAbort);
    }
    if (signal.aborted) throw TrestleError.from(signal.reason, Code.Canceled);
  }

  function resultOf(
    exchange: Exchange,
    connection: AgentConnection,
    fileUri: (name: string) => string,
    note: (action: TranslationNote["action"], what: string, detail: string) => void,
  ): ToolResult {
    const state = exchange.message ? undefined : exchange.state;
    const stateName = exchange.message ? "message" : taskStateName(state);
    const artifactParts = [...exchange.artifacts.values()].flat();
    if (exchange.artifacts.size > 1) {
      note(
        "approximated",
        "artifacts",
        "several A2A artifacts flattened into one list of MCP content blocks",
      );
    }
    const replyParts = exchange.message
      ? exchange.message.parts
      : artifactParts.length > 0
        ? [...artifactParts, ...exchange.statusParts]
        : exchange.statusParts;
    const translated = partsToContent(replyParts, fileUri);
    for (const n of translated.notes) note(n.action, n.what, n.detail);

    const waiting =
      state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
    const handle: TaskHandle | undefined = exchange.contextId
      ? {
          contextId: exchange.contextId,
          ...(waiting && exchange.taskId ? { taskId: exchange.taskId } : {}),
          ...(!waiting && exchange.taskId ? { previousTaskId: exchange.taskId } : {}),
        }
      : undefined;
    const structured: JsonObject = { state: stateName };
    if (handle) structured.task = encodeTaskHandle(handle);
    if (translated.data.length > 0)
      structured.data = translated.data.length === 1 ? (translated.data[0] as JsonValue) : translated.data;
    const meta: JsonObject = {
      [A2A_META_KEY]: {
        protocolVersion: connection.version,
        contextId: exchange.contextId,
        ...(exchange.taskId ? { taskId: exchange.taskId } : {}),
        state: stateName,
      },
    };
    if (handle)
      note(
        "rewritten",
        "A2A task and context ids",
        "returned to the client as the opaque handle structuredContent.task",
      );
    const result: ToolResult = { content: translated.content, structuredContent: structured, _meta: meta };
    const said = textOf(exchange.statusParts).trim();
    const failure = (text: string, what: string): ToolResult => {
      note("rewritten", what, "returned as an isError tool result");
      return {
        ...result,
        isError: true,
        content: [{ type: "text", text }, ...translated.content.filter((c) => c.type !== "text")],
      };
    };
    switch (state) {
      case undefined:
      case TaskState.TASK_STATE_COMPLETED:
        return result;
      case TaskState.TASK_STATE_INPUT_REQUIRED: {
        const question = said || "The agent needs more input";
        note(
          "rewritten",
          "TASK_STATE_INPUT_REQUIRED",
          "returned as inputRequired (an elicitation keyed 'reply', state: the task handle)",
        );
        return {
          ...result,
          content: [
            ...translated.content,
            {
              type: "text",
              text: "The agent is waiting for your answer: call this tool again with 'task' set to structuredContent.task and your answer as 'message'.",
            },
          ],
          inputRequired: {
            requests: {
              [A2A_INPUT_KEY]: {
                kind: "elicitation",
                params: { message: question, requestedSchema: REPLY_SCHEMA },
              },
            },
            ...(structured.task ? { state: structured.task as string } : {}),
          },
        };
      }
      case TaskState.TASK_STATE_AUTH_REQUIRED:
        return failure(
          `The A2A agent needs authentication before it can go on${said ? `: ${said}` : ""}. Configure the credentials its card asks for on the forward, then carry on with the same 'task'.`,
          "TASK_STATE_AUTH_REQUIRED",
        );
      case TaskState.TASK_STATE_FAILED:
        return failure(`The A2A agent failed the task${said ? `: ${said}` : ""}`, "TASK_STATE_FAILED");
      case TaskState.TASK_STATE_REJECTED:
        return failure(`The A2A agent rejected the task${said ? `: ${said}` : ""}`, "TASK_STATE_REJECTED");
      case TaskState.TASK_STATE_CANCELED:
        return failure(`The A2A agent cancelled the task${said ? `: ${said}` : ""}`, "TASK_STATE_CANCELED");
      default:
        return failure(
          `The A2A agent's answer ended while its task was still ${stateName}; nothing more came`,
          `task state ${stateName}`,
        );
    }
  }

  return {
    callTool,
    async readResource() {
      throw unimplemented("resources/read");
    },
    executeCode(): AsyncIterable<CodeOutput> {
      const error = unimplemented("executeCode");
      return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) };
    },
    async provision() {
      throw unimplemented("provision");
    },
    async probeHealth(target, callOptions) {
      try {
        const agent = resolveAgent(target);
        const scope = createCallScope(callOptions?.signal, callOptions?.timeoutMs ?? 10_000);
        try {
          await connectAgent(agent, scope.signal);
        } finally {
          scope.dispose();
        }
        return { state: "healthy" };
      } catch (error) {
        return healthFromProbeError(error);
      }
    },
    release(target) {
      connections.delete(target.id);
    },
    async close() {
      closed = true;
      connections.clear();
    },
  };
}
