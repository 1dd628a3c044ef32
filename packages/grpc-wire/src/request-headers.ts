import type { OutgoingHttpHeaders } from "node:http2";
import { formatGrpcTimeout } from "./grpc-timeout.js";

/**
 * The request headers of a gRPC call: `headers` (the call's metadata, this call's own object) completed in place
 * with the gRPC ones, `:method`, `:path`, `content-type`, `te` and the deadline as `grpc-timeout`, and returned.
 * In place, because a call's headers are one object made for it: no copy per call.
 */
export function grpcRequestHeaders(
  headers: OutgoingHttpHeaders,
  path: string,
  timeoutMs: number,
): OutgoingHttpHeaders {
  headers[":method"] = "POST";
  headers[":path"] = path;
  headers["content-type"] = "application/grpc";
  headers.te = "trailers";
  headers["grpc-timeout"] = formatGrpcTimeout(timeoutMs);
  return headers;
}
