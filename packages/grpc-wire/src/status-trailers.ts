import {
  type ClientHttp2Stream,
  constants,
  type IncomingHttpHeaders,
  type IncomingHttpStatusHeader,
  type OutgoingHttpHeaders,
} from "node:http2";
import { Code, TrestleError } from "@trestle/core";
import { encodeGrpcMessage } from "./grpc-message.js";
import { codeFromHttpStatus, errorFromGrpcStatus } from "./grpc-status.js";

/** A gRPC status as a server sends it: code, raw message, and extra trailers. */
export interface GrpcStatus {
  code: number;
  /** The message before percent-encoding. */
  message: string;
  /** Trailers beside `grpc-status` and `grpc-message` (e.g. a thrown `ConnectError`'s metadata). */
  trailers?: OutgoingHttpHeaders;
}

/** The trailers (or, in a trailers-only reply, the headers' part) that carry a status. */
export function statusTrailers(answer: GrpcStatus): OutgoingHttpHeaders {
  return {
    "grpc-status": String(answer.code),
    "grpc-message": encodeGrpcMessage(answer.message),
    ...answer.trailers,
  };
}

/** The trailers of a call that ended well: one object, shared by every call. */
export const OK_TRAILERS: Readonly<OutgoingHttpHeaders> = { "grpc-status": "0", "grpc-message": "OK" };

/** Trailers-only: the status rides in the only headers, as grpc-js answers a call that sent nothing yet. */
export function trailersOnlyHeaders(answer: GrpcStatus): OutgoingHttpHeaders {
  return { ":status": 200, "content-type": "application/grpc", ...statusTrailers(answer) };
}

/** The headers of a gRPC reply as a client receives them. */
export type ReplyHeaders = IncomingHttpHeaders & IncomingHttpStatusHeader;

/**
 * How a client's finished call ended: undefined for status OK, else the error its status (in the trailers, or in
 * the headers of a trailers-only reply), its HTTP status or its stream's reset means: a stream refused, or closed
 * before any reply headers, is `Unavailable`; a reply without a gRPC status is `Internal`.
 */
export function callEnding(
  stream: Pick<ClientHttp2Stream, "rstCode">,
  replyHeaders: ReplyHeaders | undefined,
  trailers: IncomingHttpHeaders | undefined,
): TrestleError | undefined {
  const status = trailers?.["grpc-status"] ?? replyHeaders?.["grpc-status"];
  if (status === undefined) {
    const http = replyHeaders?.[":status"];
    if (http !== undefined && http !== 200) {
      return new TrestleError(`The service answered HTTP ${http}`, codeFromHttpStatus(http));
    }
    if (stream.rstCode === constants.NGHTTP2_REFUSED_STREAM || replyHeaders === undefined) {
      return new TrestleError("The service closed the call without an answer", Code.Unavailable);
    }
    return new TrestleError("The service's reply carries no gRPC status", Code.Internal);
  }
  const code = Number(status);
  if (code === 0) return undefined;
  const message = trailers?.["grpc-message"] ?? replyHeaders?.["grpc-message"];
  return errorFromGrpcStatus({ code, details: typeof message === "string" ? message : "" });
}
