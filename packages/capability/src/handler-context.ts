import type { IncomingHttpHeaders } from "node:http2";
import type { HandlerContext as ConnectHandlerContext } from "@connectrpc/connect";
import type { HandlerContext } from "@trestle/core";
import { CAPABILITY_SECRET_METADATA_KEY, REQUEST_ID_METADATA_KEY } from "@trestle/wanaku";

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

/**
 * True for an entry a handler never sees: framing, and the call secret (checked before the handler runs; kept
 * out so that a handler that echoes or forwards its metadata cannot pass the secret on).
 */
function isFramingHeader(key: string): boolean {
  return (
    FRAMING_HEADERS.has(key) ||
    key === CAPABILITY_SECRET_METADATA_KEY ||
    key.startsWith("grpc-") ||
    key.startsWith("connect-") ||
    key.startsWith(":")
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

/** A `-bin` header as the base64 text of each value it carries, normalised, joined with ", " as gRPC repeats it. */
function binaryEntry(value: string): string {
  return value
    .split(",")
    .map((part) => Buffer.from(part.trim(), "base64").toString("base64"))
    .join(", ");
}

/**
 * How a `-bin` entry reaches a handler: `"grpc"`, each base64 value decoded and encoded again (as a gRPC server
 * shows binary metadata); `"as-sent"`, the header's text as it came (as connect-node shows a Connect call's).
 */
export type BinaryEntries = "grpc" | "as-sent";

/** The request headers of an HTTP/2 call as the metadata a handler sees; see {@link handlerContextFromGrpc}. */
function metadataRecord(headers: IncomingHttpHeaders, binary: BinaryEntries): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const key in headers) {
    const value = headers[key];
    if (value === undefined || isFramingHeader(key)) continue;
    const text = typeof value === "string" ? value : value.join(", ");
    entries[key] = binary === "grpc" && key.endsWith("-bin") ? binaryEntry(text) : text;
  }
  return entries;
}

/**
 * The Trestle {@link HandlerContext} of a gRPC call served from its HTTP/2 request headers, shaped as
 * {@link handlerContextFrom} shapes a Connect call's: repeated entries joined with ", " and a `-bin` entry as
 * base64 text (each value decoded and encoded again, as a gRPC server that decodes binary metadata would show
 * it), so a handler sees the same metadata whichever protocol the caller spoke.
 *
 * The lean Connect unary server passes `binary: "as-sent"`, so its handlers see what connect-node's would.
 *
 * Its fields are getters (own and enumerable, so spreading the context still copies them) that build the metadata
 * record and the signal on first read: most handlers read neither, and an `AbortSignal` per call is a measurable
 * part of a short call's CPU.
 */
export function handlerContextFromGrpc(
  headers: IncomingHttpHeaders,
  cancellation: { readonly signal: AbortSignal },
  binary: BinaryEntries = "grpc",
): HandlerContext {
  let entries: Record<string, string> | undefined;
  const read = () => {
    entries ??= metadataRecord(headers, binary);
    return entries;
  };
  return {
    get signal() {
      return cancellation.signal;
    },
    get requestId() {
      return read()[REQUEST_ID_METADATA_KEY] ?? "";
    },
    get metadata() {
      return read();
    },
  };
}

/** Where a unary handler's answer goes: its reply, encoded with `codec`, or its failure. */
export interface UnaryAnswer<Codec> {
  succeed(codec: Codec, reply: unknown): void;
  fail(failure: unknown): void;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === "function";
}

/**
 * Runs a unary handler and hands its answer to `call`, whichever protocol's server took the call: a handler that
 * answers synchronously is answered in the same turn (no promise on the hot path), a thrown error or a rejection
 * is its failure.
 */
export function answerUnary<Codec>(
  handler: (request: never, context: HandlerContext) => unknown,
  request: unknown,
  context: HandlerContext,
  codec: Codec,
  call: UnaryAnswer<Codec>,
): void {
  let result: unknown;
  try {
    result = handler(request as never, context);
  } catch (error) {
    call.fail(error);
    return;
  }
  if (isThenable(result)) {
    Promise.resolve(result).then(
      (reply) => call.succeed(codec, reply),
      (error: unknown) => call.fail(error),
    );
  } else {
    call.succeed(codec, result);
  }
}
