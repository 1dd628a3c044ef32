import {
  type CodeOutput,
  type CodeRun,
  categorizeError,
  isSecretArgumentKey,
  isSecretHeaderKey,
  REDACTED_CODE,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import type { BridgeDependencies, CallContext } from "./call-context.js";
import { callOptionsFor } from "./call-context.js";
import { type CallEnd, createCallRecorder } from "./call-recorder.js";
import { describeFailure, safeError } from "./failure.js";
import { addSecretMetadata, createSecretValues } from "./secret-values.js";
import { resolveEngine } from "./service-resolution.js";

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
   * The call is recorded as a STARTED event (code as `[CODE]`, arguments as a count) and exactly one terminal
   * event: COMPLETED when the stream ends with a successful status and exit code 0; FAILED with
   * `execution_error` when the engine exits failed, timeout or cancelled or with a non-zero exit code; FAILED with
   * the error's category when the stream fails; FAILED with category `none` and "cancelled by the client" when
   * the consumer stops early (`break`, `return()`) or `context.signal` aborts.
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

/** How a run ended, as its last `exit` output said. */
type ExitStatus = Extract<CodeOutput, { type: "exit" }>["status"];

function isUnsuccessful(status: ExitStatus | undefined): boolean {
  return status === "failed" || status === "timeout" || status === "cancelled";
}

const CANCELLED_BY_CLIENT = "The code execution was cancelled by the client";

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
  const record = createCallRecorder(deps);
  const deadlineGraceMs = options.deadlineGraceMs ?? 5_000;

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
    const recording = record({
      toolName: context?.toolName ?? `${engineType}/${language}`,
      toolType: engineType,
      kind: "code-execution",
      context,
      secrets,
    });
    let started = false;
    const startOnce = () => {
      if (started) return;
      started = true;
      recording.started({
        arguments: {},
        headers: {},
        configurationURI: "",
        secretsURI: "",
        code: REDACTED_CODE,
        argumentCount: countArguments(input.arguments),
      });
    };
    const cancelled: CallEnd = {
      ok: false,
      content: [CANCELLED_BY_CLIENT],
      errorCategory: "none",
      errorMessage: CANCELLED_BY_CLIENT,
    };
    // An abort while the consumer is not reading still ends the call now, not at its next read.
    const onAbort = () => recording.end(cancelled);

    let target: ServiceTarget | undefined;
    let failure: TrestleError | undefined;
    let failureMessage = "";
    let completed = false;
    let lastStatus: ExitStatus | undefined;
    let exitCode: number | undefined;
    try {
      const run: CodeRun = { ...input, engineType, language };
      target = await resolveEngine(deps.resolver, engineType, language);
      recording.setTarget(target);
      const transport = deps.transports.transportFor(target);
      startOnce();
      context?.signal?.addEventListener("abort", onAbort, { once: true });
      const timeoutMs =
        input.timeoutMs === undefined ? undefined : Math.max(0, input.timeoutMs) + deadlineGraceMs;
      for await (const output of transport.executeCode(run, target, callOptionsFor(context, timeoutMs))) {
        if (output.type === "exit") {
          lastStatus = output.status;
          if (output.exitCode !== undefined) exitCode = output.exitCode;
        }
        yield output;
      }
      completed = true;
    } catch (thrown) {
      failure = TrestleError.from(thrown);
      failureMessage = secrets.scrub(
        describeFailure(failure, {
          ...(target ? { target } : {}),
          what: `code execution on '${engineType}/${language}'`,
          operation: "code execution",
        }),
      );
      throw safeError(failure, failureMessage, secrets.scrub);
    } finally {
      context?.signal?.removeEventListener("abort", onAbort);
      startOnce();
      if (failure) {
        recording.end({
          ok: false,
          content: [failureMessage],
          errorCategory: categorizeError(failure),
          errorMessage: failureMessage,
        });
      } else if (!completed) {
        recording.end(cancelled);
      } else if (isUnsuccessful(lastStatus) || (exitCode !== undefined && exitCode !== 0)) {
        const message = isUnsuccessful(lastStatus)
          ? `The code execution ended with status ${lastStatus?.toUpperCase()}${exitCode === undefined ? "" : ` (exit code ${exitCode})`}`
          : `The code exited with code ${exitCode}`;
        recording.end({
          ok: false,
          content: [message],
          errorCategory: "execution_error",
          errorMessage: message,
        });
      } else {
        recording.end({ ok: true, content: [] });
      }
    }
  }

  return {
    execute(engineType, language, input, context) {
      return run(engineType, language, input, context);
    },
  };
}
