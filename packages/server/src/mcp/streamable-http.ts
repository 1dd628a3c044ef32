import type { IncomingMessage, ServerResponse } from "node:http";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { TrestleError } from "@trestle/core";
import type { CallerPrincipal } from "../calls/caller.js";
import { isJsonContentType, readBody } from "../http/body.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { openSseStream, type SseStreamOptions } from "../http/sse.js";
import { type ClassifiedMessage, classifyMessage, JsonRpcErrorCode, jsonRpcError } from "./json-rpc.js";
import type { McpDispatcher } from "./mcp-dispatcher.js";
import {
  checkMirroredHeaders,
  isModernRevision,
  META,
  ModernErrorCode,
  metaProtocolVersion,
  negotiateLegacyRevision,
  REMOVED_IN_MODERN,
  readModernClient,
  unsupportedVersion,
} from "./protocol-era.js";
import type { McpSession, SessionRegistry } from "./session-registry.js";
import {
  accepts,
  HttpExchange,
  refuse,
  refuseModern,
  SESSION_HEADER,
  sendJson,
  VERSION_HEADER,
} from "./streamable-http-replies.js";
import type { ListenRegistry } from "./subscriptions.js";

/** Settings of the Streamable HTTP endpoint. */
export interface StreamableHttpOptions {
  /** No sessions: every POST stands alone, GET and DELETE answer 405. */
  stateless: boolean;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Most messages in one JSON-RPC batch; a larger batch is refused whole. Default {@link DEFAULT_MAX_BATCH_MESSAGES}. */
  maxBatchMessages?: number;
  /**
   * Most POSTs one session may have waiting for their answers at once (each may become an SSE stream). Its GET
   * stream is not counted: it is one per session already. Default {@link DEFAULT_MAX_STREAMS_PER_SESSION}.
   */
  maxStreamsPerSession?: number;
  /** Bytes a slow reader may leave buffered on an SSE stream before it is dropped (see `openSseStream`). */
  sseMaxBufferedBytes?: number;
  /** The MCP revisions accepted, oldest first (see `parseAcceptedRevisions`). */
  acceptedRevisions: readonly string[];
}

/** Messages one JSON-RPC batch may hold by default. */
export const DEFAULT_MAX_BATCH_MESSAGES = 100;
/** POSTs one session may have awaiting answers at once by default: a client's 256 calls in flight, beside its GET stream. */
export const DEFAULT_MAX_STREAMS_PER_SESSION = 256;

/** What the endpoint needs from the router. */
export interface StreamableHttpDependencies {
  sessions: SessionRegistry;
  /** The dispatcher of a namespace's Server. */
  dispatcherFor(namespace: string): McpDispatcher;
  /** Counts each message of a batch beyond the first against the rate limit the request was admitted under. */
  limiter?: Pick<RateLimiter, "admitMore">;
  /** Told when an SSE reader is dropped for reading too slowly. */
  onStreamDropped?(bufferedBytes: number): void;
  /** Where `subscriptions/listen` streams register for the namespace's change notifications. */
  listeners: ListenRegistry;
}

/**
 * Serves MCP's Streamable HTTP transport on node:http for one namespace path: POST carries JSON-RPC messages, GET
 * opens the session's stream for server-initiated notifications, DELETE ends the session. Host, Origin and token
 * checks happen before this handler; this one checks the protocol's own headers and shapes.
 */
export function createStreamableHttpHandler(
  options: StreamableHttpOptions,
  deps: StreamableHttpDependencies,
) {
  const maxBatchMessages = options.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES;
  const maxStreamsPerSession = options.maxStreamsPerSession ?? DEFAULT_MAX_STREAMS_PER_SESSION;
  const sseOptions: SseStreamOptions = {
    ...(options.sseMaxBufferedBytes !== undefined ? { maxBufferedBytes: options.sseMaxBufferedBytes } : {}),
    ...(deps.onStreamDropped ? { onDropped: deps.onStreamDropped } : {}),
  };
  /** POSTs awaiting answers per session id; absent means none. */
  const openStreams = new Map<string, number>();

  /**
   * Counts a POST of `session` open until `res` closes, or refuses it (429) when the session already has as many
   * awaiting answers as it may. True when counted.
   */
  function openStream(session: McpSession, res: ServerResponse): boolean {
    const open = openStreams.get(session.id) ?? 0;
    if (open >= maxStreamsPerSession) {
      refuse(
        res,
        429,
        JsonRpcErrorCode.ServerError,
        `Too many open streams: this session already has ${open} requests awaiting answers (at most ${maxStreamsPerSession}); wait for an answer`,
        { "retry-after": "1" },
      );
      return false;
    }
    openStreams.set(session.id, open + 1);
    res.once("close", () => {
      const left = (openStreams.get(session.id) ?? 1) - 1;
      if (left > 0) openStreams.set(session.id, left);
      else openStreams.delete(session.id);
    });
    return true;
  }

  /**
   * The request's session, or null once the request was refused (400 without a session id, 404 for one unknown,
   * ended or expired). A promise only when a session not held here is first checked against the ledger of ended
   * sessions: a held one costs no turn of the event loop.
   */
  function sessionOf(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): McpSession | null | Promise<McpSession | null> {
    const id = req.headers[SESSION_HEADER];
    if (typeof id !== "string" || id.length === 0) {
      refuse(res, 400, JsonRpcErrorCode.ServerError, "Bad Request: the Mcp-Session-Id header is required");
      return null;
    }
    // A session is bound to the principal that created it: with another token it is unknown here.
    const found = deps.sessions.get(id, namespace, principal.id);
    return found instanceof Promise
      ? found.then((session) => sessionOrRefusal(session, res))
      : sessionOrRefusal(found, res);
  }

  function sessionOrRefusal(session: McpSession | undefined, res: ServerResponse): McpSession | null {
    if (session) return session;
    refuse(res, 404, JsonRpcErrorCode.ServerError, "Session not found: initialize a new session");
    return null;
  }

  const legacyRevisions = options.acceptedRevisions.filter((r) => !isModernRevision(r));
  function checkVersionHeader(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers[VERSION_HEADER];
    if (typeof version === "string" && !legacyRevisions.includes(version)) {
      refuse(
        res,
        400,
        JsonRpcErrorCode.ServerError,
        `Bad Request: unsupported protocol version ${version} for a session (supported: ${legacyRevisions.join(", ")})`,
      );
      return false;
    }
    return true;
  }

  /**
   * Serves one stateless (2026-07-28) message: checks its `_meta` and mirrored headers, refuses removed methods,
   * then dispatches it with no session at all (any replica answers it). `subscriptions/listen` opens the
   * namespace's change stream on this response instead.
   */
  function postModern(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
    message: ClassifiedMessage,
  ): void {
    if (message.kind === "notification") {
      // No client notification is defined over HTTP in this era (closing the stream cancels): accepted, ignored.
      res.writeHead(202).end();
      return;
    }
    const id = (message.message.id ?? null) as RequestId | null;
    if (message.kind === "response") {
      refuseModern(
        res,
        {
          status: 400,
          code: JsonRpcErrorCode.InvalidRequest,
          message: "Invalid Request: a client sends no responses in this protocol revision",
        },
        id,
      );
      return;
    }
    const method = message.message.method as string;
    const params = message.message.params;
    // The header and the body must agree before the version they name is judged.
    const metaVersion = metaProtocolVersion(params);
    const headerVersion = req.headers[VERSION_HEADER];
    if (metaVersion !== undefined && typeof headerVersion === "string" && headerVersion !== metaVersion) {
      const message = `Header mismatch: MCP-Protocol-Version header value '${headerVersion}' does not match _meta protocol version '${metaVersion}'`;
      refuseModern(res, { status: 400, code: ModernErrorCode.HeaderMismatch, message }, id);
      return;
    }
    const client = readModernClient(params, options.acceptedRevisions);
    if ("status" in client) {
      refuseModern(res, client, id);
      return;
    }
    const mismatch = checkMirroredHeaders(req.headers, method, params, client.revision);
    if (mismatch) {
      refuseModern(res, mismatch, id);
      return;
    }
    if (REMOVED_IN_MODERN.has(method)) {
      refuseModern(
        res,
        {
          status: 404,
          code: JsonRpcErrorCode.MethodNotFound,
          message: `Method not found: ${method} does not exist in protocol revision ${client.revision}`,
        },
        id,
      );
      return;
    }
    if (method === "subscriptions/listen") {
      listen(res, namespace, principal, id as RequestId, params);
      return;
    }
    const exchange = new HttpExchange(res, false, {}, sseOptions, true);
    const dispatcher = deps.dispatcherFor(namespace);
    const state = dispatcher.dispatch(
      [message],
      {
        namespace,
        session: undefined,
        headers: req.headers,
        modern: client,
        principal,
      },
      exchange,
    );
    res.on("close", () => {
      if (!exchange.finished) dispatcher.abandon(state);
    });
  }

  /** Opens a `subscriptions/listen` stream: acknowledged first, then the change notifications asked for. */
  function listen(
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
    id: RequestId,
    params: unknown,
  ): void {
    const accepted = deps.listeners.accept(namespace, params, principal.id);
    if ("status" in accepted) {
      refuseModern(res, accepted, id);
      return;
    }
    const stream = openSseStream(res, sseOptions);
    const meta = { [META.subscriptionId]: id };
    stream.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: accepted.filter, _meta: meta },
      }),
      { event: "message" },
    );
    const remove = deps.listeners.add(
      namespace,
      accepted.filter,
      (notification) =>
        stream.send(
          JSON.stringify({
            jsonrpc: "2.0",
            method: notification.method,
            params: { ...notification.params, _meta: meta },
          }),
          { event: "message" },
        ),
      principal.id,
      // Past its age the stream ends; the client opens another (and lists again, as after any reconnection).
      () => stream.close(),
    );
    void stream.done.then(remove);
  }

  async function post(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void> {
    if (!(accepts(req, "application/json") && accepts(req, "text/event-stream"))) {
      refuse(
        res,
        406,
        JsonRpcErrorCode.ServerError,
        "Not Acceptable: Accept must list application/json and text/event-stream",
      );
      return;
    }
    if (!isJsonContentType(req)) {
      refuse(
        res,
        415,
        JsonRpcErrorCode.ServerError,
        "Unsupported Media Type: Content-Type must be application/json",
      );
      return;
    }
    const body = await readBody(req, options.maxBodyBytes);
    if (body.tooLarge) {
      refuse(
        res,
        413,
        JsonRpcErrorCode.InvalidRequest,
        `Request body larger than ${options.maxBodyBytes} bytes`,
        {
          connection: "close",
        },
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      refuse(res, 400, JsonRpcErrorCode.ParseError, "Parse error: the body is not valid JSON");
      return;
    }
    const batch = Array.isArray(parsed);
    const raw = batch ? (parsed as unknown[]) : [parsed];
    if (raw.length === 0) {
      refuse(res, 400, JsonRpcErrorCode.InvalidRequest, "Invalid Request: empty batch");
      return;
    }
    // Refused whole, before a message is looked at: one answer, nothing dispatched, and the work (and the answer
    // array) a POST can cause stays bounded by the cap.
    if (raw.length > maxBatchMessages) {
      refuse(
        res,
        400,
        JsonRpcErrorCode.InvalidRequest,
        `Invalid Request: a batch may hold at most ${maxBatchMessages} messages; this one holds ${raw.length}`,
      );
      return;
    }
    const messages: ClassifiedMessage[] = [];
    for (const value of raw) {
      const c = classifyMessage(value);
      if ("error" in c) {
        const id = (value as { id?: unknown })?.id;
        sendJson(
          res,
          400,
          jsonRpcError(
            JsonRpcErrorCode.InvalidRequest,
            `Invalid Request: ${c.error}`,
            typeof id === "string" || typeof id === "number" ? id : null,
          ),
        );
        return;
      }
      messages.push({ kind: c.kind, message: value as ClassifiedMessage["message"] });
    }

    // A single message naming its revision in `_meta` (or under a stateless revision's header) is served in the
    // stateless era; everything else is a legacy session's.
    const first = messages[0] as ClassifiedMessage;
    if (!batch && first.kind !== "response") {
      const headerVersion = req.headers[VERSION_HEADER];
      if (
        metaProtocolVersion(first.message.params) !== undefined ||
        (typeof headerVersion === "string" && isModernRevision(headerVersion))
      ) {
        postModern(req, res, namespace, principal, first);
        return;
      }
    }

    const initialize = messages.find((m) => m.kind === "request" && m.message.method === "initialize");
    let session: McpSession | undefined;
    const headers: Record<string, string> = {};
    if (initialize) {
      if (messages.length > 1) {
        refuse(res, 400, JsonRpcErrorCode.InvalidRequest, "Invalid Request: initialize must not be batched");
        return;
      }
      if (legacyRevisions.length === 0) {
        refuseModern(
          res,
          unsupportedVersion(
            String(
              (initialize.message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion ?? "",
            ),
            options.acceptedRevisions,
          ),
          (initialize.message.id ?? null) as RequestId | null,
        );
        return;
      }
      if (!options.stateless) {
        const params = (initialize.message.params ?? {}) as {
          protocolVersion?: unknown;
          capabilities?: unknown;
        };
        session = deps.sessions.create(
          namespace,
          negotiateLegacyRevision(params.protocolVersion, options.acceptedRevisions),
          principal.id,
          params.capabilities,
        );
        headers[SESSION_HEADER] = session.id;
      }
    } else {
      if (!checkVersionHeader(req, res)) return;
      if (!options.stateless) {
        // Awaited only when the ledger is asked: a held session costs the hot path no turn.
        const pending = sessionOf(req, res, namespace, principal);
        const found = pending instanceof Promise ? await pending : pending;
        if (found === null) return;
        session = found;
      }
    }

    // Every message counts against the rate limit, not only the POST that carries them (the front door took one
    // for the POST): checked once the batch is well-formed and its session known, before anything is dispatched.
    // A refusal takes nothing more from the bucket.
    if (raw.length > 1 && deps.limiter) {
      const rate = deps.limiter.admitMore(req, raw.length - 1);
      if (!rate.ok) {
        refuse(res, 429, JsonRpcErrorCode.ServerError, rate.message, {
          "retry-after": String(rate.retryAfterSeconds),
        });
        return;
      }
    }
    if (session && !initialize && messages.some((m) => m.kind === "request") && !openStream(session, res))
      return;

    const exchange = new HttpExchange(res, batch, headers, sseOptions);
    const state = deps
      .dispatcherFor(namespace)
      .dispatch(messages, { namespace, session, headers: req.headers, principal }, exchange);
    res.on("close", () => {
      if (!exchange.finished) deps.dispatcherFor(namespace).abandon(state);
    });
  }

  /** No session header: nothing a legacy client does; answered as a stateless-era endpoint answers (405). */
  function sessionless(req: IncomingMessage): boolean {
    const id = req.headers[SESSION_HEADER];
    return typeof id !== "string" || id.length === 0;
  }

  async function get(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void> {
    if (options.stateless || sessionless(req)) {
      refuse(res, 405, JsonRpcErrorCode.ServerError, "Method Not Allowed: this endpoint is stateless", {
        allow: "POST",
      });
      return;
    }
    if (!accepts(req, "text/event-stream")) {
      refuse(res, 406, JsonRpcErrorCode.ServerError, "Not Acceptable: Accept must list text/event-stream");
      return;
    }
    if (!checkVersionHeader(req, res)) return;
    const session = await sessionOf(req, res, namespace, principal);
    if (!session) return;
    if (session.stream && !session.stream.closed) {
      refuse(res, 409, JsonRpcErrorCode.ServerError, "Conflict: this session already has an open stream");
      return;
    }
    const stream = openSseStream(res, { ...sseOptions, headers: { [SESSION_HEADER]: session.id } });
    session.stream = stream;
    void stream.done.then(() => {
      if (session.stream === stream) session.stream = undefined;
    });
  }

  async function remove(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void> {
    if (options.stateless || sessionless(req)) {
      refuse(res, 405, JsonRpcErrorCode.ServerError, "Method Not Allowed: this endpoint is stateless", {
        allow: "POST",
      });
      return;
    }
    const session = await sessionOf(req, res, namespace, principal);
    if (!session) return;
    try {
      await deps.sessions.end(session);
    } catch (error) {
      // Nothing changed: the session goes on, and the client may send its DELETE again.
      refuse(
        res,
        503,
        JsonRpcErrorCode.ServerError,
        `The session was not ended: its end could not be recorded for every replica (${TrestleError.from(error).rawMessage}); try again`,
        { "retry-after": "1" },
      );
      return;
    }
    res.writeHead(200).end();
  }

  /** Handles one request to the namespace's MCP path, made by `principal` (its sessions, tasks and states). */
  return async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void> {
    switch (req.method) {
      case "POST":
        return post(req, res, namespace, principal);
      case "GET":
        return get(req, res, namespace, principal);
      case "DELETE":
        return remove(req, res, namespace, principal);
      default:
        refuse(res, 405, JsonRpcErrorCode.ServerError, `Method Not Allowed: ${req.method ?? ""}`, {
          allow: options.stateless ? "POST" : "GET, POST, DELETE",
        });
    }
  };
}

/** Sends a notification to a session's GET stream; false when the session has no open stream. */
export function notifySession(session: McpSession, message: JSONRPCMessage): boolean {
  return session.stream?.send(JSON.stringify(message), { event: "message" }) ?? false;
}
