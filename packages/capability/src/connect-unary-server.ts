import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { create, type DescMethodUnary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, codeToString, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import type { HandlerContext } from "@trestle/core";
import { HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";
import { compileMessageCodec, type MessageCodec } from "@trestle/protobuf-codec";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { CallCancellation } from "./call-cancellation.js";
import type { CallSecretCheck } from "./call-secret.js";
import type { InFlightCalls } from "./capability-routes.js";
import { answerUnary, handlerContextFromGrpc } from "./handler-context.js";
import { toGrpcStatus } from "./handler-error.js";

/**
 * Serves one HTTP/2 stream when it is a Connect unary call in protobuf binary to a method with a handler, and says
 * so; false (nothing read, nothing sent) leaves the stream to connect-node.
 */
export type ConnectUnaryStreamServer = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

type UnaryHandler = (request: never, context: HandlerContext) => unknown;

/** One unary method: its compiled codecs and its handler. */
interface ServedUnary {
  input: MessageCodec;
  output: MessageCodec;
  handler: UnaryHandler;
}

/** Above this a timer fires at once (Node's timers hold 32 bits): a deadline that far away is no deadline. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** `connect-timeout-ms`: at most 10 digits (the Connect protocol's own limit). */
const TIMEOUT_HEADER = /^[0-9]{1,10}$/;

const SUCCESS_HEADERS: Readonly<OutgoingHttpHeaders> = {
  ":status": 200,
  "content-type": "application/proto",
};

function ignore(): void {}

/**
 * Sends a whole answer: its headers, its body, and END_STREAM once the body's write has completed. `end(body)`
 * would put END_STREAM on the body's DATA frame, and as the request is already read the stream then closes and is
 * destroyed before that write's callback runs: Node 20's Writable then builds an `ERR_STREAM_DESTROYED` (stack and
 * all) that nobody receives, on every call. Ending after the write costs one empty DATA frame instead, as the gRPC
 * server's trailers do. A stream the client reset or closed gets nothing.
 */
function sendAnswer(stream: ServerHttp2Stream, headers: OutgoingHttpHeaders, body: Buffer): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond(headers);
  stream.write(body, (error) => {
    if (!error && !stream.destroyed && !stream.closed) stream.end();
  });
}

/**
 * A failure the server itself answers with (a deadline, a refusal, a request it cannot read). Like the lean gRPC
 * server, this path makes no `ConnectError` for a call that fails with a `TrestleError` or is refused: one builds
 * a `Headers`, and the first `Headers` of a process loads undici (about 5.5 MiB resident).
 */
class ConnectStatus {
  constructor(
    readonly code: Code,
    readonly message: string,
  ) {}
}

/** A Connect error's JSON body (connectrpc.com/docs/protocol: `code` as its name, `message` when there is one). */
function errorBody(code: Code, message: string): Buffer {
  return Buffer.from(
    JSON.stringify(message ? { code: codeToString(code), message } : { code: codeToString(code) }),
  );
}

/**
 * Why a call's signal aborted, made on first use and shared by every call after (an ended call costs no new
 * error): an answered call aborts with an `AbortError`, as connect-node's handlers see it; a cancelled call and a
 * passed deadline with a `ConnectError` of their code, as connect-node words them.
 */
function abortReasons() {
  let ended: DOMException | undefined;
  let cancelled: ConnectError | undefined;
  let deadline: ConnectError | undefined;
  return {
    ended: () => (ended ??= new DOMException("The call has ended", "AbortError")),
    cancelled: () =>
      (cancelled ??= new ConnectError(
        "The caller cancelled the call or its connection closed",
        Code.Canceled,
      )),
    deadlinePassed: () => (deadline ??= new ConnectError("the operation timed out", Code.DeadlineExceeded)),
  };
}

const DEADLINE_PASSED = new ConnectStatus(Code.DeadlineExceeded, "the operation timed out");

/**
 * The headers of a Connect error reply: status and JSON content type, and a thrown `ConnectError`'s metadata
 * (as connect-node sends it), leaving out what HTTP/2 would refuse.
 */
function errorHeaders(error: ConnectError): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ":status": codeToHttpStatus(error.code),
    "content-type": "application/json",
  };
  error.metadata.forEach((value, key) => {
    if (key.startsWith(":") || key === "content-type" || key === "content-length") return;
    if (/^(connection|keep-alive|proxy-connection|transfer-encoding|upgrade|te)$/.test(key)) return;
    headers[key] = value;
  });
  return headers;
}

/** One Connect unary call on its stream: answered exactly once, with its deadline and its cancellation. */
class ConnectUnaryCall {
  readonly cancellation = new CallCancellation();
  answered = false;
  readonly #stream: ServerHttp2Stream;
  readonly #leave: () => void;
  readonly #reasons: ReturnType<typeof abortReasons>;
  #deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    stream: ServerHttp2Stream,
    inFlight: InFlightCalls,
    timeoutMs: number | undefined,
    reasons: ReturnType<typeof abortReasons>,
  ) {
    this.#stream = stream;
    this.#reasons = reasons;
    this.#leave = inFlight.enter((reason) => {
      this.cancellation.abort(() => reason);
      this.fail(reason);
    });
    if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) {
      this.#deadlineTimer = setTimeout(() => {
        this.cancellation.abort(reasons.deadlinePassed);
        this.fail(DEADLINE_PASSED);
      }, timeoutMs);
    }
    stream.once("close", () => this.#closed());
  }

  #closed(): void {
    if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
    const reasons = this.#reasons;
    this.cancellation.abort(this.answered ? reasons.ended : reasons.cancelled);
    this.answered = true;
    this.#leave();
  }

  /** Answers with the reply, encoded by the method's compiled codec. */
  succeed(codec: MessageCodec, reply: unknown): void {
    if (this.answered) return;
    let body: Buffer;
    try {
      body = codec.encode(create(codec.desc, reply as never));
    } catch (error) {
      this.fail(
        new ConnectStatus(
          Code.Internal,
          `Error serializing response: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    this.answered = true;
    sendAnswer(this.#stream, { ...SUCCESS_HEADERS, "content-length": body.length }, body);
  }

  /**
   * Answers with the Connect error `failure` means: its HTTP status and JSON body. A thrown `ConnectError` goes as
   * connect-node sends it (details, metadata as headers); anything else as `toGrpcStatus` reads it.
   */
  fail(failure: unknown): void {
    if (this.answered) return;
    this.answered = true;
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    if (failure instanceof ConnectError) {
      let headers: OutgoingHttpHeaders;
      try {
        headers = errorHeaders(failure);
      } catch {
        headers = { ":status": codeToHttpStatus(failure.code), "content-type": "application/json" };
      }
      sendAnswer(stream, headers, Buffer.from(errorToJsonBytes(failure, {})));
      return;
    }
    const { code, message } =
      failure instanceof ConnectStatus ? failure : (toGrpcStatus(failure) as { code: Code; message: string });
    sendAnswer(
      stream,
      { ":status": codeToHttpStatus(code), "content-type": "application/json" },
      errorBody(code, message),
    );
  }
}

/** The unary methods of the four Wanaku v1 unary services that have a handler, by their path. */
function servedMethods(handlers: CapabilityHandlers): Map<string, ServedUnary> {
  const served = new Map<string, ServedUnary>();
  const unary: [DescMethodUnary, UnaryHandler | undefined][] = [
    [ToolInvoker.method.invokeTool, handlers.toolInvoker?.bind(handlers)],
    [ResourceAcquirer.method.resourceAcquire, handlers.resourceAcquirer?.bind(handlers)],
    [Provisioner.method.provision, handlers.provisioner?.bind(handlers)],
    [HealthProbe.method.getStatus, handlers.healthProbe?.bind(handlers)],
  ];
  for (const [method, handler] of unary) {
    if (!handler) continue;
    served.set(`/${method.parent.typeName}/${method.name}`, {
      input: compileMessageCodec(method.input),
      output: compileMessageCodec(method.output),
      handler,
    });
  }
  return served;
}

/**
 * True for the request shape the lean path serves: a POST of `application/proto` (Connect unary, binary), not
 * compressed, in Connect protocol version 1 (or unnamed), with a well-formed deadline or none. Everything else —
 * JSON, GET requests, compressed bodies, streams, malformed headers — is connect-node's to serve or refuse.
 */
function isLeanConnectUnary(headers: IncomingHttpHeaders): boolean {
  if (headers[":method"] !== "POST" || headers["content-type"] !== "application/proto") return false;
  const encoding = headers["content-encoding"];
  if (encoding !== undefined && encoding !== "identity") return false;
  const version = headers["connect-protocol-version"];
  if (version !== undefined && version !== "1") return false;
  const timeout = headers["connect-timeout-ms"];
  return timeout === undefined || (typeof timeout === "string" && TIMEOUT_HEADER.test(timeout));
}

/**
 * A Connect unary server for the four Wanaku v1 unary services working directly on Node's HTTP/2 streams, for
 * Connect calls in protobuf binary (what Trestle's router and connect-es clients send by default): it reads the
 * message, runs the handler with the same context a connect-node handler gets (signal, request id, metadata), and
 * answers as connect-node does (200 with the message; a Connect error as its HTTP status and JSON body; the
 * `connect-timeout-ms` deadline; `UNAUTHENTICATED` without the call secret; `RESOURCE_EXHAUSTED` over
 * `maxRequestBytes`), without connect-node's per-call compatibility request, `Headers`, linked signals and async
 * iterables. A stream it does not serve is left untouched for connect-node.
 */
export function createConnectUnaryServer(
  handlers: CapabilityHandlers,
  inFlight: InFlightCalls,
  secretCheck: CallSecretCheck | undefined,
  maxRequestBytes: number,
): ConnectUnaryStreamServer {
  const methods = servedMethods(handlers);
  const reasons = abortReasons();
  return (stream, headers) => {
    const method = methods.get(headers[":path"] ?? "");
    if (!method || !isLeanConnectUnary(headers)) return false;
    stream.on("error", ignore);
    const timeout = headers["connect-timeout-ms"];
    const call = new ConnectUnaryCall(
      stream,
      inFlight,
      typeof timeout === "string" ? Number(timeout) : undefined,
      reasons,
    );
    if (secretCheck && !secretCheck.acceptsGrpc(headers)) {
      stream.resume();
      call.fail(new ConnectStatus(Code.Unauthenticated, secretCheck.refusalMessage));
      return true;
    }
    const declared = Number(headers["content-length"]);
    if (declared > maxRequestBytes) {
      stream.resume();
      call.fail(
        new ConnectStatus(
          Code.ResourceExhausted,
          `message size ${declared} is larger than configured readMaxBytes ${maxRequestBytes}`,
        ),
      );
      return true;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    stream.on("data", (chunk: Buffer) => {
      if (call.answered) return;
      received += chunk.length;
      if (received > maxRequestBytes) {
        chunks.length = 0;
        call.fail(
          new ConnectStatus(
            Code.ResourceExhausted,
            `message size is larger than configured readMaxBytes ${maxRequestBytes}`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    stream.once("end", () => {
      if (call.answered) return;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      chunks.length = 0;
      let request: unknown;
      try {
        request = method.input.decode(body);
      } catch (error) {
        call.fail(
          new ConnectStatus(
            Code.InvalidArgument,
            `Error deserializing request: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
        return;
      }
      run(method, request, call, headers);
    });
    return true;
  };
}

function run(
  method: ServedUnary,
  request: unknown,
  call: ConnectUnaryCall,
  headers: IncomingHttpHeaders,
): void {
  answerUnary(
    method.handler,
    request,
    handlerContextFromGrpc(headers, call.cancellation, "as-sent"),
    method.output,
    call,
  );
}
