/**
 * What an upstream sends on the side of a call, handed to the router's listeners: progress routed by token, log
 * messages scrubbed, and listeners that throw kept from taking the connection down.
 */
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "@trestle/core";
import { type FailureSubject, scrubUpstreamValue } from "./mcp-failure.js";

import type { McpLogMessage } from "./upstream-connection.js";

/** Calls a listener; one that throws must not take the connection down with it. */
export function safely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener that throws must not take the connection down with it.
  }
}

/** Routes progress tokens to listeners until told to stop (the SDK's own routing drops late progress). */
export function progressRouter() {
  const routes = new Map<string | number, (progress: Progress) => void>();
  let next = 0;
  return {
    route(token: string | number, progress: Progress) {
      const listener = routes.get(token);
      if (listener) safely(() => listener(progress));
    },
    track(listener: (progress: Progress) => void): { token: string; stop(): void } {
      const token = `trestle-progress-${++next}`;
      routes.set(token, listener);
      return { token, stop: () => routes.delete(token) };
    },
  };
}

/** An upstream's log message, its data scrubbed of the upstream's secrets. */
export function logMessageOf(params: JsonObject | undefined, subject: FailureSubject): McpLogMessage {
  const p = (params ?? {}) as McpLogMessage;
  return { ...p, data: scrubUpstreamValue(p.data, subject.secrets) };
}
