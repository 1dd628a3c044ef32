import { randomUUID } from "node:crypto";
import { Code, type CodeOutput, TrestleError } from "@trestle/core";
import type { CallService } from "../calls/call-service.js";
import { ANONYMOUS_PRINCIPAL } from "../calls/caller.js";
import type { JsonApi } from "../http/json-api.js";
import { openSseStream } from "../http/sse.js";
import { managementApi as op } from "./operations.js";

/** Options of the code execution API. */
export interface CodeExecutionRoutesOptions {
  /** Runs go through the call service, as the request's principal, in the default namespace. */
  calls: CallService;
  /** A task whose stream nobody reads is cancelled after this long. */
  unreadTaskTtlMs?: number;
  /** Most replies buffered per task before anyone reads them. */
  maxBufferedReplies?: number;
}

interface Task {
  id: string;
  engine: string;
  language: string;
  replies: object[];
  done: boolean;
  reader: ((reply: object | undefined) => void) | undefined;
  controller: AbortController;
  expiry: NodeJS.Timeout;
  dropped: number;
}

/**
 * An output as the stream's JSON has always shown an engine's reply: its output type, status, content, exit
 * code, and the time the router received it.
 */
function replyJson(output: CodeOutput): object {
  const content = output.text ? [output.text] : [];
  const timestamp = Date.now();
  switch (output.type) {
    case "output":
      return { outputType: output.stream, status: "running", content, timestamp };
    case "status":
      return { outputType: "status", status: output.status, content, timestamp };
    case "exit":
      return {
        outputType: "completion",
        status: output.status,
        content,
        ...(output.exitCode !== undefined ? { exitCode: output.exitCode } : {}),
        timestamp,
      };
  }
}

/**
 * Code execution over REST: `POST /api/v2/code-execution-engine/{engine}/{language}` starts a run at once and
 * answers with a task id; `GET …/tasks/{id}/stream` streams its replies as SSE. Replies produced before the stream
 * is opened are buffered per task, so a client never misses early output; a task nobody reads expires.
 */
export function registerCodeExecutionRoutes(
  api: JsonApi,
  options: CodeExecutionRoutesOptions,
): { close(): void } {
  const tasks = new Map<string, Task>();
  const ttl = options.unreadTaskTtlMs ?? 60_000;
  const maxBuffered = options.maxBufferedReplies ?? 10_000;

  function push(task: Task, item: object | undefined) {
    if (task.reader) task.reader(item);
    else if (item) {
      if (task.replies.length >= maxBuffered) {
        task.replies.shift();
        task.dropped++;
      }
      task.replies.push(item);
    }
  }

  api.route(op.startCodeExecution, async ({ params, body, principal }) => {
    const caller = { principal: principal ?? ANONYMOUS_PRINCIPAL, namespace: "" };
    const argv = body.arguments;
    const timeout = body.timeout ?? body.timeoutMs;
    const id = randomUUID();
    const controller = new AbortController();
    const task: Task = {
      id,
      engine: params.engine,
      language: params.language,
      replies: [],
      done: false,
      reader: undefined,
      controller,
      dropped: 0,
      expiry: setTimeout(() => {
        controller.abort();
        tasks.delete(id);
      }, ttl),
    };
    task.expiry.unref();
    tasks.set(id, task);
    void (async () => {
      try {
        const stream = options.calls.executeCode(
          caller,
          task.engine,
          task.language,
          {
            code: body.code,
            ...(argv !== undefined ? { arguments: argv } : {}),
            ...(body.environment ? { environment: body.environment } : {}),
            ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
          },
          { signal: controller.signal, requestId: id },
        );
        for await (const reply of stream) push(task, { event: "reply", data: replyJson(reply) });
      } catch (error) {
        const e = TrestleError.from(error);
        push(task, { event: "error", data: { code: e.code, message: e.rawMessage } });
      } finally {
        task.done = true;
        push(task, undefined);
      }
    })();
    return {
      status: 202,
      data: { taskId: id, streamUrl: `/api/v2/code-execution-engine/tasks/${id}/stream` },
    };
  });

  api.route(op.codeExecutionStream, async ({ req, res, params }) => {
    const task = tasks.get(params.id);
    if (!task)
      throw new TrestleError(
        `No code execution task '${params.id}' (it ended and was read, or expired)`,
        Code.NotFound,
      );
    if (task.reader) throw new TrestleError("This task's stream is already being read", Code.AlreadyExists);
    clearTimeout(task.expiry);
    const sse = openSseStream(res);
    req.on("close", () => {
      if (!task.done) task.controller.abort();
    });
    const send = (item: object) => {
      const { event, data } = item as { event: string; data: object };
      sse.send(JSON.stringify(data), { event });
    };
    if (task.dropped > 0) sse.send(JSON.stringify({ dropped: task.dropped }), { event: "dropped" });
    for (const item of task.replies.splice(0)) send(item);
    if (!task.done) {
      await new Promise<void>((resolve) => {
        task.reader = (item) => {
          if (item) send(item);
          else resolve();
        };
        void sse.done.then(() => resolve());
      });
    }
    tasks.delete(task.id);
    sse.send(JSON.stringify({ taskId: task.id }), { event: "end" });
    sse.close();
    return undefined;
  });

  return {
    close() {
      for (const task of tasks.values()) {
        clearTimeout(task.expiry);
        task.controller.abort();
      }
      tasks.clear();
    },
  };
}
