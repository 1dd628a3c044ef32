import { type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { type CallContext, createClientLegs } from "@trestle/bridge";
import {
  Code,
  type ContentBlock,
  type InputAnswers,
  type JsonObject,
  type ToolReference,
  type ToolResult,
  type TranslationNote,
  TrestleError,
} from "@trestle/core";
import type { CallService } from "../calls/call-service.js";
import type { Caller } from "../calls/caller.js";
import type { SealedBox } from "../sealed-box.js";
import type { A2aTaskTable } from "../state/a2a-tasks.js";
import { principalOf } from "./task-store.js";

/** What the A2A front calls tools through: the call service every front shares. */
export interface A2aFrontBackend {
  calls: CallService;
}

/** The server call context's state key holding the JSON-RPC method (the client leg of the report). */
export const METHOD_STATE_KEY = "trestle.a2a.method";
/** The server call context's state key holding the A2A version the client spoke. */
export const VERSION_STATE_KEY = "trestle.a2a.version";

/** Where a task that waits for input keeps what the repeated call needs, in its metadata. */
const PENDING_KEY = "trestle.pending";

/** The call an `INPUT_REQUIRED` task repeats with the next message's answer (sealed in the task's metadata). */
interface PendingCall {
  tool: string;
  arguments: JsonObject;
  /** The key the backend asked its question under: the next message answers it. */
  key: string;
  state?: string;
}

/** A pending call opened from its seal, or `undefined` for anything else. */
function pendingCall(value: unknown): PendingCall | undefined {
  if (
    !isObject(value) ||
    typeof value.tool !== "string" ||
    typeof value.key !== "string" ||
    !isObject(value.arguments)
  )
    return undefined;
  return {
    tool: value.tool,
    arguments: value.arguments,
    key: value.key,
    ...(typeof value.state === "string" ? { state: value.state } : {}),
  };
}

/** How often a running call checks the store for a cancellation another replica wrote. */
const CANCEL_POLL_MS = 1_000;

/** The most tool names a refusal lists. */
const LISTED_TOOLS = 20;

/** A call to make (a tool of the catalog, or the code execution tool), its arguments, and how they were read. */
type PlannedCall =
  | {
      kind: "tool";
      tool: ToolReference;
      arguments: JsonObject;
      input?: InputAnswers;
      notes: TranslationNote[];
    }
  | { kind: "refused"; reason: string };

function part(content: Part["content"], extra: Partial<Part> = {}): Part {
  return { content, metadata: undefined, filename: "", mediaType: "", ...extra };
}

function textPart(text: string): Part {
  return part({ $case: "text", value: text }, { mediaType: "text/plain" });
}

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(message: Message): string {
  return message.parts
    .flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))
    .join("\n")
    .trim();
}

/**
 * The argument a text-only message fills: the only required string property, else the only string property, of
 * the tool's input schema; `undefined` when the schema has none or several.
 */
function textArgument(tool: ToolReference): string | undefined {
  const properties = Object.entries(tool.inputSchema?.properties ?? {});
  const strings = properties
    .filter(([, p]) => (p as { type?: unknown }).type === "string")
    .map(([name]) => name);
  const required = new Set(tool.inputSchema?.required ?? []);
  const requiredStrings = strings.filter((name) => required.has(name));
  if (requiredStrings.length === 1) return requiredStrings[0];
  if (requiredStrings.length === 0 && strings.length === 1) return strings[0];
  return undefined;
}

/** MCP content as A2A parts: text as text, images, audio and embedded blobs as bytes, links as URLs. */
export function contentToParts(content: readonly ContentBlock[]): Part[] {
  return content.map((block) => {
    switch (block.type) {
      case "text":
        return textPart(block.text);
      case "image":
      case "audio":
        return part(
          { $case: "raw", value: Buffer.from(block.data, "base64") },
          { mediaType: block.mimeType },
        );
      case "resource_link":
        return part(
          { $case: "url", value: block.uri },
          { filename: block.name, mediaType: block.mimeType ?? "" },
        );
      case "resource": {
        const resource = block.resource;
        const name = resource.uri.slice(resource.uri.lastIndexOf("/") + 1);
        return "text" in resource
          ? part(
              { $case: "raw", value: Buffer.from(resource.text) },
              { filename: name, mediaType: resource.mimeType ?? "text/plain" },
            )
          : part(
              { $case: "raw", value: Buffer.from(resource.blob, "base64") },
              { filename: name, mediaType: resource.mimeType ?? "" },
            );
      }
    }
    return textPart(JSON.stringify(block));
  });
}

/**
 * The router's tools as an A2A agent's work: a message names a tool in a data part `{tool, arguments}` (a
 * text-only message goes to a namespace's only tool, its text the tool's one string argument); the call goes
 * through the same bridges as the MCP front's, so it is routed, limited, scrubbed and recorded the same way, its
 * event carrying the translation report (client leg `a2a`). Code execution output streams as artifact updates,
 * progress as `WORKING` status messages; a tool result becomes the task's artifact (`structuredContent` a data
 * part), `isError` a `FAILED` task, `inputRequired` an `INPUT_REQUIRED` task that the next message in it answers.
 */
export function createToolExecutor(
  backend: A2aFrontBackend,
  namespace: string,
  tasks: Pick<A2aTaskTable, "loadA2aTask">,
  running: Map<string, AbortController>,
  pendingBox: SealedBox,
): AgentExecutor {
  const cancelled = new Set<string>();
  const contexts = new Map<string, string>();
  const clientLegs = createClientLegs();
  const calls = backend.calls;

  function plan(context: RequestContext, caller: Caller): PlannedCall {
    const message = context.userMessage;
    const sealed = context.task?.metadata?.[PENDING_KEY];
    const pending = typeof sealed === "string" ? pendingCall(pendingBox.open(sealed)) : undefined;
    if (pending && context.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const tool = calls.findTool(caller, pending.tool);
      if (!tool) return { kind: "refused", reason: `The tool '${pending.tool}' is no longer offered` };
      const text = textOf(message);
      const data = message.parts.find((p) => p.content?.$case === "data")?.content?.value;
      const answer = isObject(data) ? data : { reply: text };
      return {
        kind: "tool",
        tool,
        arguments: pending.arguments,
        input: {
          responses: { [pending.key]: { action: "accept", content: answer } },
          ...(pending.state ? { state: pending.state } : {}),
        },
        notes: [
          {
            action: "rewritten",
            what: "message to an INPUT_REQUIRED task",
            detail: "sent as the answer to the tool's input request, the call repeated with it",
          },
        ],
      };
    }
    const data = message.parts.find((p) => p.content?.$case === "data" && isObject(p.content.value))?.content
      ?.value as JsonObject | undefined;
    if (data && typeof data.tool === "string") {
      const args = data.arguments ?? {};
      if (!isObject(args))
        return { kind: "refused", reason: "The data part's 'arguments' must be a JSON object" };
      const notes: TranslationNote[] = [
        {
          action: "rewritten",
          what: "A2A message",
          detail: "the data part's 'tool' and 'arguments' called as tools/call",
        },
      ];
      if (message.parts.length > 1) {
        notes.push({
          action: "dropped",
          what: "other message parts",
          detail: "only the data part naming the tool is read; MCP tool calls have no place for the rest",
        });
      }
      const tool = calls.findTool(caller, data.tool);
      if (!tool) return { kind: "refused", reason: `No tool named '${data.tool}' here` };
      return { kind: "tool", tool, arguments: args, notes };
    }
    const offered = calls.listTools(caller).map((t) => t.name);
    // Code execution needs a language and code: a text-only message goes to the one catalog tool, if one.
    const catalogTools = calls.listTools(caller).filter((t) => !calls.isCodeExecution(t));
    const text = textOf(message);
    if (catalogTools.length !== 1 || !text) {
      const listed = offered.slice(0, LISTED_TOOLS).join(", ") || "none";
      return {
        kind: "refused",
        reason: `Name the tool: send a data part {"tool": NAME, "arguments": {...}}. Tools here: ${listed}${offered.length > LISTED_TOOLS ? ", …" : ""}`,
      };
    }
    const tool = catalogTools[0] as ToolReference;
    const argument = textArgument(tool);
    if (!argument) {
      return {
        kind: "refused",
        reason: `The only tool here, '${tool.name}', takes no single text argument: send a data part {"tool", "arguments"}`,
      };
    }
    return {
      kind: "tool",
      tool,
      arguments: { [argument]: text },
      notes: [
        {
          action: "approximated",
          what: "text-only A2A message",
          detail: `sent to the namespace's only tool, its text as the argument '${argument}'`,
        },
      ],
    };
  }

  return {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = context;
      const method = String(context.context.state?.get(METHOD_STATE_KEY) ?? "SendMessage");
      const version = String(context.context.state?.get(VERSION_STATE_KEY) ?? "1.0");
      const status = (state: TaskState, text?: string, metadata?: JsonObject) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: {
              state,
              message: text ? agentMessage(text, taskId, contextId) : undefined,
              timestamp: new Date().toISOString(),
            },
            metadata,
          }),
        );
      const task: Task = context.task
        ? { ...context.task }
        : {
            id: taskId,
            contextId,
            status: {
              state: TaskState.TASK_STATE_SUBMITTED,
              message: undefined,
              timestamp: new Date().toISOString(),
            },
            artifacts: [],
            history: [context.userMessage],
            metadata: undefined,
          };
      bus.publish(AgentEvent.task(task));
      const principal = principalOf(context.context);
      if (!principal) throw new TrestleError("An A2A call needs its principal", Code.Internal);
      const caller: Caller = { principal, namespace };
      const planned = plan(context, caller);
      if (planned.kind === "refused") {
        status(TaskState.TASK_STATE_REJECTED, planned.reason);
        bus.finished();
        return;
      }

      const controller = new AbortController();
      running.set(taskId, controller);
      contexts.set(taskId, contextId);
      // A cancellation another replica wrote reaches this one through the store.
      const poll = setInterval(() => {
        void tasks
          .loadA2aTask(taskId)
          .then((stored) => {
            if (stored?.state === "TASK_STATE_CANCELED") controller.abort();
          })
          .catch(() => undefined);
      }, CANCEL_POLL_MS);
      poll.unref();
      status(TaskState.TASK_STATE_WORKING);

      const callContext: CallContext = {
        requestId: context.userMessage.messageId || taskId,
        namespace,
        signal: controller.signal,
        client: clientLegs("a2a", version, method),
        translationNotes: [
          ...planned.notes,
          {
            action: "rewritten",
            what: "tools/call result",
            detail:
              "returned as the A2A task's artifact: text blocks as text parts, structuredContent as a data part, images, audio and resources as file parts; isError as TASK_STATE_FAILED",
          },
        ],
      };
      callContext.onProgress = (p) => {
        status(
          TaskState.TASK_STATE_WORKING,
          p.message ?? `progress ${p.progress}${p.total !== undefined ? ` of ${p.total}` : ""}`,
        );
      };
      const artifact = (artifactId: string, parts: Part[], append: boolean, lastChunk: boolean) =>
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId,
              name: artifactId,
              description: "",
              parts,
              metadata: undefined,
              extensions: [],
            },
            append,
            lastChunk,
            metadata: undefined,
          }),
        );
      try {
        let result: ToolResult;
        if (calls.isCodeExecution(planned.tool)) {
          const streamed = new Set<string>();
          result = await calls.callTool(caller, planned.tool, planned.arguments, {
            ...callContext,
            onOutput: async (chunk) => {
              artifact(chunk.stream, [textPart(chunk.text)], streamed.has(chunk.stream), false);
              streamed.add(chunk.stream);
            },
          });
          // The streamed artifacts are complete; the summary (exit code, status) is the result's own artifact.
          for (const stream of streamed) artifact(stream, [], true, true);
          const structured = result.structuredContent;
          if (structured)
            artifact(
              "result",
              [part({ $case: "data", value: structured }, { mediaType: "application/json" })],
              false,
              true,
            );
        } else {
          const call = planned.input ? { ...callContext, input: planned.input } : callContext;
          result = await calls.callTool(caller, planned.tool, planned.arguments, call);
          if (!result.isError && !result.inputRequired) {
            const parts = contentToParts(result.content);
            if (result.structuredContent) {
              parts.push(
                part({ $case: "data", value: result.structuredContent }, { mediaType: "application/json" }),
              );
            }
            artifact("result", parts, false, true);
          }
        }
        if (cancelled.has(taskId) || controller.signal.aborted) return;
        const texts = result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
        if (result.inputRequired) {
          const [key, first] = Object.entries(result.inputRequired.requests)[0] ?? ["reply", undefined];
          const question = typeof first?.params.message === "string" ? first.params.message : texts;
          // What the repeated call needs is sealed: the stored task and its readers see no arguments in it.
          status(TaskState.TASK_STATE_INPUT_REQUIRED, question || "The tool needs more input", {
            [PENDING_KEY]: pendingBox.seal({
              tool: planned.tool.name,
              arguments: planned.arguments,
              key,
              ...(result.inputRequired.state ? { state: result.inputRequired.state } : {}),
            } satisfies PendingCall),
          });
        } else if (result.isError) {
          status(TaskState.TASK_STATE_FAILED, texts || "The tool failed");
        } else {
          status(TaskState.TASK_STATE_COMPLETED);
        }
      } catch (error) {
        if (!cancelled.has(taskId) && !controller.signal.aborted) {
          // What the router refuses to do (its policy, the principal's bounds, arguments of the wrong shape) is
          // a rejected task; what failed while being done, a failed one.
          const refused =
            error instanceof TrestleError &&
            (error.code === Code.PermissionDenied ||
              error.code === Code.ResourceExhausted ||
              error.code === Code.InvalidArgument);
          status(
            refused ? TaskState.TASK_STATE_REJECTED : TaskState.TASK_STATE_FAILED,
            (error as { rawMessage?: string }).rawMessage ?? String(error),
          );
        }
      } finally {
        clearInterval(poll);
        running.delete(taskId);
        contexts.delete(taskId);
        if (controller.signal.aborted && !cancelled.has(taskId)) {
          cancelled.add(taskId);
          status(TaskState.TASK_STATE_CANCELED, "The task was cancelled");
        }
        cancelled.delete(taskId);
        bus.finished();
      }
    },

    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      cancelled.add(taskId);
      running.get(taskId)?.abort();
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: contexts.get(taskId) ?? "",
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    },
  };
}
