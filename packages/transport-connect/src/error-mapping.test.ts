import { Code as ConnectCode, ConnectError } from "@connectrpc/connect";
import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { trestleErrorFrom } from "./error-mapping.js";

function nodeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("trestleErrorFrom", () => {
  it.each([
    [ConnectCode.InvalidArgument, Code.InvalidArgument],
    [ConnectCode.NotFound, Code.NotFound],
    [ConnectCode.FailedPrecondition, Code.FailedPrecondition],
    [ConnectCode.Unimplemented, Code.Unimplemented],
    [ConnectCode.Unavailable, Code.Unavailable],
    [ConnectCode.DeadlineExceeded, Code.DeadlineExceeded],
    [ConnectCode.Internal, Code.Internal],
    [ConnectCode.PermissionDenied, Code.PermissionDenied],
  ])("keeps Connect code %s as the same Trestle code with the service's raw message", (from, to) => {
    const error = trestleErrorFrom(new ConnectError("the service said no", from));
    expect(error).toBeInstanceOf(TrestleError);
    expect(error.code).toBe(to);
    expect(error.rawMessage).toBe("the service said no");
  });

  it("answers Canceled when the caller's signal aborted, whatever the wire said", () => {
    const controller = new AbortController();
    controller.abort();
    expect(trestleErrorFrom(new ConnectError("x", ConnectCode.Unavailable), controller.signal).code).toBe(
      Code.Canceled,
    );
  });

  it("calls a cancellation the caller did not ask for Unavailable", () => {
    const error = trestleErrorFrom(
      new ConnectError("http/2 stream closed with error code CANCEL", ConnectCode.Canceled),
    );
    expect(error.code).toBe(Code.Unavailable);
    expect(
      trestleErrorFrom(new ConnectError("x", ConnectCode.Canceled), new AbortController().signal).code,
    ).toBe(Code.Unavailable);
  });

  it.each([
    [ConnectCode.Internal, "SELF_SIGNED_CERT_IN_CHAIN"],
    [ConnectCode.Internal, "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED"],
    [ConnectCode.Internal, "ERR_TLS_CERT_ALTNAME_INVALID"],
    [ConnectCode.Aborted, "ECONNRESET"],
  ])("calls connection failures Unavailable (%s caused by %s)", (from, nodeCode) => {
    const error = trestleErrorFrom(
      new ConnectError("handshake", from, undefined, undefined, nodeError(nodeCode, "x")),
    );
    expect(error.code).toBe(Code.Unavailable);
    expect(error.rawMessage).toBe("handshake");
  });

  it("keeps INTERNAL and ABORTED that no connection failure caused", () => {
    expect(trestleErrorFrom(new ConnectError("boom", ConnectCode.Internal)).code).toBe(Code.Internal);
    expect(
      trestleErrorFrom(
        new ConnectError("conflict", ConnectCode.Aborted, undefined, undefined, nodeError("EACCES", "x")),
      ).code,
    ).toBe(Code.Aborted);
  });

  it("returns a TrestleError as it is, and turns anything else into Unknown with its message", () => {
    const original = new TrestleError("bad metadata", Code.InvalidArgument);
    expect(trestleErrorFrom(original)).toBe(original);
    const other = trestleErrorFrom(new Error("strange"));
    expect(other.code).toBe(Code.Unknown);
    expect(other.rawMessage).toBe("strange");
  });
});
