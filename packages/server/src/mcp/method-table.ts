import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Cancellation } from "@trestle/core";
import type { z } from "zod";
import type { Caller, CallerPrincipal } from "../calls/caller.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import type { ModernClient } from "./protocol-era.js";
import { ProtocolError } from "./protocol-error.js";
import { LOG_LEVELS, type LogLevel, type SessionState } from "./session-registry.js";
import type { McpRevision } from "./wire/revisions.js";

/**
 * Who sent a request: what a method handler may know of the client behind it. It is the call service's
 * {@link Caller} too (its principal and namespace), so a request costs no object of its own for that.
 */
export interface RequestOrigin extends Caller {
  /** The request id as the client sent it. */
  readonly originalId: RequestId;
  /** The client's session (it holds the log level the client set); absent in stateless mode. */
  readonly session: SessionState | undefined;
  /** The HTTP request's headers (lower-cased), or empty for stdio. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Set for a stateless (2026-07-28) request: the client's declarations from its `_meta`. */
  readonly modern?: ModernClient | undefined;
  /**
   * The revision whose shapes the client gets: a stateless request's, a session's negotiated one (the newest
   * of the session era until `initialize` names one). A handler encodes its result for it (see `wire/`).
   */
  readonly revision: McpRevision;
  /**
   * The principal the request was admitted as. Required: tasks, sealed request states and held calls are bound
   * to it, and the call service decides and records with it.
   */
  readonly principal: CallerPrincipal;
}

/** What a method handler gets besides the request. */
export interface McpRequestExtra {
  /**
   * Aborted when the client cancels the request or goes away. Pass it on as it is (a call's `cancellation`); read
   * its `signal` only for an API that takes an `AbortSignal`, which it then makes (each costs on Node 20).
   */
  readonly cancellation: Cancellation;
  readonly origin: RequestOrigin;
  /** Sends a notification tied to the request (progress, log message); does nothing once it was cancelled. */
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /**
   * Asks a session's client (sampling, elicitation, roots) on the request's stream and resolves with its result;
   * absent for a stateless request, which gets `input_required` instead.
   */
  sendRequest?(request: { method: string; params?: Record<string, unknown> }): Promise<unknown>;
}

/**
 * Answers one MCP request: returns (or resolves to) the result in the shapes of the client's revision
 * (`origin.revision`), or throws a {@link ProtocolError} (any error with a safe-integer `code` keeps its code;
 * others answer -32603). A result that answers many requests alike (a page of a large list) may be a
 * `ReusableResult`: the dispatcher then encodes it, and serializes it, once per revision.
 */
export type McpRequestHandler = (
  request: { method: string; params?: unknown },
  extra: McpRequestExtra,
) => unknown;

/**
 * The MCP methods one namespace serves, by method name: the one table both transports (Streamable HTTP and
 * stdio) dispatch to. A method absent from it answers -32601.
 */
export type McpMethodTable = ReadonlyMap<string, McpRequestHandler>;

/**
 * Adds `handler` for `schema`'s method so that params of the wrong shape answer -32602 (Invalid params) with what
 * was wrong (the SDK's Protocol answered a parse failure with -32603, which tells a client the server broke when
 * it was the request). The request is parsed once, here, and nowhere else.
 */
export function onRequest<S extends z.ZodType<{ method: string }>>(
  table: Map<string, McpRequestHandler>,
  method: string,
  schema: S,
  handler: (request: z.output<S>, extra: McpRequestExtra, raw: { params?: unknown }) => unknown,
  /**
   * A check of the method's common shape without the schema library, for a hot path: what it returns must be
   * what the schema would; undefined leaves the request to the schema.
   */
  accept?: (request: { method: string; params?: unknown }) => z.output<S> | undefined,
): void {
  table.set(method, (request, extra) => {
    const accepted = accept?.(request);
    if (accepted !== undefined) return handler(accepted, extra, request);
    const parsed = schema.safeParse(request);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`)
        .join("; ");
      throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Invalid params for ${method}: ${problems}`);
    }
    // The raw request too: the SDK's schemas drop fields they do not know (2026-07-28 `inputResponses`).
    return handler(parsed.data, extra, request);
  });
}

/**
 * The least level of log messages a request's client wants: a session's setting (info until it sets one), or a
 * stateless request's `_meta` level (none at all when it names none, as 2026-07-28 says).
 */
export function wantedLogLevel(origin: RequestOrigin): LogLevel | undefined {
  if (origin.modern) return origin.modern.logLevel;
  return origin.session?.logLevel ?? "info";
}

/** True when a message at `level` reaches a client that wants `wanted` and above. */
export function logLevelWanted(level: LogLevel, wanted: LogLevel | undefined): boolean {
  return wanted !== undefined && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(wanted);
}
