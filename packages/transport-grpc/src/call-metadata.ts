import type * as grpc from "@grpc/grpc-js";
import { type CallOptions, Code, TrestleError } from "@trestle/core";
import { isBinaryMetadataKey, isGrpcMetadataKey, isGrpcTextMetadataValue } from "@trestle/grpc-wire";
import { REQUEST_ID_METADATA_KEY } from "@trestle/wanaku";
import type { GrpcJsModule } from "./load-grpc-js.js";

/**
 * The metadata of one call as HTTP/2 request headers: lower-case keys, text values as they are, and the
 * values of `-bin` keys base64-encoded (no padding stripped), exactly what grpc-js's
 * `Metadata.toHttp2Headers()` gives for the same entries. The lean client sends it as it is; the grpc-js client
 * turns it into a `grpc.Metadata` with {@link toGrpcMetadata}.
 */
export type CallHeaders = Record<string, string>;

/**
 * The gRPC metadata of one call, as {@link CallHeaders}: every entry of `options.metadata` (keys lower-cased;
 * a `-bin` key carries its value's UTF-8 bytes), then `x-wanaku-request-id` from `options.requestId`, else
 * from the request's own `request_id` (`fallbackRequestId`), so a service that reads only metadata still
 * sees it. Keys that differ only in case keep the last value.
 *
 * @throws {TrestleError} `InvalidArgument` when a key or value is not legal gRPC metadata: a key with a
 *   character outside `0-9 a-z _ . -` (after lower-casing; so also a pseudo-header such as `:path`), or a
 *   text value with a character outside printable ASCII. The message names the key only: metadata values may
 *   be credentials.
 */
export function callMetadata(options: CallOptions | undefined, fallbackRequestId: string): CallHeaders {
  const headers: CallHeaders = {};
  const set = (key: string, value: string) => {
    if (!isGrpcMetadataKey(key)) {
      throw new TrestleError(
        `Metadata entry "${key}" is not legal gRPC metadata: a key has only 0-9 a-z _ . - (after lower-casing)`,
        Code.InvalidArgument,
      );
    }
    if (isBinaryMetadataKey(key)) {
      headers[key] = Buffer.from(value, "utf8").toString("base64");
      return;
    }
    if (!isGrpcTextMetadataValue(value)) {
      // The value may be a credential: it stays out of the message.
      throw new TrestleError(
        `Metadata entry "${key}" is not legal gRPC metadata: a text value must be printable ASCII (a key ending in -bin carries any text)`,
        Code.InvalidArgument,
      );
    }
    headers[key] = value;
  };
  const metadata = options?.metadata;
  if (metadata) for (const key of Object.keys(metadata)) set(key.toLowerCase(), metadata[key] as string);
  const requestId = options?.requestId || fallbackRequestId;
  if (requestId) set(REQUEST_ID_METADATA_KEY, requestId);
  return headers;
}

/** The same metadata as a grpc-js `Metadata`, for the grpc-js client (`-bin` values back to their bytes). */
export function toGrpcMetadata(grpcJs: GrpcJsModule, headers: CallHeaders): grpc.Metadata {
  const metadata = new grpcJs.Metadata();
  for (const key in headers) {
    const value = headers[key] as string;
    metadata.set(key, isBinaryMetadataKey(key) ? Buffer.from(value, "base64") : value);
  }
  return metadata;
}
