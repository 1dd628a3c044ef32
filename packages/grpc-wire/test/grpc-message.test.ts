import { describe, expect, it } from "vitest";
import { decodeGrpcMessage, encodeGrpcMessage } from "../src/index.js";

describe("grpc-message", () => {
  it.each([
    ["plain ASCII, as is", "Deadline exceeded", "Deadline exceeded"],
    ["%, encoded", "100%", "100%25"],
    ["non-ASCII, as UTF-8 bytes", "é✓", "%C3%A9%E2%9C%93"],
    ["control characters", "a\nb", "a%0Ab"],
  ])("encodes %s", (_what, message, encoded) => {
    expect(encodeGrpcMessage(message)).toBe(encoded);
    expect(decodeURIComponent(encodeGrpcMessage(message))).toBe(message);
  });

  it.each(["Deadline exceeded", "100% sure", "naïve ✓ 日本語 😀", "tab\tand\r\nlines", "a:b/c,d%3A", ""])(
    "decodes what it encodes: %j",
    (message) => {
      expect(decodeGrpcMessage(encodeGrpcMessage(message))).toBe(message);
    },
  );

  it("decodes the escapes grpc-js's decodeURI leaves, and keeps text that is not percent-encoding", () => {
    // connect-node sends encodeURIComponent(message); grpc-js applies decodeURI, which keeps %3A, %2F, %2C.
    const leftByGrpcJs = decodeURI(
      encodeURIComponent("Missing required parameter(s): name, city / user:pass"),
    );
    expect(leftByGrpcJs).toContain("%3A");
    expect(decodeGrpcMessage(leftByGrpcJs)).toBe("Missing required parameter(s): name, city / user:pass");
    expect(decodeGrpcMessage("100% sure")).toBe("100% sure");
    expect(decodeGrpcMessage("no escapes")).toBe("no escapes");
  });
});
