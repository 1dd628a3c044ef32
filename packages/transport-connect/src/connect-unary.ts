import {
  type ClientHttp2Stream,
  constants,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from "node:http2";
import { promisify } from "node:util";
import { gunzip, type ZlibOptions } from "node:zlib";
import { create, type DescMethodUnary, type DescService, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import type { Http2SessionManager } from "@connectrpc/connect-node";
import type { Cancellation } from "@trestle/core";
import { compileMessageCodec, type MessageCodec } from "@trestle/protobuf-codec";

/**
 * The largest reply message read, in bytes: connect-node's own ceiling (`readMaxBytes`, 2^32 − 1), so the lean
 * path refuses nothing the connect-node path would take.
 */
const MAX_REPLY_BYTES = 0xffffffff;

/** Reply encodings read (the request sends no `accept-encoding`, so a service should send none). */
const DECOMPRESS: Record<string, (message: Buffer, options: ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
};

/**
 * Node copies the options of each request; one object serves them all, with its priority fields at Node's
 * defaults so that Node's copy does not add them one by one.
 */
const REQUEST_OPTIONS = { endStream: false, weight: 16, parent: 0, exclusive: false, silent: false } as const;

/** One unary method of the lean client: its path and its compiled request and reply codecs. */
export interface LeanUnaryMethod<I extends DescMethodUnary = DescMethodUnary> {
  readonly path: string;
  readonly method: I;
  readonly input: MessageCodec<I["input"]>;
  readonly output: MessageCodec<I["output"]>;
}

/** Compiles the codecs of `service`'s unary method `name`, once per transport. */
export function leanUnaryMethod<S extends DescService, K extends keyof S["method"]>(
  service: S,
  name: K,
): LeanUnaryMethod<Extract<S["method"][K], DescMethodUnary>> {
  const method = service.method[name as string] as Extract<S["method"][K], DescMethodUnary>;
  return {
    path: `/${service.typeName}/${method.name}`,
    method,
    input: compileMessageCodec(method.input),
    output: compileMessageCodec(method.output),
  };
}

/** What one lean call needs besides its message: its deadline, its caller's cancellation and its request headers. */
export interface LeanCallOptions {
  timeoutMs: number;
  /**
   * Lower-cased, already checked as HTTP headers: this call's own object, completed in place with the Connect
   * framing headers (set over any entry of the same name).
   */
  headers: Record<string, string | number>;
  /** The caller's cancellation (core's `cancellationOf` the call options): no `AbortSignal` is made for it. */
  cancellation?: Cancellation | undefined;
}

function statusError(status: number, body: Buffer, headers: IncomingHttpHeaders): ConnectError {
  const fallback = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status));
  const contentType = headers["content-type"];
  if (typeof contentType !== "string" || !contentType.startsWith("application/json")) return fallback;
  try {
    return errorFromJsonBytes(body, undefined, fallback);
  } catch {
    return fallback;
  }
}

function unreachable(error: Error): ConnectError {
  const cause = (error as Error & { cause?: Error }).cause ?? error;
  return new ConnectError(
    `The service could not be reached: ${cause.message}`,
    Code.Unavailable,
    undefined,
    undefined,
    error,
  );
}

/**
 * Runs one Connect unary call (protobuf binary, RFC: connectrpc.com/docs/protocol) on an HTTP/2 stream of
 * `sessions`: a POST of the message with `content-type: application/proto`, `connect-protocol-version: 1` and the
 * deadline as `connect-timeout-ms`; a 200 reply is the message, any other status carries the Connect error as
 * JSON. Where connect-es runs a call through async iterables, linked abort signals and `Headers` objects, this
 * writes one request and reads one reply. Rejects with a `ConnectError`: the service's, `DeadlineExceeded` after
 * `timeoutMs` (the stream is reset, so the service sees it), `Canceled` when the caller cancels,
 * `Unavailable` when the connection fails.
 */
export function connectUnaryCall<M extends DescMethodUnary>(
  sessions: Http2SessionManager,
  method: LeanUnaryMethod<M>,
  request: MessageShape<M["input"]> | object,
  options: LeanCallOptions,
): Promise<MessageShape<M["output"]>> {
  const cancellation = options.cancellation;
  if (cancellation?.aborted) {
    return Promise.reject(
      new ConnectError("The call was cancelled", Code.Canceled, undefined, undefined, cancellation.reason),
    );
  }
  let body: Buffer;
  try {
    const message =
      (request as { $typeName?: string }).$typeName === method.method.input.typeName
        ? (request as MessageShape<M["input"]>)
        : (create(method.method.input, request as never) as MessageShape<M["input"]>);
    body = method.input.encode(message);
  } catch (error) {
    return Promise.reject(ConnectError.from(error, Code.Internal));
  }
  // Completed in place: a spread copies key by key.
  const headers: OutgoingHttpHeaders = options.headers;
  headers["content-type"] = "application/proto";
  headers["connect-protocol-version"] = "1";
  headers["connect-timeout-ms"] = Math.max(0, Math.ceil(options.timeoutMs));
  headers["content-length"] = body.length;
  return new Promise((resolve, reject) => {
    let settled = false;
    let stream: ClientHttp2Stream | undefined;
    let status = 0;
    let replyHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: ConnectError | undefined, reply?: MessageShape<M["output"]>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cancellation?.offAbort(onAbort);
      if (error) reject(error);
      else resolve(reply as MessageShape<M["output"]>);
    };
    const abort = (reason: ConnectError) => {
      if (settled) return;
      if (stream && !stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
      finish(reason);
    };
    const onAbort = () =>
      abort(
        new ConnectError("The call was cancelled", Code.Canceled, undefined, undefined, cancellation?.reason),
      );
    const timer = setTimeout(
      () => abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)),
      options.timeoutMs,
    );
    cancellation?.onAbort(onAbort);

    const onClose = () => {
      if (settled) return;
      const reply = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const rstCode = stream?.rstCode ?? constants.NGHTTP2_NO_ERROR;
      if (status === 0 || rstCode !== constants.NGHTTP2_NO_ERROR) {
        // Reset or closed before a whole reply: the service (or the connection) went away mid-call.
        finish(new ConnectError("The service closed the stream without a whole reply", Code.Unavailable));
        return;
      }
      const encoding = replyHeaders["content-encoding"];
      if (typeof encoding === "string" && encoding !== "identity") {
        const decompress = DECOMPRESS[encoding];
        if (!decompress) {
          finish(
            new ConnectError(
              `The reply is compressed with unsupported encoding "${encoding}"`,
              Code.Internal,
            ),
          );
          return;
        }
        decompress(reply, { maxOutputLength: MAX_REPLY_BYTES }).then(
          (plain) => settle(plain),
          () => finish(new ConnectError("Failed to decompress the reply", Code.Internal)),
        );
        return;
      }
      settle(reply);
    };
    const settle = (reply: Buffer) => {
      if (status !== 200) {
        finish(statusError(status, reply, replyHeaders));
        return;
      }
      const contentType = replyHeaders["content-type"];
      if (contentType !== "application/proto") {
        finish(
          new ConnectError(
            `The service answered with content type ${String(contentType)}, not application/proto`,
            Code.Internal,
          ),
        );
        return;
      }
      try {
        finish(undefined, method.output.decode(reply));
      } catch (error) {
        finish(ConnectError.from(error, Code.Internal));
      }
    };

    sessions.request("POST", method.path, headers, REQUEST_OPTIONS).then(
      (opened) => {
        if (settled) {
          opened.close(constants.NGHTTP2_CANCEL);
          return;
        }
        stream = opened;
        opened.on("response", (h: IncomingHttpHeaders) => {
          status = Number(h[":status"]);
          replyHeaders = h;
        });
        opened.on("data", (chunk: Buffer) => {
          sessions.notifyResponseByteRead(opened);
          received += chunk.length;
          if (received > MAX_REPLY_BYTES) {
            abort(
              new ConnectError(`The reply is larger than ${MAX_REPLY_BYTES} bytes`, Code.ResourceExhausted),
            );
            return;
          }
          chunks.push(chunk);
        });
        // Our own cancellations settle first; any other stream error is the connection's.
        opened.on("error", (error: Error) => finish(unreachable(error)));
        opened.on("close", onClose);
        opened.end(body);
      },
      (error: unknown) => finish(ConnectError.from(error, Code.Unavailable)),
    );
  });
}
