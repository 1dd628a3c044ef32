import type { CallContext, CodeExecutionBridge } from "@trestle/bridge";
import { Code, type ToolReference, type ToolResult, TrestleError } from "@trestle/core";
import type { EngineLanguage } from "./catalog-view.js";

/** The `type` of the code execution tool: it is served by the registered engines, not by one service. */
export const CODE_EXECUTION_TOOL_TYPE = "trestle.code-execution";

/** Streams one piece of output to the client while the execution runs. */
export type OutputListener = (chunk: {
  stream: "stdout" | "stderr";
  text: string;
  sequence: number;
}) => Promise<void>;

/**
 * The tool that runs code on the registered engines, with the languages they offer in its schema: a tool of every
 * namespace while an engine is registered (each front lists it in its own protocol).
 */
export function codeExecutionTool(name: string, engines: readonly EngineLanguage[]): ToolReference {
  const languages = [...new Set(engines.map((e) => e.language))].sort();
  const engineTypes = [...new Set(engines.map((e) => e.engineType))].sort();
  return {
    name,
    type: CODE_EXECUTION_TOOL_TYPE,
    uri: "",
    description:
      `Runs code on a code execution engine and streams its output as it is produced. Languages: ${languages.join(", ")}.` +
      " Returns stdout, stderr and the exit code.",
    inputSchema: {
      type: "object",
      properties: {
        language: { type: "string", enum: languages, description: "The language of the code" },
        code: { type: "string", description: "The program text (plain, or Base64)" },
        engine: {
          type: "string",
          enum: engineTypes,
          description: "The engine to run on; by default the first that runs the language",
        },
        arguments: { type: "array", items: { type: "string" }, description: "Command-line arguments" },
        environment: {
          type: "object",
          additionalProperties: { type: "string" },
          description: "Environment variables",
        },
        timeoutMs: { type: "integer", minimum: 1, description: "Time limit in milliseconds" },
      },
      required: ["language", "code"],
    },
    outputSchema: {
      type: "object",
      properties: {
        exitCode: { type: ["integer", "null"] },
        status: { type: "string" },
        stdout: { type: "string" },
        stderr: { type: "string" },
      },
      required: ["exitCode", "status", "stdout", "stderr"],
    },
  };
}

function stringRecord(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TrestleError(`'${field}' must be an object of strings`, Code.InvalidArgument);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

/**
 * Runs a call of the code execution tool: validates the arguments, picks the engine, streams each output chunk to
 * `onOutput` as it arrives, and returns the whole result. Arguments of the wrong shape and failures of the engine
 * are a tool result with `isError: true`, as MCP wants input validation errors (the model reads it and can call
 * again), and as every other tool of the router answers missing arguments.
 */
export async function runCodeExecutionTool(
  args: Record<string, unknown>,
  engines: readonly EngineLanguage[],
  bridge: Pick<CodeExecutionBridge, "execute">,
  context: CallContext,
  onOutput: OutputListener,
): Promise<ToolResult> {
  const { language, code, engine } = args;
  if (typeof language !== "string" || typeof code !== "string") {
    return {
      isError: true,
      content: [{ type: "text", text: "'language' and 'code' are required strings" }],
    };
  }
  const candidates = engines.filter(
    (e) => e.language === language && (engine === undefined || e.engineType === engine),
  );
  const chosen = candidates[0];
  if (!chosen) {
    const offered = engines.map((e) => `${e.engineType}/${e.language}`).join(", ") || "none";
    return {
      isError: true,
      content: [
        {
          type: "text",
          text: `No engine runs '${language}'${engine ? ` on '${String(engine)}'` : ""}; registered: ${offered}`,
        },
      ],
    };
  }
  const argv = args.arguments;
  if (argv !== undefined && (!Array.isArray(argv) || argv.some((a) => typeof a !== "string"))) {
    throw new TrestleError("'arguments' must be an array of strings", Code.InvalidArgument);
  }
  const timeoutMs = args.timeoutMs;
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1)
  ) {
    throw new TrestleError("'timeoutMs' must be a positive integer", Code.InvalidArgument);
  }
  const environment = stringRecord(args.environment, "environment");

  let stdout = "";
  let stderr = "";
  let sequence = 0;
  let exitCode: number | null = null;
  let status = "completed";
  try {
    const stream = bridge.execute(
      chosen.engineType,
      chosen.language,
      {
        code,
        ...(argv ? { arguments: argv as string[] } : {}),
        ...(environment ? { environment } : {}),
        ...(timeoutMs ? { timeoutMs: timeoutMs as number } : {}),
      },
      context,
    );
    for await (const output of stream) {
      if (output.type === "output") {
        if (output.stream === "stdout") stdout += output.text;
        else stderr += output.text;
        if (output.text) await onOutput({ stream: output.stream, text: output.text, sequence: ++sequence });
        continue;
      }
      // A stream that ends on "pending" or "running" never finished: the result says so and is an error.
      status = output.status;
      if (output.type === "exit" && output.exitCode !== undefined) exitCode = output.exitCode;
    }
  } catch (error) {
    const message =
      error instanceof Error
        ? ((error as { rawMessage?: string }).rawMessage ?? error.message)
        : String(error);
    return {
      isError: true,
      content: [{ type: "text", text: `Code execution failed: ${message}` }],
      structuredContent: { exitCode, status: "failed", stdout, stderr },
    };
  }
  const failed = status !== "completed" || (exitCode !== null && exitCode !== 0);
  const summary = `[exit code ${exitCode ?? "unknown"}, ${status}]`;
  return {
    ...(failed ? { isError: true } : {}),
    content: [
      { type: "text", text: stdout },
      ...(stderr ? [{ type: "text" as const, text: `[stderr]\n${stderr}` }] : []),
      { type: "text", text: summary },
    ],
    structuredContent: { exitCode, status, stdout, stderr },
  };
}
