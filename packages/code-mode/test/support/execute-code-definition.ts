import { type CodeModeTool, codeModeDescription } from "../../src/index.js";

/**
 * `execute_code` as the server lists it (packages/server/src/mcp/code-execution-tool.ts, for JavaScript and Python
 * on the built-in engine), with code mode's sentences appended to its description.
 */
export function executeCodeDefinition(tools: readonly CodeModeTool[]): object {
  return {
    name: "execute_code",
    description:
      "Runs code on a code execution engine and streams its output as it is produced. Languages: javascript, python. " +
      "Returns stdout, stderr and the exit code. " +
      codeModeDescription({
        typescriptUri: "trestle://tools/default.d.ts",
        pythonUri: "trestle://tools/default.pyi",
        tools,
      }),
    inputSchema: {
      type: "object",
      properties: {
        language: { type: "string", enum: ["javascript", "python"], description: "The language of the code" },
        code: { type: "string", description: "The program text (plain, or Base64)" },
        engine: {
          type: "string",
          enum: ["trestle"],
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
