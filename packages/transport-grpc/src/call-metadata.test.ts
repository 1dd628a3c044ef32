import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { callMetadata } from "./call-metadata.js";

describe("callMetadata", () => {
  it("sends caller metadata with lower-cased keys and the request id from the call options first", () => {
    const metadata = callMetadata(
      { requestId: "opt", metadata: { TraceParent: "00-a-b-01", "X-Tenant": "t" } },
      "req",
    );
    expect(metadata.getMap()).toEqual({
      traceparent: "00-a-b-01",
      "x-tenant": "t",
      "x-wanaku-request-id": "opt",
    });
  });

  it("falls back to the request's own request id, and sends none when both are empty", () => {
    expect(callMetadata(undefined, "req").get("x-wanaku-request-id")).toEqual(["req"]);
    expect(callMetadata({ requestId: "" }, "").get("x-wanaku-request-id")).toEqual([]);
  });

  it("sends a -bin entry as bytes", () => {
    expect(callMetadata({ metadata: { "trace-bin": "ü" } }, "").get("trace-bin")).toEqual([Buffer.from("ü")]);
  });

  it("refuses an illegal key with InvalidArgument", () => {
    const attempt = () => callMetadata({ metadata: { "bad key": "v" } }, "");
    expect(attempt).toThrow(TrestleError);
    expect(attempt).toThrow(expect.objectContaining({ code: Code.InvalidArgument }));
  });
});
