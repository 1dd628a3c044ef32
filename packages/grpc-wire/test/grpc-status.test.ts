import * as grpc from "@grpc/grpc-js";
import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { codeFromHttpStatus, errorFromGrpcStatus } from "../src/index.js";

describe("errorFromGrpcStatus", () => {
  it("keeps every gRPC status code as the Code of the same number, with the details as rawMessage", () => {
    const pairs: [grpc.status, Code][] = [
      [grpc.status.CANCELLED, Code.Canceled],
      [grpc.status.UNKNOWN, Code.Unknown],
      [grpc.status.INVALID_ARGUMENT, Code.InvalidArgument],
      [grpc.status.DEADLINE_EXCEEDED, Code.DeadlineExceeded],
      [grpc.status.NOT_FOUND, Code.NotFound],
      [grpc.status.ALREADY_EXISTS, Code.AlreadyExists],
      [grpc.status.PERMISSION_DENIED, Code.PermissionDenied],
      [grpc.status.RESOURCE_EXHAUSTED, Code.ResourceExhausted],
      [grpc.status.FAILED_PRECONDITION, Code.FailedPrecondition],
      [grpc.status.ABORTED, Code.Aborted],
      [grpc.status.OUT_OF_RANGE, Code.OutOfRange],
      [grpc.status.UNIMPLEMENTED, Code.Unimplemented],
      [grpc.status.INTERNAL, Code.Internal],
      [grpc.status.UNAVAILABLE, Code.Unavailable],
      [grpc.status.DATA_LOSS, Code.DataLoss],
      [grpc.status.UNAUTHENTICATED, Code.Unauthenticated],
    ];
    for (const [status, code] of pairs) {
      const error = errorFromGrpcStatus({ code: status, details: `details of ${status}` });
      expect(error).toBeInstanceOf(TrestleError);
      expect(error.code).toBe(code);
      expect(error.rawMessage).toBe(`details of ${status}`);
    }
  });

  it("maps a status outside the known range to Unknown and still says something", () => {
    const error = errorFromGrpcStatus({ code: 42, details: "" });
    expect(error.code).toBe(Code.Unknown);
    expect(error.rawMessage).toContain("42");
    expect(errorFromGrpcStatus({ code: grpc.status.OK }).code).toBe(Code.Unknown);
  });

  it("decodes the escapes grpc-js leaves in a percent-encoded status message", () => {
    // connect-node sends encodeURIComponent(message); grpc-js applies decodeURI, which keeps %3A, %2F, %2C.
    const error = errorFromGrpcStatus({
      code: 3,
      details: "Missing required parameter(s)%3A name%2C city %2F user%3Apass",
    });
    expect(error.rawMessage).toBe("Missing required parameter(s): name, city / user:pass");
    expect(errorFromGrpcStatus({ code: 3, details: "100% sure" }).rawMessage).toBe("100% sure");
  });

  it("reads the details, else the message, and keeps the status as the cause", () => {
    const status = { code: 5, message: "5 NOT_FOUND: no such tool" };
    const error = errorFromGrpcStatus(status);
    expect(error.rawMessage).toBe("5 NOT_FOUND: no such tool");
    expect(error.cause).toBe(status);
    expect(errorFromGrpcStatus({ code: 5, details: "details", message: "message" }).rawMessage).toBe(
      "details",
    );
  });

  it("maps a status that is not a whole number, or none, to Unknown", () => {
    expect(errorFromGrpcStatus({ code: 1.5, details: "x" }).code).toBe(Code.Unknown);
    expect(errorFromGrpcStatus({ details: "x" }).code).toBe(Code.Unknown);
  });
});

describe("codeFromHttpStatus", () => {
  it.each([
    [400, Code.Internal],
    [401, Code.Unauthenticated],
    [403, Code.PermissionDenied],
    [404, Code.Unimplemented],
    [429, Code.Unavailable],
    [502, Code.Unavailable],
    [503, Code.Unavailable],
    [504, Code.Unavailable],
    [500, Code.Unknown],
    [302, Code.Unknown],
  ])("reads HTTP %d without a gRPC status as %s", (http, code) => {
    expect(codeFromHttpStatus(http)).toBe(code);
  });
});
