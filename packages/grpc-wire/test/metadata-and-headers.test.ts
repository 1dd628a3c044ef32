import { describe, expect, it } from "vitest";
import {
  grpcRequestHeaders,
  isBinaryMetadataKey,
  isGrpcMetadataKey,
  isGrpcTextMetadataValue,
  isReservedTrailerKey,
} from "../src/index.js";

describe("metadata rules", () => {
  it.each(["x-wanaku-request-id", "tenant", "a.b_c-0", "trace-bin"])("allows the key %j", (key) => {
    expect(isGrpcMetadataKey(key)).toBe(true);
  });

  it.each(["", "Tenant", ":path", "a b", "ü", "a:b", "a/b"])("refuses the key %j", (key) => {
    expect(isGrpcMetadataKey(key)).toBe(false);
  });

  it("allows printable ASCII text values only, and any value under a -bin key", () => {
    expect(isGrpcTextMetadataValue(" printable ~ text ")).toBe(true);
    expect(isGrpcTextMetadataValue("")).toBe(true);
    for (const value of ["a\nb", "tab\t", "é", "\u007f"]) expect(isGrpcTextMetadataValue(value)).toBe(false);
    expect(isBinaryMetadataKey("trace-bin")).toBe(true);
    expect(isBinaryMetadataKey("bin")).toBe(false);
    expect(isBinaryMetadataKey("binary")).toBe(false);
  });

  it("keeps a server's own trailers off the status, the framing and HTTP/2's connection headers", () => {
    for (const key of [
      "grpc-status",
      "grpc-message",
      "content-type",
      "te",
      "connection",
      "transfer-encoding",
      "upgrade",
    ]) {
      expect(isReservedTrailerKey(key)).toBe(true);
    }
    for (const key of ["x-retry-after", "grpc-status-details-bin", "tenant"])
      expect(isReservedTrailerKey(key)).toBe(false);
  });
});

describe("a client's request headers", () => {
  it("complete the call's metadata in place with the gRPC headers and the deadline", () => {
    const metadata = { "x-wanaku-request-id": "42" };
    const headers = grpcRequestHeaders(metadata, "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool", 1_500.2);
    expect(headers).toBe(metadata);
    expect(headers).toEqual({
      "x-wanaku-request-id": "42",
      ":method": "POST",
      ":path": "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool",
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-timeout": "1501m",
    });
  });
});
