/**
 * gRPC over HTTP/2, once: what the router's lean gRPC client (`@trestle/transport-grpc`) and the capability
 * SDK's gRPC server (`@trestle/capability`) both speak. `grpc-timeout`, `grpc-message`, status codes and the
 * trailers that carry them, length-prefixed messages, and the rules of metadata. Plain functions on Node's
 * HTTP/2 header objects and buffers: no connection, no state, nothing allocated beyond what each returns.
 *
 * @packageDocumentation
 */
export { decodeGrpcMessage, encodeGrpcMessage } from "./grpc-message.js";
export { codeFromHttpStatus, errorFromGrpcStatus, type GrpcStatusLike } from "./grpc-status.js";
export { formatGrpcTimeout, parseGrpcTimeout, requestTimeoutMs } from "./grpc-timeout.js";
export {
  FRAME_HEADER_BYTES,
  frameMessage,
  takeReplyMessages,
  unaryReplyMessage,
} from "./message-frame.js";
export {
  isBinaryMetadataKey,
  isGrpcMetadataKey,
  isGrpcTextMetadataValue,
  isReservedTrailerKey,
} from "./metadata-rules.js";
export { grpcRequestHeaders } from "./request-headers.js";
export {
  callEnding,
  type GrpcStatus,
  OK_TRAILERS,
  type ReplyHeaders,
  statusTrailers,
  trailersOnlyHeaders,
} from "./status-trailers.js";
