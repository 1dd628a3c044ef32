import type { ToolResultLike } from "@trestle/code-mode";
import { Code, TrestleError } from "@trestle/core";

/**
 * The request metadata a router sends with a code execution to give the program its namespace's tools: where the
 * router serves a run's tool calls, and the run's capability (random, bound by the router to the caller, the
 * namespace and the run's limits, and valid only while the run lasts). Engines that do not know them run the
 * program without tools.
 */
export const TOOL_CHANNEL_URL_METADATA = "x-trestle-tool-channel";
/** See {@link TOOL_CHANNEL_URL_METADATA}. The engine keeps it; it never reaches the program. */
export const RUN_TOKEN_METADATA = "x-trestle-run-token";

/** The run's concurrency limit as the router sends it (`concurrent=<n>`); the router enforces it too. */
export const TOOL_LIMITS_METADATA = "x-trestle-tool-limits";

/** Where and with what the engine relays a program's tool calls to the router. */
export interface ToolAccess {
  /** The router's code-mode endpoint, e.g. `http://127.0.0.1:8080/internal/code-mode/v1`. */
  url: string;
  token: string;
  /** Calls the router allows the program at once, when it said. */
  maxConcurrentCalls?: number;
}

/** A positive integer of the limits metadata, or `undefined`. */
function limitOf(limits: string | undefined, name: string): number | undefined {
  const match = limits === undefined ? null : new RegExp(`(?:^|;)${name}=(\\d{1,9})(?:;|$)`).exec(limits);
  const value = match ? Number(match[1]) : 0;
  return value > 0 ? value : undefined;
}

/** A tool as the router lists it for a run: enough for the preludes. */
export interface RunTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  outputSchema?: object;
}

/** Largest answer the engine reads from the router (the tool list, or one call's result). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The run's tool access from its request metadata, or `undefined` when the router offers none (or offers a URL
 * that is not plain http(s)).
 */
export function toolAccessFrom(metadata: Readonly<Record<string, string>>): ToolAccess | undefined {
  const url = metadata[TOOL_CHANNEL_URL_METADATA];
  const token = metadata[RUN_TOKEN_METADATA];
  if (!url || !token) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  } catch {
    return undefined;
  }
  const limits = metadata[TOOL_LIMITS_METADATA];
  const maxConcurrentCalls = limitOf(limits, "concurrent");
  return {
    url: url.replace(/\/+$/, ""),
    token,
    ...(maxConcurrentCalls ? { maxConcurrentCalls } : {}),
  };
}

async function post(access: ToolAccess, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const response = await fetch(`${access.url}/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${access.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES) {
    throw new TrestleError("the router's answer is too large", Code.ResourceExhausted);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    // The router's message says what was refused; the token is never part of it.
    const message = (parsed as { error?: { message?: unknown } } | undefined)?.error?.message;
    throw new TrestleError(
      typeof message === "string" ? message : `the router answered ${response.status}`,
      response.status === 429 ? Code.ResourceExhausted : Code.Unavailable,
    );
  }
  return parsed;
}

/** The tools the run's caller may see, as the router lists them for the run. */
export async function fetchRunTools(access: ToolAccess, signal?: AbortSignal): Promise<RunTool[]> {
  const answer = (await post(access, "tools", {}, signal)) as { tools?: unknown } | undefined;
  if (!Array.isArray(answer?.tools)) {
    throw new TrestleError("the router's tool list is not a list", Code.Internal);
  }
  return (answer.tools as RunTool[]).filter(
    (tool) => typeof tool === "object" && tool !== null && typeof tool.name === "string",
  );
}

/**
 * Calls one tool for the program through the router, which applies the caller's policy and the run's limits; its
 * answer is an MCP tool result.
 */
export async function callRunTool(
  access: ToolAccess,
  call: { name: string; arguments: Record<string, unknown>; signal: AbortSignal },
): Promise<ToolResultLike> {
  const answer = await post(access, "call", { name: call.name, arguments: call.arguments }, call.signal);
  if (typeof answer !== "object" || answer === null) {
    throw new TrestleError("the router's answer is not a tool result", Code.Internal);
  }
  return answer as ToolResultLike;
}
