import { AsyncLocalStorage } from "node:async_hooks";
import type { McpLogMessage } from "./upstream-connection.js";

/** One progress notification of an upstream call (`notifications/progress`), without its token. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Listeners for what an upstream sends while one call runs. Core's `CallOptions` has no place for callbacks,
 * so they travel beside the call, in the async context of {@link withMcpCallListeners}, through any layer
 * (the bridge) that does not know about them.
 */
export interface McpCallListeners {
  /**
   * Each progress notification the upstream sends for this call. The transport asks for progress (sends a
   * `progressToken`) only when this listener is set.
   */
  onProgress?(progress: McpProgress): void;
  /**
   * Each logging message of a `per-call` stdio upstream while this call runs (that process serves this call
   * alone, so its messages are this call's). A pooled or HTTP upstream serves many calls on one session and
   * MCP does not tie a logging message to a request, so those go to the transport's `onLog` instead.
   */
  onLog?(message: McpLogMessage): void;
}

const storage = new AsyncLocalStorage<McpCallListeners>();

/**
 * Runs `run` with `listeners` attached to every MCP transport call it makes, however deep (through the bridge,
 * the resolver, any number of awaits). Listeners must not throw; whatever they throw is ignored.
 *
 * @example
 * ```ts
 * const result = await withMcpCallListeners(
 *   { onProgress: (p) => sendProgress(progressToken, p) },
 *   () => invoker.execute(args, tool, { requestId, signal }),
 * );
 * ```
 */
export function withMcpCallListeners<T>(listeners: McpCallListeners, run: () => T): T {
  return storage.run(listeners, run);
}

/** The listeners of the call being made in this async context, if any. */
export function currentCallListeners(): McpCallListeners | undefined {
  return storage.getStore();
}

/**
 * Runs `run` outside any call's listeners: for work shared by many calls (a pooled connection), whose event
 * handlers would otherwise keep the first caller's context, and its listeners, alive for the process's life.
 */
export function outsideCallContext<T>(run: () => T): T {
  return storage.exit(run);
}
