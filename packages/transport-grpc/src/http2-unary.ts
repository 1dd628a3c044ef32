import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect,
  constants,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from "node:http2";
import { type Cancellation, Code, TrestleError } from "@trestle/core";
import {
  callEnding,
  frameMessage,
  grpcRequestHeaders,
  type ReplyHeaders,
  takeReplyMessages,
  unaryReplyMessage,
} from "@trestle/grpc-wire";
import type { CallHeaders } from "./call-metadata.js";
import type { ChannelLease } from "./channel-pool.js";
import type { ChannelSecurity } from "./channel-security.js";
import type { FramingMethodDefinition } from "./service-definition.js";

/**
 * One HTTP/2 connection to a capability service, for unary calls: opened on the first call, opened again on
 * the next call after it closed or failed. A unary gRPC call is one request with a 5-byte frame header and one
 * reply with its status in the trailers; this client does that and nothing else, where grpc-js runs each call
 * through its resolving, retrying, load-balancing and subchannel layers.
 */
export interface Http2Connection {
  /** Starts a request on the current connection (connecting first when there is none). */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream;
  close(): void;
}

/**
 * Node copies the options of each request; one object serves them all. The priority fields hold Node's defaults
 * (no parent, not exclusive, not silent): given, Node's copy already has them, where it would otherwise add them one
 * by one to every request's copy. `weight` only on Node 20: Node 22 and 24 deprecate priority signalling (DEP0194),
 * warn when a request names one, and no longer add it; Node 20 adds it to a request that lacks it, which a profile
 * showed costing almost as much as the rest of Node's `request`.
 */
const REQUEST_OPTIONS =
  Number(process.versions.node.split(".")[0]) < 22
    ? { endStream: false, weight: 16, parent: 0, exclusive: false, silent: false }
    : { endStream: false, parent: 0, exclusive: false, silent: false };

/** Limits of the lean unary client. */
export interface Http2UnaryLimits {
  maxReceiveMessageBytes: number;
  maxSendMessageBytes: number | undefined;
}

/**
 * Requests on one connection before the next goes on a new one. A client's stream ids are the odd numbers below
 * 2^31, so a connection has room for 1,073,741,823 requests (about four days at 3,000 calls/s); the old
 * connection closes once its last calls have finished.
 */
export const MAX_STREAMS_PER_CONNECTION = 1_000_000_000;

/** HTTP/2 keepalive of the lean client, as grpc-js does it with `permit_without_calls` off. */
export interface Http2Keepalive {
  /** A PING every this often while calls are in flight. */
  timeMs: number;
  /** A PING not answered within this closes the connection (its calls fail with `Unavailable`). */
  timeoutMs: number;
}

/**
 * Opens (lazily) the HTTP/2 connection for `address` with `security`: cleartext (h2c) or TLS with the same
 * CA, client certificate and server name override grpc-js would use. While calls are in flight it pings the
 * service every `keepalive.timeMs`, so that a connection that died silently (a host gone, a half-open TCP
 * connection) is closed and the next call opens a new one instead of waiting for its deadline.
 * @throws TrestleError `InvalidArgument` for TLS settings that cannot work.
 */
export function connectHttp2(
  address: string,
  security: ChannelSecurity,
  keepalive: Http2Keepalive = { timeMs: 30_000, timeoutMs: 10_000 },
  maxStreamsPerConnection = MAX_STREAMS_PER_CONNECTION,
): Http2Connection {
  const tls = security.tls;
  if (tls && (tls.cert === undefined) !== (tls.key === undefined)) {
    throw new TrestleError(
      "TLS needs both a client certificate and its key for mutual TLS, or neither",
      Code.InvalidArgument,
    );
  }
  const authority = tls?.serverNameOverride ?? address;
  const url = `${tls ? "https" : "http"}://${address}`;
  const connectOptions = tls
    ? {
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.cert === undefined ? {} : { cert: tls.cert }),
        ...(tls.key === undefined ? {} : { key: tls.key }),
        ...(tls.serverNameOverride ? { servername: tls.serverNameOverride } : {}),
        ALPNProtocols: ["h2"],
      }
    : {};
  let session: ClientHttp2Session | undefined;
  let closed = false;
  const current = (): ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session;
    if (closed) throw new TrestleError("The channel is closed", Code.Unavailable);
    let opened: ClientHttp2Session;
    try {
      opened = connect(url, { ...connectOptions, settings: { enablePush: false } });
    } catch (error) {
      // Node's message names the failing PEM routine, never the key's content.
      throw new TrestleError(
        `Unusable TLS settings: ${error instanceof Error ? error.message : String(error)}`,
        Code.InvalidArgument,
      );
    }
    // A connection failure reaches every stream on it, where the call reports it; the session must not throw.
    opened.on("error", () => undefined);
    const forget = () => {
      if (session === opened) session = undefined;
    };
    opened.once("close", forget);
    opened.once("goaway", forget);
    // The calls keep the process alive (their deadline timers), not an idle connection.
    opened.unref();
    session = opened;
    requestsOnSession = 0;
    return opened;
  };
  let inFlight = 0;
  let requestsOnSession = 0;
  /** Calls in flight per connection, for closing a retired one after its last call. */
  const active = new WeakMap<ClientHttp2Session, number>();
  let pinger: NodeJS.Timeout | undefined;
  const ping = () => {
    const pinged = session;
    if (!pinged || inFlight === 0) return;
    const timeout = setTimeout(() => pinged.destroy(), keepalive.timeoutMs);
    timeout.unref();
    const sent = pinged.ping((error) => {
      clearTimeout(timeout);
      if (error) pinged.destroy();
    });
    if (!sent) clearTimeout(timeout);
  };
  return {
    request(headers) {
      const on = current();
      headers[":authority"] = authority;
      const stream = on.request(headers, REQUEST_OPTIONS);
      active.set(on, (active.get(on) ?? 0) + 1);
      if (++requestsOnSession >= maxStreamsPerConnection) {
        // Out of stream ids soon: later calls go on a new connection.
        session = undefined;
      }
      inFlight++;
      if (!pinger) {
        pinger = setInterval(ping, keepalive.timeMs);
        pinger.unref();
      }
      stream.once("close", () => {
        const left = (active.get(on) ?? 1) - 1;
        active.set(on, left);
        // A connection retired for its stream ids closes after its last call (closing it earlier would refuse
        // the requests not yet sent on it).
        if (left === 0 && on !== session) on.close();
        // The pinger stays until the connection is closed: it pings only while calls are in flight, and one call
        // at a time would otherwise start and stop a timer per call.
        inFlight--;
      });
      return stream;
    },
    close() {
      closed = true;
      if (pinger) clearInterval(pinger);
      pinger = undefined;
      session?.close();
      session = undefined;
    },
  };
}

/** Everything one lean unary call needs besides its message. */
export interface Http2CallPlan {
  lease: ChannelLease<Http2Connection>;
  /** The call's metadata as headers; this call's own object, completed in place with the gRPC headers. */
  metadata: CallHeaders;
  timeoutMs: number;
  /** The caller's cancellation (core's `cancellationOf` the call options). */
  cancellation: Cancellation | undefined;
  limits: Http2UnaryLimits;
}

function cancelledByCaller(cancellation: Cancellation): TrestleError {
  return new TrestleError("The call was cancelled by the caller", Code.Canceled, {
    cause: cancellation.reason,
  });
}

/**
 * The 5-byte-framed request message: written in place by the method's compiled codec when it has one, else
 * serialized and copied behind the header.
 * @throws TrestleError `ResourceExhausted` over the send limit.
 */
function frameOf<I>(
  method: Pick<FramingMethodDefinition<I, unknown>, "requestSerialize" | "requestFrame">,
  request: I,
  limits: Http2UnaryLimits,
): Buffer {
  let frame: Buffer;
  if (method.requestFrame) {
    frame = method.requestFrame(request);
  } else {
    frame = frameMessage(method.requestSerialize(request));
  }
  const length = frame.length - 5;
  if (limits.maxSendMessageBytes !== undefined && length > limits.maxSendMessageBytes) {
    throw new TrestleError(
      `Sent message larger than max (${length} vs. ${limits.maxSendMessageBytes})`,
      Code.ResourceExhausted,
    );
  }
  return frame;
}

/** A stream error that is not our own cancellation: the connection's (refused, reset, TLS). */
function connectionError(error: Error): TrestleError {
  const cause = (error as Error & { cause?: Error }).cause ?? error;
  return new TrestleError(`The service could not be reached: ${cause.message}`, Code.Unavailable, {
    cause: error,
  });
}

/** The listeners a unary call puts on its stream, kept to take them off again (see {@link detach}). */
interface UnaryListeners {
  response(headers: ReplyHeaders): void;
  trailers(trailers: IncomingHttpHeaders): void;
  data(chunk: Buffer): void;
  error(error: Error): void;
  close(): void;
}

/** Stream errors after the call has settled: its outcome is already decided (see {@link detach}). */
function ignoreSettledStreamError(): void {}

/**
 * Takes a settled call's listeners off its stream, so that whatever still holds the finished stream cannot keep
 * the call (its request, reply, promise and every caller awaiting it) alive with it. Node's own
 * `AsyncResource.prototype.bind`, which `node:http2` calls for every request, did: in a loop of bare requests,
 * 56–64 % of 10 KB hung on each stream survived young collections (the router installs a bind that does not, see
 * `installLeanAsyncResourceBind` in `@trestle/server/runtime`; an application embedding this transport may not). An
 * `error` listener stays, so that a late reset is not an uncaught error.
 */
function detach(stream: ClientHttp2Stream, listeners: UnaryListeners): void {
  stream.removeListener("response", listeners.response);
  stream.removeListener("trailers", listeners.trailers);
  stream.removeListener("data", listeners.data);
  stream.removeListener("close", listeners.close);
  stream.removeListener("error", listeners.error);
  stream.on("error", ignoreSettledStreamError);
}

/**
 * Runs a unary call on the lean HTTP/2 client, with the same outcomes as the grpc-js path: the reply; the
 * service's status mapped to a {@link TrestleError}; `DeadlineExceeded` after `timeoutMs` (the deadline is also
 * sent as `grpc-timeout`, so the service sees it); `Canceled` when the caller cancels it (the stream is
 * reset with CANCEL, so the service sees it); `Unavailable` when the connection fails; `ResourceExhausted` for
 * a message over the limits; the pool's reason when the pool closes under it.
 */
export function http2UnaryCall<I, O>(
  method: FramingMethodDefinition<I, O>,
  request: I,
  plan: Http2CallPlan,
): Promise<O> {
  const { lease, cancellation, limits } = plan;
  return new Promise<O>((resolve, reject) => {
    if (cancellation?.aborted) {
      lease.done();
      reject(cancelledByCaller(cancellation));
      return;
    }
    let frame: Buffer;
    let headers: OutgoingHttpHeaders;
    try {
      frame = frameOf(method, request, limits);
      headers = grpcRequestHeaders(plan.metadata, method.path, plan.timeoutMs);
    } catch (error) {
      lease.done();
      reject(TrestleError.from(error, Code.Internal));
      return;
    }
    let stream: ClientHttp2Stream;
    try {
      stream = lease.client.request(headers);
    } catch (error) {
      lease.done();
      reject(TrestleError.from(error, Code.Unavailable));
      return;
    }

    let settled = false;
    let replyHeaders: ReplyHeaders | undefined;
    let trailers: IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: TrestleError | undefined, reply?: O) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cancellation?.offAbort(onAbort);
      detach(stream, listeners);
      lease.done();
      if (error) reject(error);
      else resolve(reply as O);
    };
    const abort = (reason: TrestleError) => {
      if (settled) return;
      if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
      finish(reason);
    };
    const onAbort = () => {
      if (cancellation) abort(cancelledByCaller(cancellation));
    };
    const timer = setTimeout(
      () => abort(new TrestleError("Deadline exceeded", Code.DeadlineExceeded)),
      plan.timeoutMs,
    );
    cancellation?.onAbort(onAbort);
    lease.track(abort);

    const listeners: UnaryListeners = {
      response: (h: ReplyHeaders) => {
        replyHeaders = h;
      },
      trailers: (t: IncomingHttpHeaders) => {
        trailers = t;
      },
      data: (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxReceiveMessageBytes + 5) {
          abort(
            new TrestleError(
              `Received message larger than max (${received - 5} vs. ${limits.maxReceiveMessageBytes})`,
              Code.ResourceExhausted,
            ),
          );
          return;
        }
        chunks.push(chunk);
      },
      // Our own cancellations settle first; any other stream error is the connection's.
      error: (error: Error) => finish(connectionError(error)),
      close: () => {
        if (settled) return;
        const failure = callEnding(stream, replyHeaders, trailers);
        if (failure) {
          finish(failure);
          return;
        }
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        let reply: O;
        try {
          reply = method.responseDeserialize(unaryReplyMessage(body));
        } catch (error) {
          finish(TrestleError.from(error, Code.Internal));
          return;
        }
        finish(undefined, reply);
      },
    };
    stream.on("response", listeners.response);
    stream.on("trailers", listeners.trailers);
    stream.on("data", listeners.data);
    stream.on("error", listeners.error);
    stream.on("close", listeners.close);
    stream.end(frame);
  });
}

/**
 * Runs a server-streaming call on the same HTTP/2 connection as the unary calls and yields each reply as it
 * arrives, with the outcomes of the grpc-js path: reading pauses while 16 replies wait for the consumer;
 * replies received before a failure are yielded before it is thrown; breaking out of the iteration, the
 * caller's cancellation or the deadline reset the stream with CANCEL, so the service sees it.
 */
export async function* http2ServerStreamCall<I, O>(
  method: FramingMethodDefinition<I, O>,
  request: I,
  plan: Http2CallPlan,
): AsyncGenerator<O> {
  const { lease, cancellation, limits } = plan;
  if (cancellation?.aborted) {
    lease.done();
    throw cancelledByCaller(cancellation);
  }
  let stream: ClientHttp2Stream;
  try {
    const frame = frameOf(method, request, limits);
    stream = lease.client.request(grpcRequestHeaders(plan.metadata, method.path, plan.timeoutMs));
    stream.end(frame);
  } catch (error) {
    lease.done();
    throw TrestleError.from(error, Code.Unavailable);
  }
  const highWater = 16;
  const queue: O[] = [];
  let ended = false;
  let failure: TrestleError | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let replyHeaders: ReplyHeaders | undefined;
  let trailers: IncomingHttpHeaders | undefined;
  let pending: Buffer = Buffer.alloc(0);
  const onMessage = (message: Buffer) => {
    queue.push(method.responseDeserialize(message));
  };

  const abort = (reason: TrestleError) => {
    if (ended || failure) return;
    if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
    failure = reason;
    notify();
  };
  const onAbort = () => {
    if (cancellation) abort(cancelledByCaller(cancellation));
  };
  const timer = setTimeout(
    () => abort(new TrestleError("Deadline exceeded", Code.DeadlineExceeded)),
    plan.timeoutMs,
  );
  cancellation?.onAbort(onAbort);
  lease.track(abort);

  stream.on("response", (h: ReplyHeaders) => {
    replyHeaders = h;
  });
  stream.on("trailers", (t: IncomingHttpHeaders) => {
    trailers = t;
  });
  stream.on("data", (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    try {
      pending = takeReplyMessages(pending, limits.maxReceiveMessageBytes, onMessage);
    } catch (error) {
      abort(TrestleError.from(error, Code.Internal));
      return;
    }
    if (queue.length >= highWater) stream.pause();
    notify();
  });
  stream.on("error", (error: Error) => {
    if (!ended && !failure) failure = connectionError(error);
    notify();
  });
  stream.on("close", () => {
    if (!ended && !failure) {
      const ending = callEnding(stream, replyHeaders, trailers);
      if (ending) failure = ending;
      else ended = true;
    }
    notify();
  });

  try {
    while (true) {
      const reply = queue.shift();
      if (reply !== undefined) {
        if (stream.isPaused() && queue.length < highWater / 2) stream.resume();
        yield reply;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    clearTimeout(timer);
    cancellation?.offAbort(onAbort);
    // The consumer stopped early: tell the service, so its engine stops too.
    if (!ended && !failure) abort(new TrestleError("The consumer stopped reading the stream", Code.Canceled));
    lease.done();
  }
}
