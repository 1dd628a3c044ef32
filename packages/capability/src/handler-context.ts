import type { HandlerContext as ConnectHandlerContext } from "@connectrpc/connect";
import { type HandlerContext, REQUEST_ID_METADATA_KEY } from "@trestle/core";

/**
 * Headers that belong to the HTTP, gRPC or Connect framing rather than to the caller's metadata; a handler
 * never needs them, and gRPC servers do not show them as metadata either.
 */
const FRAMING_HEADERS = new Set([
  "accept-encoding",
  "connection",
  "content-encoding",
  "content-length",
  "content-type",
  "host",
  "keep-alive",
  "te",
  "transfer-encoding",
]);

function isFramingHeader(key: string): boolean {
  return (
    FRAMING_HEADERS.has(key) || key.startsWith("grpc-") || key.startsWith("connect-") || key.startsWith(":")
  );
}

/** The Trestle {@link HandlerContext} of a Connect call: its signal, request id and lower-cased metadata. */
export function handlerContextFrom(context: ConnectHandlerContext): HandlerContext {
  const metadata: Record<string, string> = {};
  context.requestHeader.forEach((value, key) => {
    const name = key.toLowerCase();
    if (!isFramingHeader(name)) metadata[name] = value;
  });
  return {
    signal: context.signal,
    requestId: metadata[REQUEST_ID_METADATA_KEY] ?? "",
    metadata,
  };
}
