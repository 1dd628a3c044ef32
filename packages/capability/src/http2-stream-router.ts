import * as http2 from "node:http2";
import type * as grpc from "@grpc/grpc-js";

/** What serves the HTTP/2 requests that are not gRPC in protobuf: Node's compatibility API, as connect-node wants it. */
export type Http2RequestListener = (
  request: http2.Http2ServerRequest,
  response: http2.Http2ServerResponse,
) => void;

/** A listener for an HTTP/2 server's `stream` event (Node passes the raw headers too; @types/node omits them). */
export type Http2StreamListener = (
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  flags: number,
  rawHeaders?: string[],
) => void;

/** grpc-js's handler of one HTTP/2 stream, as its own HTTP/2 servers call it for each `stream` event. */
type GrpcStreamHandler = (
  extraInterceptors: grpc.ServerInterceptor[],
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
) => void;

const NO_INTERCEPTORS: grpc.ServerInterceptor[] = [];

/**
 * The per-stream entry point of a grpc-js server, or undefined when this grpc-js has none. grpc-js serves only
 * the HTTP/2 servers it creates, and a connection on the shared port can carry gRPC, Connect and gRPC-Web
 * requests side by side, so the stream has to be handed over after the connection is ours. The method is not
 * part of grpc-js's typed API (it is in 1.10 to 1.14); the package pins its grpc-js version, and a test proves
 * that gRPC calls reach it.
 */
function grpcStreamHandlerOf(server: grpc.Server): GrpcStreamHandler | undefined {
  const handler = (server as unknown as { _streamHandler?: unknown })._streamHandler;
  if (typeof handler !== "function" || handler.length !== 3) return undefined;
  return (handler as GrpcStreamHandler).bind(server);
}

/**
 * True for the gRPC protocol in protobuf (`application/grpc`, `application/grpc+proto`, with or without
 * parameters): what grpc-js serves. gRPC-Web (`application/grpc-web…`), gRPC with the JSON codec and Connect are
 * left to connect-node.
 */
export function isGrpcProtobuf(contentType: string | undefined): boolean {
  if (contentType === undefined || !contentType.startsWith("application/grpc")) return false;
  const rest = contentType.slice("application/grpc".length);
  return rest === "" || rest === "+proto" || rest.startsWith(";") || rest.startsWith("+proto;");
}

/**
 * Routes each stream of an HTTP/2 server: gRPC calls in protobuf to the grpc-js server (whose handlers are
 * registered, and which never listens itself), everything else to `onRequest` through Node's compatibility
 * request and response, as Node's own `request` event would. A grpc-js without a per-stream entry point leaves
 * every stream to `onRequest`, which serves gRPC as well, only slower.
 */
export function createHttp2StreamRouter(
  grpcServer: grpc.Server,
  onRequest: Http2RequestListener,
): Http2StreamListener {
  const serveGrpc = grpcStreamHandlerOf(grpcServer);
  return (stream, headers, _flags, rawHeaders) => {
    if (serveGrpc && isGrpcProtobuf(headers["content-type"])) {
      serveGrpc(NO_INTERCEPTORS, stream, headers);
      return;
    }
    onRequest(
      new http2.Http2ServerRequest(stream, headers, {}, rawHeaders ?? []),
      new http2.Http2ServerResponse(stream),
    );
  };
}
