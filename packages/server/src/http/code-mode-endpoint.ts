import type { IncomingMessage, ServerResponse } from "node:http";
import { isTrestleError, type JsonObject, type ToolResult } from "@trestle/core";
import type { CallService } from "../calls/call-service.js";
import { CODE_MODE_PATH, type CodeModeRun, type CodeModeRuns } from "../calls/code-mode-runs.js";
import { toMcpTool } from "../mcp/tool-listing.js";
import { readBody, writeJson } from "./body.js";
import { sendError } from "./json-api.js";

/** What the code-mode endpoint serves with. */
export interface CodeModeEndpointDependencies {
  runs: CodeModeRuns;
  calls: CallService;
  /** Largest request body (a tool call's arguments). */
  maxBodyBytes: number;
}

/** True when `path` is the code-mode endpoint's. */
export function isCodeModePath(path: string): boolean {
  return path.startsWith(`${CODE_MODE_PATH}/`);
}

function errorResult(text: string): ToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** The run's capability from the `Authorization` header, or `undefined`. */
function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === "string" ? /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(header) : null;
  return match?.[1];
}

/**
 * The router's end of the tool channels of the programs it runs, reached by the engines (not by clients): an
 * engine presents the run's capability and relays the program's calls. `POST …/tools` answers the tools the run's
 * caller may see (the code execution tool left out); `POST …/call` (`{name, arguments}`) calls one through the call
 * service as that caller — the policy, limits and events of any call of theirs apply, the event carrying the run's
 * id — within the run's limits, and answers the tool result (a refusal is a result with `isError`, whose text the
 * program sees as `ToolError`). An unknown or ended capability is refused with 401; nothing here names it.
 */
export function createCodeModeEndpoint(deps: CodeModeEndpointDependencies) {
  const { runs, calls } = deps;

  async function call(run: CodeModeRun, body: unknown, res: ServerResponse): Promise<ToolResult> {
    const { name, arguments: args } = (body ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string" || name === "") return errorResult("A tool call needs the tool's name");
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
      return errorResult(`The arguments of '${name}' must be an object`);
    }
    const tool = calls.findTool(run.caller, name);
    if (!tool) return errorResult(`Unknown tool '${name}'`);
    if (calls.isCodeExecution(tool)) return errorResult(`'${name}' cannot be called from a program`);
    const slot = run.admit();
    if ("refusal" in slot) return errorResult(slot.refusal);
    // The call stops when the run ends or the engine stops waiting for the answer.
    const aborter = new AbortController();
    const stop = () => aborter.abort();
    run.signal.addEventListener("abort", stop, { once: true });
    res.once("close", () => {
      if (!res.writableFinished) stop();
    });
    try {
      return await calls.callTool(run.caller, tool, (args ?? {}) as JsonObject, {
        signal: aborter.signal,
        codeRun: run.id,
      });
    } catch (error) {
      // A policy refusal (or a limit) names the rule; nothing here carries a secret.
      return errorResult(isTrestleError(error) ? error.rawMessage : "The tool call failed");
    } finally {
      slot.release();
      run.signal.removeEventListener("abort", stop);
    }
  }

  return async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const token = bearerOf(req);
    const run = token === undefined ? undefined : runs.find(token);
    if (!run) {
      sendError(res, 401, "Unknown or ended code run");
      return;
    }
    if (req.method !== "POST") {
      sendError(res, 405, "POST only", { allow: "POST" });
      return;
    }
    const read = await readBody(req, deps.maxBodyBytes);
    if (read.tooLarge) {
      sendError(res, 413, `The request is larger than ${deps.maxBodyBytes} bytes`, { connection: "close" });
      return;
    }
    let body: unknown;
    try {
      body = read.text === "" ? {} : JSON.parse(read.text);
    } catch {
      sendError(res, 400, "The request body is not JSON");
      return;
    }
    const action = path.slice(CODE_MODE_PATH.length + 1);
    if (action === "tools") {
      const tools = calls
        .listTools(run.caller)
        .filter((tool) => !calls.isCodeExecution(tool))
        .map(toMcpTool);
      writeJson(res, 200, JSON.stringify({ tools }));
      return;
    }
    if (action === "call") {
      writeJson(res, 200, JSON.stringify(await call(run, body, res)));
      return;
    }
    sendError(res, 404, `Nothing at ${path}`);
  };
}
