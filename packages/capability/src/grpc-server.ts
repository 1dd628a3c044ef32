import { once } from "node:events";
import {
  constants as http2Constants,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import { promisify } from "node:util";
import { gunzip, inflate, type ZlibOptions } from "node:zlib";
import { create, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { HandlerContext, TrestleError } from "@trestle/core";
import {
  type GrpcStatus,
  OK_TRAILERS,
  requestTimeoutMs,
  statusTrailers,
  trailersOnlyHeaders,
} from "@trestle/grpc-wire";
import { CodeExecutor, HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";
import { compileMessageCodec, type MessageCodec } from "@trestle/protobuf-codec";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { CallCancellation } from "./call-cancellation.js";
import type { CallSecretCheck } from "./call-secret.js";
import type { InFlightCalls } from "./capability-routes.js";
import { answerUnary, handlerContextFromGrpc } from "./handler-context.js";
import { toGrpcStatus } from "./handler-error.js";
import { untilAborted } from "./until-aborted.js";

/** Serves one gRPC-in-protobuf request (an HTTP/2 stream) of the shared port. */
export type GrpcStreamServer = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void;

type UnaryHandler = (request: never, context: HandlerContext) => unknown;
type StreamHandler = (request: never, context: HandlerContext) => AsyncIterable<unknown>;

/** One method the server answers: how to read its request and write its replies, and its handler. */
type ServedMethod = { input: MessageCodec; output: MessageCodec } & (
  | { kind: "unary"; handler: UnaryHandler }
  | { kind: "serverStream"; handler: StreamHandler }
);

/**
 * Why a call's signal aborted. One reason each, made on first use and shared by every call of the server after
 * (a call that ends costs no new error). A call answered and over aborts with an `AbortError`, as connect-node's
 * handlers do; a cancelled call and a passed deadline with a `ConnectError` of their code. Nothing is made at
 * import, and a call that ends as it should makes no `ConnectError`: one builds a `Headers`, and the first `Headers`
 * of a process loads undici, about 5.5 MiB resident that a service answering its calls does not need.
 */
interface AbortReasons {
  ended(): DOMException;
  cancelled(): ConnectError;
  deadlinePassed(): ConnectError;
}

/** A reason made on the first call and the same one returned by every call after. */
function shared<T>(make: () => T): () => T {
  let reason: T | undefined;
  return () => (reason ??= make());
}

function abortReasons(): AbortReasons {
  return {
    ended: shared(() => new DOMException("The call has ended", "AbortError")),
    cancelled: shared(
      () => new ConnectError("The caller cancelled the call or its connection closed", Code.Canceled),
    ),
    deadlinePassed: shared(() => new ConnectError("The call's deadline passed", Code.DeadlineExceeded)),
  };
}

/** Above this a timer fires at once (Node's timers hold 32 bits): a deadline that far away is no deadline. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A call the client resets this close to our deadline ended by its deadline: the client's deadline timer started
 * before ours (by the request's transit and `grpc-timeout`'s rounding to the millisecond), so at a deadline it
 * usually fires first, and its reset arrives just before our timer would.
 */
const DEADLINE_SLACK_MS = 50;

/** Encodings of a compressed request message this server reads, as grpc-js does. */
const DECOMPRESS: Record<string, (message: Buffer, options: ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
};
const ACCEPTED_ENCODINGS = "identity,deflate,gzip";

function ignore(): void {}

/** A status the server itself answers with (a request it cannot serve, a deadline), as grpc-js words it. */
class ServerStatus implements GrpcStatus {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

function status(code: Code, message: string): ServerStatus {
  return new ServerStatus(code as number, message);
}

/**
 * A handler's reply (a plain init object or a message) behind its 5-byte gRPC frame header (not compressed),
 * written in one buffer by the method's compiled codec.
 */
function frameOf(codec: MessageCodec, reply: unknown): Buffer {
  return codec.encodeFramed(create(codec.desc, reply as never));
}

/**
 * One gRPC call on its HTTP/2 stream: answering it exactly once (with a reply and status OK, with a stream of
 * replies, or with a failure, trailers-only when nothing was sent yet), its deadline, its cancellation, and its
 * place among the calls in flight. The handler's signal aborts when the call is answered and over, when the caller
 * resets the stream or the connection drops, when its deadline passes, or when a closing server cancels it.
 */
class GrpcCall {
  readonly cancellation = new CallCancellation();
  /** True once a status went out (or can no longer): nothing more is sent. */
  answered = false;
  readonly #stream: ServerHttp2Stream;
  #headersSent = false;
  #deadlineAt = Number.POSITIVE_INFINITY;
  #deadlineTimer: NodeJS.Timeout | undefined;
  readonly #leave: () => void;
  // The listeners the call puts on its stream besides `close` and `error`, taken off when it closes: see #detach.
  #onData: ((chunk: Buffer) => void) | undefined;
  #onEnd: (() => void) | undefined;
  #onWantTrailers: (() => void) | undefined;

  readonly #reasons: AbortReasons;

  constructor(
    stream: ServerHttp2Stream,
    inFlight: InFlightCalls,
    timeoutMs: number | undefined,
    reasons: AbortReasons,
  ) {
    this.#stream = stream;
    this.#reasons = reasons;
    this.#leave = inFlight.enter((reason) => {
      this.cancellation.abort(() => reason);
      this.fail(reason);
    });
    if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) {
      this.#deadlineAt = Date.now() + timeoutMs;
      this.#deadlineTimer = setTimeout(() => {
        this.cancellation.abort(reasons.deadlinePassed);
        this.fail(status(Code.DeadlineExceeded, "Deadline exceeded"));
      }, timeoutMs);
    }
    stream.once("close", () => this.#closed());
  }

  #closed(): void {
    if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
    this.#detach();
    if (!this.cancellation.aborted) {
      const reasons = this.#reasons;
      this.cancellation.abort(
        this.answered
          ? reasons.ended
          : Date.now() >= this.#deadlineAt - DEADLINE_SLACK_MS
            ? reasons.deadlinePassed
            : reasons.cancelled,
      );
    }
    this.answered = true;
    this.#leave();
  }

  /**
   * Takes the call's listeners off its closed stream, so that the stream no longer reaches the call (its request,
   * reply, handler context and closures). Node's HTTP/2 session keeps its streams in a `Map`, and a long-lived
   * map's replaced hash tables keep pointing at the streams they held, which young collections treat as live
   * (see `InFlightSet` in `@trestle/core`): a closed stream can outlive several of them, and so did every call.
   */
  #detach(): void {
    const stream = this.#stream;
    if (this.#onData) stream.removeListener("data", this.#onData);
    if (this.#onEnd) stream.removeListener("end", this.#onEnd);
    if (this.#onWantTrailers) stream.removeListener("wantTrailers", this.#onWantTrailers);
    this.#onData = this.#onEnd = this.#onWantTrailers = undefined;
  }

  /** Reads the request's body: `onData` for each chunk, `onEnd` at its end, until the stream closes. */
  readBody(onData: (chunk: Buffer) => void, onEnd: () => void): void {
    this.#onData = onData;
    this.#onEnd = onEnd;
    this.#stream.on("data", onData);
    this.#stream.once("end", onEnd);
  }

  /** Sends the response headers before the first reply. False when the stream is gone. */
  #respond(): boolean {
    if (this.#stream.destroyed) return false;
    if (!this.#headersSent) {
      this.#headersSent = true;
      this.#stream.respond(
        {
          ":status": 200,
          "content-type": "application/grpc",
          "grpc-accept-encoding": ACCEPTED_ENCODINGS,
          "grpc-encoding": "identity",
        },
        { waitForTrailers: true },
      );
    }
    return true;
  }

  /** Ends the stream with `trailers` after what was written. */
  #end(trailers: Readonly<OutgoingHttpHeaders>, lastFrame?: Buffer): void {
    const stream = this.#stream;
    this.#onWantTrailers = () => {
      if (!stream.destroyed) stream.sendTrailers(trailers);
    };
    stream.once("wantTrailers", this.#onWantTrailers);
    if (lastFrame) stream.end(lastFrame);
    else stream.end();
  }

  /** Answers a unary call with its reply and status OK. */
  succeed(codec: MessageCodec, reply: unknown): void {
    if (this.answered) return;
    let frame: Buffer;
    try {
      frame = frameOf(codec, reply);
    } catch (error) {
      this.fail(
        status(
          Code.Internal,
          `Error serializing response: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    this.answered = true;
    if (this.#respond()) this.#end(OK_TRAILERS, frame);
  }

  /** Writes one reply of a stream; false when the caller reads slower than this writes (wait for `drain`). */
  write(codec: MessageCodec, reply: unknown): boolean {
    if (this.answered || !this.#respond()) return true;
    return this.#stream.write(frameOf(codec, reply));
  }

  /** Ends a stream of replies with status OK. */
  finish(): void {
    if (this.answered) return;
    this.answered = true;
    if (!this.#respond()) return;
    this.#end(OK_TRAILERS);
  }

  /** Answers with the status `failure` means (a {@link ServerStatus} as it is; anything else through `toGrpcStatus`). */
  fail(failure: unknown): void {
    if (this.answered) return;
    this.answered = true;
    const stream = this.#stream;
    if (stream.destroyed) return;
    const answer = failure instanceof ServerStatus ? failure : toGrpcStatus(failure);
    if (this.#headersSent) {
      this.#end(statusTrailers(answer));
      return;
    }
    this.#headersSent = true;
    respondTrailersOnly(stream, answer);
  }
}

/** Trailers-only: the status rides in the only headers, as grpc-js answers a call that sent nothing yet. */
function respondTrailersOnly(stream: ServerHttp2Stream, answer: GrpcStatus): void {
  stream.respond(trailersOnlyHeaders(answer), { endStream: true });
}

/** Answers a request that never became a call (unknown method, bad headers): trailers-only, nothing read. */
function refuse(stream: ServerHttp2Stream, answer: GrpcStatus): void {
  if (stream.destroyed) return;
  // Whatever the caller still sends is read and dropped, so that the stream can close.
  stream.resume();
  respondTrailersOnly(stream, answer);
}

/**
 * Reads the request's one message: the whole body (gRPC requests of this contract are one message, then the
 * end of the stream), unframed, decompressed when its flag says so. Resolves undefined, after answering the call,
 * when the body is not exactly one well-formed message.
 */
function readRequest(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  path: string,
  call: GrpcCall,
  maxRequestBytes: number,
  onMessage: (message: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  /** The length the frame header declares, once its 5 bytes are in. */
  let declared: number | undefined;
  /** Answers the call, keeps nothing more, and asks the client to stop sending (RFC 9113 §8.1: NO_ERROR). */
  const stopReading = (failure: ServerStatus) => {
    call.fail(failure);
    chunks.length = 0;
    if (!stream.destroyed) stream.close(http2Constants.NGHTTP2_NO_ERROR);
  };
  const onData = (chunk: Buffer) => {
    if (call.answered) return;
    chunks.push(chunk);
    received += chunk.length;
    if (declared === undefined && received >= 5) {
      const head = (chunks[0] as Buffer).length >= 5 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      declared = head.readUInt32BE(1);
      if (declared > maxRequestBytes) {
        stopReading(
          status(
            Code.ResourceExhausted,
            `Received message larger than max (${declared} vs. ${maxRequestBytes})`,
          ),
        );
        return;
      }
    }
    // More than the one message the header announced: no need to hold it until the end to refuse it.
    if (declared !== undefined && received > 5 + declared) {
      stopReading(status(Code.Unimplemented, `Received a second request message for method ${path}`));
    }
  };
  const onEnd = () => {
    if (call.answered) return;
    // As grpc-js: a stream that ends before a whole message is a call without its request. (More than one
    // message was refused as it arrived.)
    if (declared === undefined || received < 5 + declared) {
      call.fail(status(Code.Unimplemented, `Received no request message for method ${path}`));
      return;
    }
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    chunks.length = 0;
    const flag = body[0];
    const message = body.subarray(5);
    if (flag === 0) {
      onMessage(message);
      return;
    }
    if (flag !== 1) {
      call.fail(status(Code.Internal, `Invalid gRPC frame flag ${flag}: expected 0 or 1`));
      return;
    }
    const encoding = headers["grpc-encoding"];
    if (encoding === undefined || encoding === "identity") {
      call.fail(status(Code.Internal, "Received a compressed message without a grpc-encoding header"));
      return;
    }
    const decompress = typeof encoding === "string" ? DECOMPRESS[encoding] : undefined;
    if (!decompress) {
      call.fail(
        status(Code.Unimplemented, `Received message compressed with unsupported encoding "${encoding}"`),
      );
      return;
    }
    decompress(message, { maxOutputLength: maxRequestBytes }).then(
      (plain) => {
        if (!call.answered) onMessage(plain);
      },
      (error: NodeJS.ErrnoException) =>
        call.fail(
          error.code === "ERR_BUFFER_TOO_LARGE"
            ? status(
                Code.ResourceExhausted,
                `Received message larger than max (more than ${maxRequestBytes} bytes once decompressed)`,
              )
            : status(Code.Internal, "Failed to decompress message"),
        ),
    );
  };
  call.readBody(onData, onEnd);
}

function decodeRequest(codec: MessageCodec, message: Buffer, call: GrpcCall): unknown {
  try {
    return codec.decode(message);
  } catch (error) {
    call.fail(
      status(
        Code.Internal,
        `Error deserializing request: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
    return undefined;
  }
}

function runUnary(
  method: ServedMethod & { kind: "unary" },
  request: unknown,
  call: GrpcCall,
  headers: IncomingHttpHeaders,
) {
  answerUnary(
    method.handler,
    request,
    handlerContextFromGrpc(headers, call.cancellation),
    method.output,
    call,
  );
}

/**
 * Runs a server-streaming handler: each reply is written as it is yielded, waiting while the client reads slower
 * than the engine writes. When the caller goes away the generator is ended (its `finally` runs), not awaited,
 * because a generator busy on something that ignores the signal must not hold the call open.
 */
async function runServerStream(
  method: ServedMethod & { kind: "serverStream" },
  request: unknown,
  call: GrpcCall,
  headers: IncomingHttpHeaders,
  stream: ServerHttp2Stream,
): Promise<void> {
  const signal = call.cancellation.signal;
  let iterator: AsyncIterator<unknown> | undefined;
  try {
    iterator = method
      .handler(request as never, handlerContextFromGrpc(headers, call.cancellation))
      [Symbol.asyncIterator]();
    for (;;) {
      const next = await untilAborted(iterator.next(), signal);
      if (next.done || call.answered) break;
      // With the signal, `once` takes its listeners off the stream when the call ends before a drain.
      if (!call.write(method.output, next.value))
        await untilAborted(once(stream, "drain", { signal }), signal);
    }
    call.finish();
  } catch (error) {
    call.fail(error);
  } finally {
    if (iterator?.return) void Promise.resolve(iterator.return()).catch(ignore);
  }
}

function pathOf(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** A method's request and reply codecs, compiled once when the server is made. */
function codecsOf(method: DescMethod): { input: MessageCodec; output: MessageCodec } {
  return { input: compileMessageCodec(method.input), output: compileMessageCodec(method.output) };
}

/** The methods of the five Wanaku v1 services that have a handler, by their gRPC path. */
function servedMethods(handlers: CapabilityHandlers): Map<string, ServedMethod> {
  const served = new Map<string, ServedMethod>();
  const unary: [DescMethod, UnaryHandler | undefined][] = [
    [ToolInvoker.method.invokeTool, handlers.toolInvoker?.bind(handlers)],
    [ResourceAcquirer.method.resourceAcquire, handlers.resourceAcquirer?.bind(handlers)],
    [Provisioner.method.provision, handlers.provisioner?.bind(handlers)],
    [HealthProbe.method.getStatus, handlers.healthProbe?.bind(handlers)],
  ];
  for (const [method, handler] of unary) {
    if (handler) served.set(pathOf(method), { kind: "unary", ...codecsOf(method), handler });
  }
  const executeCode = handlers.codeExecutor?.bind(handlers);
  if (executeCode) {
    const method = CodeExecutor.method.executeCode;
    served.set(pathOf(method), { kind: "serverStream", ...codecsOf(method), handler: executeCode });
  }
  return served;
}

/**
 * A gRPC server for the five Wanaku v1 services working directly on Node's HTTP/2 streams: gRPC in protobuf, one
 * request message per call (unary and server streaming), what Trestle's router and other gRPC clients send. It
 * answers as grpc-js does (trailers-only failures, `UNIMPLEMENTED` for a method without a handler, `grpc-timeout`
 * deadlines, gzip and deflate requests) for a fraction of its CPU per call and without loading it. With
 * `secretCheck`, a call without the call secret fails `UNAUTHENTICATED` before its handler runs. A request message
 * over `maxRequestBytes` (as sent, or once decompressed) fails `RESOURCE_EXHAUSTED` without being kept.
 */
export function createGrpcServer(
  handlers: CapabilityHandlers,
  inFlight: InFlightCalls,
  secretCheck: CallSecretCheck | undefined,
  maxRequestBytes: number,
): GrpcStreamServer {
  const methods = servedMethods(handlers);
  const reasons = abortReasons();
  return (stream, headers) => {
    // Errors on a stream (a reset, a dropped connection) end in its `close` event, which ends the call.
    stream.on("error", ignore);
    const path = headers[":path"] ?? "";
    const method = methods.get(path);
    if (!method) {
      refuse(stream, status(Code.Unimplemented, `The server does not implement the method ${path}`));
      return;
    }
    if (headers[":method"] !== "POST") {
      refuse(
        stream,
        status(Code.Unimplemented, `gRPC calls are POST requests; ${headers[":method"]} is not served`),
      );
      return;
    }
    let timeoutMs: number | undefined;
    try {
      timeoutMs = requestTimeoutMs(headers);
    } catch (error) {
      refuse(stream, status(Code.Internal, (error as TrestleError).rawMessage));
      return;
    }
    if (secretCheck && !secretCheck.acceptsGrpc(headers)) {
      refuse(stream, status(Code.Unauthenticated, secretCheck.refusalMessage));
      return;
    }
    const call = new GrpcCall(stream, inFlight, timeoutMs, reasons);
    readRequest(stream, headers, path, call, maxRequestBytes, (message) => {
      const request = decodeRequest(method.input, message, call);
      if (request === undefined) return;
      if (method.kind === "unary") runUnary(method, request, call, headers);
      else void runServerStream(method, request, call, headers, stream);
    });
  };
}
