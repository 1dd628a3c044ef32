import { constants } from "node:http2";
import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import {
  callEnding,
  OK_TRAILERS,
  type ReplyHeaders,
  statusTrailers,
  trailersOnlyHeaders,
} from "../src/index.js";

const open = { rstCode: constants.NGHTTP2_NO_ERROR };

/** Reply headers as Node gives them (its type cannot be written as a literal: `:status` is a number). */
function reply(headers: Record<string, string | number>): ReplyHeaders {
  return headers as unknown as ReplyHeaders;
}

const OK_HEADERS = { ":status": 200, "content-type": "application/grpc" };
const ok = reply(OK_HEADERS);

describe("a server's status trailers", () => {
  it("carry the code as text and the message percent-encoded, then the extra trailers", () => {
    expect(statusTrailers({ code: 13, message: "naïve 100% ✓" })).toEqual({
      "grpc-status": "13",
      "grpc-message": "na%C3%AFve 100%25 %E2%9C%93",
    });
    expect(
      statusTrailers({ code: 5, message: "gone", trailers: { "x-why": "moved", "x-id-bin": "AQI=" } }),
    ).toEqual({ "grpc-status": "5", "grpc-message": "gone", "x-why": "moved", "x-id-bin": "AQI=" });
  });

  it("end a call that went well with status 0", () => {
    expect(OK_TRAILERS).toEqual({ "grpc-status": "0", "grpc-message": "OK" });
  });

  it("ride in the only headers of a trailers-only answer, with HTTP 200 and the gRPC content type", () => {
    expect(trailersOnlyHeaders({ code: 12, message: "no such method" })).toEqual({
      ":status": 200,
      "content-type": "application/grpc",
      "grpc-status": "12",
      "grpc-message": "no such method",
    });
  });
});

describe("how a client's call ended (callEnding)", () => {
  it("is no error for status 0, in the trailers or a trailers-only reply", () => {
    expect(callEnding(open, ok, { "grpc-status": "0" })).toBeUndefined();
    expect(callEnding(open, reply({ ...OK_HEADERS, "grpc-status": "0" }), undefined)).toBeUndefined();
  });

  it("is the status's error, its message decoded, from the trailers before the headers", () => {
    const ending = callEnding(
      open,
      reply({ ...OK_HEADERS, "grpc-status": "14", "grpc-message": "from the headers" }),
      { "grpc-status": "3", "grpc-message": "Missing required parameter(s)%3A city %E2%9C%93" },
    );
    expect(ending).toBeInstanceOf(TrestleError);
    expect(ending?.code).toBe(Code.InvalidArgument);
    expect(ending?.rawMessage).toBe("Missing required parameter(s): city ✓");
    const trailersOnly = callEnding(
      open,
      reply({ ...OK_HEADERS, "grpc-status": "7", "grpc-message": "no" }),
      undefined,
    );
    expect([trailersOnly?.code, trailersOnly?.rawMessage]).toEqual([Code.PermissionDenied, "no"]);
  });

  it("says the status when the service sent no message", () => {
    const ending = callEnding(open, ok, { "grpc-status": "9" });
    expect(ending?.code).toBe(Code.FailedPrecondition);
    expect(ending?.rawMessage).toBe("The service answered with gRPC status 9");
  });

  it("reads an HTTP status without a gRPC status as gRPC maps it", () => {
    const ending = callEnding(open, reply({ ":status": 503 }), undefined);
    expect([ending?.code, ending?.rawMessage]).toEqual([Code.Unavailable, "The service answered HTTP 503"]);
    expect(callEnding(open, reply({ ":status": 404 }), undefined)?.code).toBe(Code.Unimplemented);
  });

  it("is Unavailable for a stream refused or closed before any reply, Internal for a reply without a status", () => {
    const refused = callEnding({ rstCode: constants.NGHTTP2_REFUSED_STREAM }, ok, undefined);
    expect([refused?.code, refused?.rawMessage]).toEqual([
      Code.Unavailable,
      "The service closed the call without an answer",
    ]);
    expect(callEnding(open, undefined, undefined)?.code).toBe(Code.Unavailable);
    const silent = callEnding(open, ok, {});
    expect([silent?.code, silent?.rawMessage]).toEqual([
      Code.Internal,
      "The service's reply carries no gRPC status",
    ]);
  });
});
