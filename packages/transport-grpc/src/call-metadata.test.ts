import * as grpc from "@grpc/grpc-js";
import { type CallOptions, Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { callMetadata, toGrpcMetadata } from "./call-metadata.js";

/** What the transport sent before it had its own builder: grpc-js's `Metadata`, filled as the call asks. */
function grpcJsMetadata(options: CallOptions | undefined, fallbackRequestId: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(options?.metadata ?? {})) {
    const lower = key.toLowerCase();
    metadata.set(lower, lower.endsWith("-bin") ? Buffer.from(value, "utf8") : value);
  }
  const requestId = options?.requestId || fallbackRequestId;
  if (requestId) metadata.set("x-wanaku-request-id", requestId);
  return metadata;
}

const legalCases: Array<[string, Record<string, string>]> = [
  [
    "plain ASCII",
    { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "x-tenant": "t" },
  ],
  ["upper-case keys", { TraceParent: "00-a-b-01", "X-Tenant": "T", AUTHORIZATION: "Bearer abc" }],
  ["every legal key character", { "az09_.-az": "v", "0": "digit key", _: "underscore", ".a": "dot" }],
  [
    "every printable ASCII character",
    { printable: Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("") },
  ],
  ["empty values", { empty: "", "empty-bin": "" }],
  ["leading and trailing spaces", { spaced: "  x  " }],
  ["-bin with ASCII", { "trace-bin": "abc" }],
  ["-bin with non-ASCII UTF-8", { "name-bin": "Ünïcödé ✓ 日本語 😀", "Upper-Bin": "ß" }],
  ["-bin with control characters and NUL", { "raw-bin": "\u0000\u0001\n\t\u007f" }],
  ["-bin with a lone surrogate", { "odd-bin": "a\ud800b" }],
  ["-bin lengths around base64 padding", { "a-bin": "x", "b-bin": "xy", "c-bin": "xyz", "d-bin": "xyzw" }],
  ["keys differing only in case (last wins)", { Tenant: "first", tenant: "second" }],
  ["a caller's own request id header (overridden)", { "X-Wanaku-Request-Id": "caller" }],
  [
    "reserved gRPC names (the clients set their own after)",
    { "grpc-timeout": "1S", "content-type": "text/plain", te: "x" },
  ],
];

describe("callMetadata", () => {
  it.each(legalCases)("gives the HTTP/2 headers grpc-js's Metadata gives: %s", (_, metadata) => {
    for (const [options, fallback] of [
      [{ metadata, requestId: "opt-1" }, "req"],
      [{ metadata }, "req-2"],
      [{ metadata, requestId: "" }, ""],
    ] as Array<[CallOptions, string]>) {
      const expected = grpcJsMetadata(options, fallback).toHttp2Headers();
      const headers = callMetadata(options, fallback);
      expect(Object.entries(headers)).toEqual(Object.entries(expected));
    }
  });

  it.each(legalCases)(
    "turns back into the same grpc-js Metadata for the grpc-js client: %s",
    (_, metadata) => {
      const options = { metadata, requestId: "id-7" };
      const expected = grpcJsMetadata(options, "");
      const converted = toGrpcMetadata(grpc, callMetadata(options, ""));
      expect(converted.toJSON()).toEqual(expected.toJSON());
      expect(converted.toHttp2Headers()).toEqual(expected.toHttp2Headers());
    },
  );

  it("sends caller metadata with lower-cased keys and the request id from the call options first", () => {
    expect(
      callMetadata({ requestId: "opt", metadata: { TraceParent: "00-a-b-01", "X-Tenant": "t" } }, "req"),
    ).toEqual({ traceparent: "00-a-b-01", "x-tenant": "t", "x-wanaku-request-id": "opt" });
  });

  it("falls back to the request's own request id, and sends none when both are empty", () => {
    expect(callMetadata(undefined, "req")).toEqual({ "x-wanaku-request-id": "req" });
    expect(callMetadata({ requestId: "" }, "")).toEqual({});
  });

  it("sends a -bin entry as the base64 of its UTF-8 bytes", () => {
    expect(callMetadata({ metadata: { "trace-bin": "ü" } }, "")).toEqual({
      "trace-bin": Buffer.from("ü", "utf8").toString("base64"),
    });
  });

  const illegal: Array<[string, Record<string, string>]> = [
    ["a space in the key", { "bad key": "v" }],
    ["an empty key", { "": "v" }],
    ["a non-ASCII key", { Ärger: "v" }],
    ["a slash in the key", { "a/b": "v" }],
    ["a non-ASCII text value", { name: "Zoë" }],
    ["a newline in a text value", { header: "a\r\nInjected: yes" }],
    ["a tab in a text value", { header: "a\tb" }],
    ["DEL in a text value", { header: "a\u007f" }],
    ["NUL in a text value", { header: "\u0000" }],
  ];

  it.each(illegal)("refuses %s, as grpc-js does, with InvalidArgument naming the key only", (_, metadata) => {
    expect(() => grpcJsMetadata({ metadata }, "")).toThrow();
    const [key, value] = Object.entries(metadata)[0] as [string, string];
    let error: unknown;
    try {
      callMetadata({ metadata }, "");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TrestleError);
    expect(error).toMatchObject({ code: Code.InvalidArgument });
    const message = (error as TrestleError).message;
    expect(message).toContain(`"${key.toLowerCase()}"`);
    if (value !== "v") expect(message).not.toContain(value);
  });

  it("refuses an illegal request id like any other entry", () => {
    expect(() => callMetadata({ requestId: "id\nX: y" }, "")).toThrow(
      expect.objectContaining({ code: Code.InvalidArgument }),
    );
    expect(() => grpcJsMetadata({ requestId: "id\nX: y" }, "")).toThrow();
  });

  it("refuses a key with a colon, which grpc-js accepts but cannot send", () => {
    // grpc-js drops a pseudo-header key from what it sends, and Node refuses a colon inside a header name.
    expect(grpcJsMetadata({ metadata: { ":path": "/other.Service/Method" } }, "").toHttp2Headers()).toEqual(
      {},
    );
    expect(() => grpcJsMetadata({ metadata: { "a:b": "v" } }, "")).not.toThrow();
    for (const key of [":path", "a:b"]) {
      expect(() => callMetadata({ metadata: { [key]: "v" } }, "")).toThrow(
        expect.objectContaining({ code: Code.InvalidArgument }),
      );
    }
  });

  it("keeps a secret value out of the message of a refused entry", () => {
    const attempt = () => callMetadata({ metadata: { Authorization: "Bearer s3cr3t-tökén" } }, "");
    expect(attempt).toThrow('Metadata entry "authorization" is not legal gRPC metadata');
    expect(attempt).not.toThrow(/s3cr3t|tökén/);
  });
});
