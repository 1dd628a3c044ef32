import { randomUUID } from "node:crypto";
import type { InputAnswers, InputRequest, InputRequired, InputResponse, JsonObject } from "@trestle/core";
import type { McpTaskRequests, McpTaskTable, StoredMcpTask } from "../state/mcp-tasks.js";
import { INPUT_METHOD, inputResponseFrom } from "./input-relay.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ModernErrorCode } from "./protocol-era.js";
import { ProtocolError } from "./protocol-error.js";

/** Largest task result kept, as JSON bytes, by default. */
export const DEFAULT_TASK_RESULT_MAX_BYTES = 1024 * 1024;

/** The extension identifier of MCP tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The task methods the extension adds (stateless era only). */
export const TASK_METHODS = ["tasks/get", "tasks/update", "tasks/cancel"] as const;

/** What a task's call gets: a listener for a backend's questions while it runs, its signal, and answers. */
export interface TaskCallHooks {
  onInputRequest(input: InputRequest): Promise<InputResponse>;
  signal: AbortSignal;
  /** The answers when the call repeats one that ended in `inputRequired`. */
  input?: InputAnswers;
}

/** What a task's call ends with: its result, or a request for input to answer before it is called again. */
export type TaskCallResult = object & { inputRequired?: InputRequired | undefined };

/** A tool call a task runs (called again with answers after an `inputRequired` result). */
export type TaskCall<T extends TaskCallResult = TaskCallResult> = (hooks: TaskCallHooks) => Promise<T>;

/** The `CreateTaskResult` a call that became a task answers with (2026-07-28 `resultType: "task"`). */
export type TaskHandle = { resultType: "task" } & Record<string, unknown>;

/** Options of {@link TaskRunner.start}. */
export interface TaskStartOptions<T extends TaskCallResult> {
  /** Refuses a question the client cannot answer: the task fails with what it throws. */
  checkInput?(input: InputRequest): void;
  /**
   * The call's final result as the task keeps it for `tasks/get` (the client's wire shape); without it, the result
   * as the call returned it, less `inputRequired`.
   */
  encode?(result: T): object;
}

/** Options for {@link createTaskRunner}. */
export interface TaskRunnerOptions {
  /** Where task state lives: the server's table in the store's database, so any replica answers for any task. */
  store: McpTaskTable;
  /** How long a task stays readable after it was created (ttlMs); default 1 hour. */
  ttlMs?: number;
  /** The polling interval suggested to clients; default 1 s. */
  pollIntervalMs?: number;
  /** How often the replica running a task looks for clients' updates and cancellations; default 200 ms. */
  watchIntervalMs?: number;
  /** Most tasks running on this replica at once. */
  maxRunning?: number;
  /** Most unexpired tasks one principal may hold, on every replica together (counted in the store). */
  maxTasksPerPrincipal?: number;
  /** Largest result a task keeps, as JSON bytes; a larger one fails the task with a message saying so. */
  maxResultBytes?: number;
  /** How long a call may run before its task is created (a call that ends sooner ends in its task at once). */
  startWindowMs?: number;
  clock?: () => number;
}

/** Who asks about a task: only the principal that started it, in its namespace, may see or change it. */
export interface TaskOwner {
  namespace: string;
  principal: string;
}

/** Runs tool calls as MCP tasks and answers `tasks/get`, `tasks/update` and `tasks/cancel` for them. */
export interface TaskRunner {
  /**
   * Starts `run` as a task: once the call asks a question while it runs, or has run for a moment, or ended, the
   * task is created durably and the `CreateTaskResult` returned; the call's result (or error) becomes the
   * task's, and its questions make it `input_required`. A call that at once answers that it needs input without
   * holding the call (a 2026-07-28 upstream's `inputRequired`) is no task yet: that answer is returned as it is,
   * for the client to repeat the request with its answers.
   */
  start<T extends TaskCallResult>(
    owner: TaskOwner,
    run: TaskCall<T>,
    options?: TaskStartOptions<T>,
  ): Promise<{ task: TaskHandle } | { inputRequired: InputRequired }>;
  /** The task as `tasks/get` answers it. @throws ProtocolError -32602 for a task unknown to `owner`. */
  get(owner: TaskOwner, taskId: unknown): Promise<Record<string, unknown>>;
  /** Leaves answers for the task's open input requests. @throws ProtocolError -32602 for an unknown task. */
  update(owner: TaskOwner, taskId: unknown, inputResponses: unknown): Promise<void>;
  /** Asks the task to stop. @throws ProtocolError -32602 for an unknown task. */
  cancel(owner: TaskOwner, taskId: unknown): Promise<void>;
  /** Tasks running on this replica. */
  readonly running: number;
  /** Ends the tasks running here as failed (the router stops), stops their calls and watching. */
  close(): Promise<void>;
}

interface Question {
  input: InputRequest;
  answer(response: JsonObject): void;
}

interface Running {
  stored: StoredMcpTask;
  abort: AbortController;
  /** Open questions by key (unique over the task's life). */
  open: Map<string, Question>;
  cancelled: boolean;
  /** Saves run one after another, so the store ends with the last state. */
  saving: Promise<void>;
  /** Resolves once the task was created in the store (questions are shown only after that). */
  created: Promise<void>;
  /** Refuses a question the client cannot answer (throws the error the task then fails with). */
  checkInput: ((input: InputRequest) => void) | undefined;
  markCreated(): void;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** A call's result without its `inputRequired` (answered by then). */
function withoutInput<T extends TaskCallResult>(result: T): Omit<T, "inputRequired"> {
  const { inputRequired: _, ...complete } = result;
  return complete;
}

/** Creates the task runner over `options.store`. */
export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const ttlMs = options.ttlMs ?? 60 * 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const maxRunning = options.maxRunning ?? 1_000;
  const maxTasksPerPrincipal = options.maxTasksPerPrincipal ?? 1_000;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_TASK_RESULT_MAX_BYTES;
  const clock = options.clock ?? Date.now;
  const running = new Map<string, Running>();
  const iso = (ms: number) => new Date(ms).toISOString();

  function save(task: Running, status: string, fields: Record<string, unknown> = {}, message?: string): void {
    if (TERMINAL.has(task.stored.status)) return;
    const now = clock();
    // A task stays readable for ttlMs after its last change: one that runs longer than that is not lost.
    const expiresAt = Math.max(task.stored.expiresAt, now + ttlMs);
    const document: Record<string, unknown> = {
      taskId: task.stored.id,
      status,
      ...(message ? { statusMessage: message } : {}),
      createdAt: iso(task.stored.createdAt),
      lastUpdatedAt: iso(now),
      ttlMs: expiresAt - task.stored.createdAt,
      pollIntervalMs,
      ...fields,
    };
    task.stored = { ...task.stored, status, document, expiresAt };
    const stored = task.stored;
    task.saving = task.saving.then(() => options.store.saveMcpTask(stored, now)).catch(() => undefined);
  }

  /** Ends a task as failed with `error` (its JSON-RPC code, message and data). */
  function fail(task: Running, error: unknown): void {
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    save(task, "failed", {
      error: {
        code: Number.isSafeInteger(e.code) ? e.code : JsonRpcErrorCode.InternalError,
        message: typeof e.message === "string" && e.message ? e.message : "The task failed",
        ...(e.data !== undefined ? { data: e.data } : {}),
      },
    });
  }

  /** Shows the open questions (or none: working again). */
  function showQuestions(task: Running): void {
    if (task.open.size === 0) {
      save(task, "working");
      return;
    }
    const inputRequests: Record<string, { method: string; params: JsonObject }> = {};
    for (const [key, q] of task.open)
      inputRequests[key] = { method: INPUT_METHOD[q.input.kind], params: q.input.params };
    save(task, "input_required", { inputRequests }, "The task waits for input from the client");
  }

  function ask(task: Running, key: string, input: InputRequest): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      if (task.abort.signal.aborted) return reject(task.abort.signal.reason);
      try {
        task.checkInput?.(input);
      } catch (error) {
        // The client cannot answer: the task fails with the refusal, and the call stops.
        void task.created.then(() => fail(task, error));
        task.abort.abort(error);
        return reject(error);
      }
      task.open.set(key, { input, answer: resolve });
      task.abort.signal.addEventListener("abort", () => reject(task.abort.signal.reason), { once: true });
      void task.created.then(() => showQuestions(task));
    });
  }

  async function drive<T extends TaskCallResult>(
    task: Running,
    first: Promise<T>,
    run: TaskCall<T>,
    hooks: TaskCallHooks,
    encode: ((result: T) => object) | undefined,
  ): Promise<void> {
    try {
      let result = await first;
      // A 2026-07-28 upstream that asks without holding the call: ask, then repeat the call with the answers.
      for (let round = 1; result.inputRequired; round++) {
        const { requests, state } = result.inputRequired;
        const keys = Object.keys(requests);
        const answers = await Promise.all(
          keys.map((key) => ask(task, `round-${round}-${key}`, requests[key] as InputRequest)),
        );
        const responses: Record<string, JsonObject> = {};
        keys.forEach((key, i) => {
          responses[key] = answers[i] as JsonObject;
        });
        result = await run({ ...hooks, input: { responses, ...(state !== undefined ? { state } : {}) } });
      }
      if (task.cancelled) return;
      const complete = encode ? encode(result) : withoutInput(result);
      // The store keeps a result for the task's whole life, on every replica: it is bounded like a request.
      const bytes = Buffer.byteLength(JSON.stringify(complete));
      if (bytes > maxResultBytes) {
        fail(
          task,
          new ProtocolError(
            JsonRpcErrorCode.InternalError,
            `The result is too large to keep as a task (${bytes} bytes; at most ${maxResultBytes}): call the tool without the tasks extension to receive it directly`,
          ),
        );
        return;
      }
      save(task, "completed", { result: complete });
    } catch (error) {
      if (task.cancelled) return;
      fail(task, error);
    } finally {
      await task.saving;
      running.delete(task.stored.id);
    }
  }

  /** Applies what a client asked of a task running here: a cancellation, or answers to its open questions. */
  function apply(task: Running, requests: McpTaskRequests): void {
    if (requests.cancel) {
      task.cancelled = true;
      save(task, "cancelled", {}, "Cancelled by the client");
      task.abort.abort(new Error("The task was cancelled by the client"));
      return;
    }
    let answered = false;
    for (const [key, response] of Object.entries(requests.inputResponses ?? {})) {
      const question = task.open.get(key);
      // Answers to keys not open (never issued, or answered already) are ignored, as the extension says.
      if (!question || typeof response !== "object" || response === null) continue;
      task.open.delete(key);
      question.answer(response as JsonObject);
      answered = true;
    }
    if (answered) showQuestions(task);
  }

  /** Takes what clients asked, through other replicas, of the tasks running here and applies it. */
  async function watch(): Promise<void> {
    for (const task of [...running.values()]) {
      let requests: McpTaskRequests;
      try {
        requests = await options.store.takeMcpTaskRequests(task.stored.id);
      } catch {
        continue;
      }
      apply(task, requests);
    }
  }

  let watching = false;
  const watcher = setInterval(() => {
    if (watching || running.size === 0) return;
    watching = true;
    void watch().finally(() => {
      watching = false;
    });
  }, options.watchIntervalMs ?? 200);
  watcher.unref();
  const sweeper = setInterval(
    () => void options.store.removeExpiredMcpTasks(clock()).catch(() => undefined),
    60_000,
  );
  sweeper.unref();

  async function find(owner: TaskOwner, taskId: unknown): Promise<StoredMcpTask> {
    if (typeof taskId !== "string" || taskId.length === 0 || taskId.length > 200) {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        "Invalid params: taskId must be a task id string",
      );
    }
    const stored = running.get(taskId)?.stored ?? (await options.store.loadMcpTask(taskId, clock()));
    // Another principal's or namespace's task is answered exactly like one that does not exist.
    if (!stored || stored.namespace !== owner.namespace || stored.principal !== owner.principal) {
      throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Invalid params: no task ${taskId}`);
    }
    return stored;
  }

  return {
    async start<T extends TaskCallResult>(
      owner: TaskOwner,
      run: TaskCall<T>,
      startOptions: TaskStartOptions<T> = {},
    ) {
      if (running.size >= maxRunning) {
        throw new ProtocolError(
          JsonRpcErrorCode.InternalError,
          `Too many tasks are running on this router (at most ${maxRunning}); try again later`,
        );
      }
      const now = clock();
      const held = await options.store.countMcpTasks(owner.principal, now);
      if (held >= maxTasksPerPrincipal) {
        throw new ProtocolError(
          JsonRpcErrorCode.InternalError,
          `Too many tasks: '${owner.principal}' holds ${held} unexpired tasks, the most a principal may; wait until some expire (each is kept ${Math.round(ttlMs / 60_000)} min after its last change)`,
        );
      }
      const id = randomUUID();
      let markCreated: () => void = () => undefined;
      const task: Running = {
        stored: {
          id,
          namespace: owner.namespace,
          principal: owner.principal,
          status: "working",
          document: {},
          createdAt: now,
          expiresAt: now + ttlMs,
        },
        abort: new AbortController(),
        open: new Map(),
        cancelled: false,
        saving: Promise.resolve(),
        created: new Promise((resolve) => {
          markCreated = resolve;
        }),
        markCreated: () => markCreated(),
        checkInput: startOptions.checkInput,
      };
      let counter = 0;
      let asked: () => void = () => undefined;
      const firstQuestion = new Promise<"asked">((resolve) => {
        asked = () => resolve("asked");
      });
      const hooks: TaskCallHooks = {
        signal: task.abort.signal,
        // A legacy upstream's question while the call runs: its answer goes back into the running call.
        onInputRequest: async (input) => {
          asked();
          return inputResponseFrom(input.kind, await ask(task, `input-${++counter}`, input));
        },
      };
      const first = run(hooks);
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        first.then(
          (result) => result,
          () => "failed" as const,
        ),
        firstQuestion,
        new Promise<"slow">((resolve) => {
          timer = setTimeout(() => resolve("slow"), options.startWindowMs ?? 100);
        }),
      ]);
      clearTimeout(timer);
      if (typeof outcome === "object" && outcome.inputRequired)
        return { inputRequired: outcome.inputRequired };
      running.set(id, task);
      save(task, "working", {}, "The task is running");
      // Durable before the client hears of it: a tasks/get right after must find it, on any replica.
      await task.saving;
      if (!(await options.store.loadMcpTask(id, clock()))) {
        running.delete(id);
        task.abort.abort(new Error("The task could not be stored"));
        throw new ProtocolError(JsonRpcErrorCode.InternalError, "The task could not be stored");
      }
      const created: TaskHandle = { ...task.stored.document, resultType: "task" };
      task.markCreated();
      void drive(task, first, run, hooks, startOptions.encode);
      return { task: created };
    },
    async get(owner, taskId) {
      const stored = await find(owner, taskId);
      return { ...stored.document, resultType: "complete" };
    },
    async update(owner, taskId, inputResponses) {
      const stored = await find(owner, taskId);
      if (typeof inputResponses !== "object" || inputResponses === null || Array.isArray(inputResponses)) {
        throw new ProtocolError(
          JsonRpcErrorCode.InvalidParams,
          "Invalid params: inputResponses must be an object of answers by key",
        );
      }
      if (TERMINAL.has(stored.status)) return;
      const requests = { inputResponses: inputResponses as Record<string, unknown> };
      // Running here: applied at once, so the next tasks/get shows it; elsewhere, the running replica takes it.
      const local = running.get(stored.id);
      if (local) {
        apply(local, requests);
        await local.saving;
        return;
      }
      await options.store.requestMcpTask(stored.id, requests);
    },
    async cancel(owner, taskId) {
      const stored = await find(owner, taskId);
      if (TERMINAL.has(stored.status)) return;
      const local = running.get(stored.id);
      if (local) {
        apply(local, { cancel: true });
        await local.saving;
        return;
      }
      await options.store.requestMcpTask(stored.id, { cancel: true });
    },
    get running() {
      return running.size;
    },
    async close() {
      clearInterval(watcher);
      clearInterval(sweeper);
      const saving: Promise<void>[] = [];
      for (const task of running.values()) {
        // Other replicas must not show a task nothing runs any more as working.
        fail(task, { message: "The router running the task stopped before it finished" });
        task.cancelled = true;
        task.abort.abort(new Error("The router is closing"));
        saving.push(task.saving);
      }
      await Promise.all(saving);
    },
  };
}

/** True when a stateless client declared the tasks extension on this request. */
export function declaresTasks(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/**
 * The refusal of a task-required tool (or of a task method) to a client without the extension (-32021 naming it).
 */
export function tasksRequired(tool?: string): ProtocolError {
  return new ProtocolError(
    ModernErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${tool ? `tool '${tool}' runs only as a task` : "the task methods belong to the tasks extension"}, and the client did not declare the ${TASKS_EXTENSION} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}
