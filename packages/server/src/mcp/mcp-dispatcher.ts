import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { type ClassifiedMessage, JsonRpcErrorCode } from "./json-rpc.js";
import type { DirectRequestHandler, RequestExtra } from "./namespace-server.js";
import type { McpSession } from "./session-registry.js";

/**
 * Where the replies to one batch of incoming requests go (one HTTP POST). The dispatcher calls `respond` once per
 * request, `notify` for notifications tied to a request (progress, logs), and `finish` when every request of the
 * batch has been answered or cancelled.
 */
export interface Exchange {
  respond(message: JSONRPCMessage): void;
  notify(message: JSONRPCMessage): void;
  finish(): void;
}

/** What a handler can know about the request it serves. */
export interface InboundContext {
  /** The request id as the client sent it. */
  originalId: RequestId;
  namespace: string;
  session: McpSession | undefined;
  /** The HTTP request's headers (lower-cased), or empty for stdio. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

interface InFlight extends InboundContext {
  exchange: ExchangeState;
  /** Set for a request the dispatcher handles itself: aborting it cancels the handler. */
  abort?: AbortController;
}

/** The JSON-RPC error a handler's failure answers with, as the SDK's Protocol writes it. */
function errorResponse(id: number, error: unknown): JSONRPCMessage {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: Number.isSafeInteger(e.code) ? (e.code as number) : JsonRpcErrorCode.InternalError,
      message: typeof e.message === "string" && e.message ? e.message : "Internal error",
      ...(e.data !== undefined ? { data: e.data } : {}),
    },
  } as JSONRPCMessage;
}

interface ExchangeState {
  exchange: Exchange;
  pending: Set<number>;
}

/**
 * Multiplexes many MCP clients onto one SDK `Server` (one per namespace): an SDK `Transport` that gives every
 * incoming request a process-unique id, routes the Server's replies back to the client's exchange under the
 * client's own id, and remaps cancellations. One Server then serves every session of a namespace, in stateful and
 * stateless mode alike, and a session costs a few hundred bytes instead of a Server and a transport.
 */
export class McpDispatcher implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** Handlers called without the SDK's Protocol, by method. */
  private direct: ReadonlyMap<string, DirectRequestHandler> = new Map();
  private nextId = 1;
  private readonly inFlight = new Map<number, InFlight>();
  /** Per session: the client's request id → our id, so that `notifications/cancelled` can find the request. */
  private readonly bySession = new Map<string, Map<RequestId, number>>();

  async start(): Promise<void> {}

  /**
   * Calls these handlers itself for their methods, without the SDK's Protocol (see `directRequestHandlers`):
   * the Protocol would parse each message three more times before finding the handler.
   */
  handleDirectly(handlers: ReadonlyMap<string, DirectRequestHandler>): void {
    this.direct = handlers;
  }

  async close(): Promise<void> {
    for (const [id, flight] of this.inFlight) {
      this.settle(id, flight);
      flight.abort?.abort("The MCP server is closing");
    }
    this.onclose?.();
  }

  /** The context of a request the Server is handling, by the id the Server sees (`extra.requestId`). */
  contextOf(requestId: RequestId): InboundContext | undefined {
    return typeof requestId === "number" ? this.inFlight.get(requestId) : undefined;
  }

  /** How many requests are being handled now. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Hands a batch of classified messages to the Server. Requests are answered through `exchange`; when the batch
   * holds no request, `exchange.finish()` is called at once.
   */
  dispatch(
    messages: readonly ClassifiedMessage[],
    context: Omit<InboundContext, "originalId">,
    exchange: Exchange,
  ): ExchangeState {
    const state: ExchangeState = { exchange, pending: new Set() };
    const extra: MessageExtraInfo = { requestInfo: { headers: context.headers as Record<string, string> } };
    for (const { kind, message } of messages) {
      if (kind === "request") {
        const id = this.nextId++;
        const originalId = message.id as RequestId;
        const direct = this.direct.get(message.method as string);
        const flight: InFlight = { ...context, originalId, exchange: state };
        if (direct) flight.abort = new AbortController();
        this.inFlight.set(id, flight);
        state.pending.add(id);
        if (context.session) this.sessionMap(context.session.id).set(originalId, id);
        if (direct) this.runDirect(direct, { ...message, id }, id, flight.abort as AbortController);
        else this.onmessage?.({ ...message, id } as JSONRPCMessage, extra);
      } else if (kind === "notification") {
        if (message.method === "notifications/cancelled") this.cancelFromClient(message, context.session);
        else this.onmessage?.(message as JSONRPCMessage, extra);
      }
      // Responses from the client answer server-initiated requests; the router sends none, so they are dropped.
    }
    if (state.pending.size === 0) exchange.finish();
    return state;
  }

  /** The client went away: cancel what it was waiting for, so the calls behind it stop too. */
  abandon(state: ExchangeState): void {
    for (const id of [...state.pending]) {
      const flight = this.inFlight.get(id);
      if (!flight) continue;
      this.settle(id, flight);
      if (flight.abort) {
        flight.abort.abort("The client closed the connection");
        continue;
      }
      this.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "The client closed the connection" },
      } as JSONRPCMessage);
    }
  }

  /** Forgets a session's request map (the session ended). */
  forgetSession(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Record<string, unknown>;
    if ("id" in m && ("result" in m || "error" in m)) {
      const id = m.id as number;
      const flight = this.inFlight.get(id);
      if (!flight) return; // cancelled or abandoned meanwhile
      this.settle(id, flight);
      flight.exchange.exchange.respond({ ...m, id: flight.originalId } as JSONRPCMessage);
      if (flight.exchange.pending.size === 0) flight.exchange.exchange.finish();
      return;
    }
    const related = options?.relatedRequestId;
    if (related !== undefined && "method" in m && !("id" in m)) {
      const flight = this.inFlight.get(related as number);
      if (flight) flight.exchange.exchange.notify(message);
    }
    // Unrelated server notifications (list_changed) are sent by the router to sessions directly, not through here.
  }

  /**
   * Runs a handler as the SDK's Protocol would — an abort signal the client's cancellation fires, notifications
   * tied to the request, the result or error sent back under the request's id — without parsing the message
   * again. A cancelled request gets no answer, as in the SDK.
   */
  private runDirect(
    handler: DirectRequestHandler,
    request: Record<string, unknown>,
    id: number,
    abort: AbortController,
  ): void {
    const extra = {
      signal: abort.signal,
      requestId: id,
      _meta: (request.params as { _meta?: unknown } | undefined)?._meta,
      sendNotification: async (notification: JSONRPCMessage | { method: string; params?: unknown }) => {
        if (abort.signal.aborted) return;
        await this.send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage, { relatedRequestId: id });
      },
      sendRequest: async () => {
        throw new Error("The router sends no requests to clients");
      },
    } as unknown as RequestExtra;
    Promise.resolve()
      .then(() => {
        // Cancelled before it started: nothing to run, nothing to answer.
        if (abort.signal.aborted) return undefined;
        return handler(request as { method: string; params?: unknown }, extra);
      })
      .then(
        (result) => {
          if (!abort.signal.aborted) void this.send({ jsonrpc: "2.0", id, result } as JSONRPCMessage);
        },
        (error: unknown) => {
          if (!abort.signal.aborted) void this.send(errorResponse(id, error));
        },
      );
  }

  private sessionMap(sessionId: string): Map<RequestId, number> {
    let map = this.bySession.get(sessionId);
    if (!map) {
      map = new Map();
      this.bySession.set(sessionId, map);
    }
    return map;
  }

  private settle(id: number, flight: InFlight): void {
    this.inFlight.delete(id);
    flight.exchange.pending.delete(id);
    if (flight.session) {
      const map = this.bySession.get(flight.session.id);
      if (map?.get(flight.originalId) === id) map.delete(flight.originalId);
      // An idle session holds nothing here: sessions are forgotten by the registry without telling us.
      if (map?.size === 0) this.bySession.delete(flight.session.id);
    }
  }

  private cancelFromClient(message: Record<string, unknown>, session: McpSession | undefined): void {
    const params = (message.params ?? {}) as { requestId?: RequestId; reason?: string };
    if (!session || params.requestId === undefined) return;
    const id = this.bySession.get(session.id)?.get(params.requestId);
    if (id === undefined) return;
    const flight = this.inFlight.get(id);
    if (!flight) return;
    this.settle(id, flight);
    if (flight.abort) flight.abort.abort(params.reason);
    else this.onmessage?.({ ...message, params: { ...params, requestId: id } } as unknown as JSONRPCMessage);
    // The Server sends nothing for a cancelled request; the exchange must still end.
    if (flight.exchange.pending.size === 0) flight.exchange.exchange.finish();
  }
}
