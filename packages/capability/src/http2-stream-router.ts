import * as http2 from "node:http2";
import type { ConnectUnaryStreamServer } from "./connect-unary-server.js";
import type { GrpcStreamServer } from "./grpc-server.js";

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

/**
 * True for the gRPC protocol in protobuf (`application/grpc`, `application/grpc+proto`, with or without
 * parameters): what the lean gRPC server serves. gRPC-Web (`application/grpc-web…`), gRPC with the JSON codec and
 * Connect are left to connect-node.
 */
export function isGrpcProtobuf(contentType: string | undefined): boolean {
  if (contentType === undefined || !contentType.startsWith("application/grpc")) return false;
  const rest = contentType.slice("application/grpc".length);
  return rest === "" || rest === "+proto" || rest.startsWith(";") || rest.startsWith("+proto;");
}

/**
 * Routes each stream of an HTTP/2 server: gRPC calls in protobuf to `serveGrpc`, Connect unary calls in protobuf
 * to `serveConnectUnary` when it takes them, everything else to `onRequest` through Node's compatibility request and
 * response, as Node's own `request` event would.
 */
export function createHttp2StreamRouter(
  serveGrpc: GrpcStreamServer,
  serveConnectUnary: ConnectUnaryStreamServer,
  onRequest: Http2RequestListener,
): Http2StreamListener {
  return (stream, headers, _flags, rawHeaders) => {
    if (isGrpcProtobuf(headers["content-type"])) {
      serveGrpc(stream, headers);
      return;
    }
    if (serveConnectUnary(stream, headers)) return;
    onRequest(
      new http2.Http2ServerRequest(stream, headers, {}, rawHeaders ?? []),
      new http2.Http2ServerResponse(stream),
    );
  };
}
