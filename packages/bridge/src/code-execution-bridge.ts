import {
  type CodeOutput,
  type CodeRun,
  createContextValues,
  type ServiceTarget,
  TrestleError,
  translationRecorderKey,
} from "@trestle/core";
import { isSecretArgumentKey, isSecretHeaderKey, REDACTED_CODE } from "@trestle/core/redaction";
import type { BridgeDependencies, CallContext } from "./call-context.js";
import { callOptionsFor } from "./call-context.js";
import { describeFailure, safeError } from "./failure.js";
import {
  type CallEventsOptions,
  type CallRecord,
  callRecordKey,
  recordUndispatched,
} from "./interceptors/call-events.js";
import { callSecretsKey } from "./interceptors/scrub-secrets.js";
import { addSecretMetadata, createSecretValues } from "./secret-values.js";
import { resolveEngine } from "./service-resolution.js";
import { createClientLegs, translationFor } from "./translation-record.js";

/**
 * What a client asks a code execution engine to run: the code (Base64-encoded or as raw text), its arguments
 * (a list or a map), environment, the engine's own timeout and a body.
 */
export type CodeExecutionRequestInput = Omit<CodeRun, "engineType" | "language">;

/** Runs code on code execution engines, streaming what they produce. */
export interface CodeExecutionBridge {
  /**
   * Runs `input` on an engine of `engineType` for `language` and yields each output as the engine produces it.
   * Nothing happens until the iteration starts.
   *
   * The call is recorded (by the `callEvents` interceptor the composition root installs, by the bridge itself
   * when no engine runs them) as a STARTED event (code as `[CODE]`, arguments as a count) and exactly one terminal
   * event: COMPLETED when the stream ends with a successful status and exit code 0; FAILED with
   * `execution_error` when the engine exits failed, timeout or cancelled or with a non-zero exit code; FAILED with
   * the error's category when the stream fails; FAILED with category `none` and "cancelled by the client" when
   * the consumer stops early (`break`, `return()`) or `context.signal` (or `context.cancellation`) aborts.
   *
   * The iteration throws a `TrestleError` when the call fails: `NotFound` naming the engine type and language
   * when no engine runs them, the service's code otherwise.
   */
  execute(
    engineType: string,
    language: string,
    input: CodeExecutionRequestInput,
    context?: CallContext,
  ): AsyncIterable<CodeOutput>;
}

/** Options for {@link createCodeExecutionBridge}. */
export interface CodeExecutionBridgeOptions {
  /**
   * When the call context sets no deadline but the input sets a `timeoutMs` for the engine, the call's
   * deadline on the wire is that timeout plus this grace, so the engine can report its own TIMEOUT first.
   * Default 5 000 ms.
   */
  deadlineGraceMs?: number;
}

function countArguments(args: CodeExecutionRequestInput["arguments"]): number {
  if (!args) return 0;
  return Array.isArray(args) ? args.length : Object.keys(args).length;
}

/**
 * Creates the {@link CodeExecutionBridge}.
 *
 * @example
 * ```ts
 * const engines = createCodeExecutionBridge({ resolver, transports, events: hub });
 * for await (const output of engines.execute("jvm", "python", { code: btoa("print(1)") }, { signal })) {
 *   if (output.type === "output") process.stdout.write(output.text);
 * }
 * ```
 */
export function createCodeExecutionBridge(
  deps: BridgeDependencies,
  options: CodeExecutionBridgeOptions = {},
): CodeExecutionBridge {
  const eventOptions: CallEventsOptions = { sink: deps.events, clock: deps.clock, newId: deps.newId };
  const clock = deps.clock ?? Date.now;
  const deadlineGraceMs = options.deadlineGraceMs ?? 5_000;
  // Backend legs a report starts with until the transport says which it spoke: frozen, one per protocol.
  const legs = createClientLegs();

  async function* run(
    engineType: string,
    language: string,
    input: CodeExecutionRequestInput,
    context: CallContext | undefined,
  ): AsyncGenerator<CodeOutput, void, undefined> {
    const secrets = createSecretValues();
    addSecretMetadata(secrets, context?.metadata);
    for (const [name, value] of Object.entries(input.environment ?? {})) {
      if (isSecretArgumentKey(name) || isSecretHeaderKey(name)) secrets.add(value);
    }
    const what = `code execution on '${engineType}/${language}'`;
    const record: CallRecord = {
      toolName: context?.toolName ?? `${engineType}/${language}`,
      toolType: engineType,
      kind: "code-execution",
      namespace: context?.namespace,
      connectionId: context?.connectionId,
      requestId: context?.requestId,
      principal: context?.principal,
      codeRun: context?.codeRun,
      started: {
        arguments: {},
        headers: {},
        configurationURI: "",
        secretsURI: "",
        code: REDACTED_CODE,
        argumentCount: countArguments(input.arguments),
      },
      what,
      operation: "code execution",
      startedAt: clock(),
    };
    let target: ServiceTarget;
    try {
      target = await resolveEngine(deps.resolver, engineType, language);
    } catch (thrown) {
      // Never dispatched: no transport (and so no interceptor) saw the call, the bridge records it.
      const error = TrestleError.from(thrown);
      recordUndispatched(record, error, eventOptions, secrets);
      throw safeError(error, describeFailure(error, { what, operation: "code execution" }), secrets);
    }
    const timeoutMs =
      input.timeoutMs === undefined ? undefined : Math.max(0, input.timeoutMs) + deadlineGraceMs;
    const callOptions = callOptionsFor(context, timeoutMs);
    // One bag per call: the call events and the scrubbing interceptors read what only the bridge knows.
    callOptions.contextValues = (callOptions.contextValues ?? createContextValues())
      .set(callRecordKey, record)
      .set(callSecretsKey, secrets)
      .set(
        translationRecorderKey,
        translationFor(record, context?.client, target, context?.translationNotes, legs),
      );
    const run: CodeRun = { ...input, engineType, language };
    try {
      yield* deps.transports.transportFor(target).executeCode(run, target, callOptions);
    } catch (thrown) {
      const error = TrestleError.from(thrown);
      throw safeError(error, describeFailure(error, { target, what, operation: "code execution" }), secrets);
    }
  }

  return {
    execute(engineType, language, input, context) {
      return run(engineType, language, input, context);
    },
  };
}
