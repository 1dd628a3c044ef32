import * as grpc from "@grpc/grpc-js";
import { type CallOptions, Code, REQUEST_ID_METADATA_KEY, TrestleError } from "@trestle/core";

/**
 * The gRPC metadata of one call: every entry of `options.metadata` (keys lower-cased; a `-bin` key carries
 * its value's UTF-8 bytes), then `x-wanaku-request-id` from `options.requestId`, else from the request's own
 * `request_id` (`fallbackRequestId`), so a service that reads only metadata still sees it.
 *
 * @throws {TrestleError} `InvalidArgument` when a key or value is not legal gRPC metadata. The message names
 *   the key only: metadata values may be credentials.
 */
export function callMetadata(options: CallOptions | undefined, fallbackRequestId: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  const set = (key: string, value: string) => {
    try {
      if (key.endsWith("-bin")) metadata.set(key, Buffer.from(value, "utf8"));
      else metadata.set(key, value);
    } catch {
      // grpc-js's own message quotes the value; a value may be a credential, so it stays out.
      throw new TrestleError(`Metadata entry "${key}" is not legal gRPC metadata`, Code.InvalidArgument);
    }
  };
  for (const [key, value] of Object.entries(options?.metadata ?? {})) set(key.toLowerCase(), value);
  const requestId = options?.requestId || fallbackRequestId;
  if (requestId) set(REQUEST_ID_METADATA_KEY, requestId);
  return metadata;
}
