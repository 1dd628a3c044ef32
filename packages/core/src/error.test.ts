import { describe, expect, it } from "vitest";
import {
  Code,
  codeFromNumber,
  codeFromString,
  codeToString,
  isServiceFailure,
  isTransient,
  TrestleError,
} from "./error.js";
import { categorizeError } from "./events.js";

describe("TrestleError", () => {
  it("prefixes the message with the code name and keeps the raw message", () => {
    const e = new TrestleError("no such tool", Code.NotFound);
    expect(e.message).toBe("[not_found] no such tool");
    expect(e.rawMessage).toBe("no such tool");
    expect(e).toBeInstanceOf(Error);
  });

  it("from() keeps a TrestleError, maps aborts and timeouts, and wraps the rest", () => {
    const original = new TrestleError("x", Code.Internal);
    expect(TrestleError.from(original)).toBe(original);
    expect(TrestleError.from(new DOMException("stop", "AbortError")).code).toBe(Code.Canceled);
    expect(TrestleError.from(new DOMException("late", "TimeoutError")).code).toBe(Code.DeadlineExceeded);
    const wrapped = TrestleError.from(new Error("boom"), Code.Unavailable);
    expect(wrapped.code).toBe(Code.Unavailable);
    expect(wrapped.rawMessage).toBe("boom");
    expect(TrestleError.from("text").rawMessage).toBe("text");
  });

  it("carries typed details and finds the first of a type", () => {
    const e = new TrestleError("refused", Code.FailedPrecondition, {
      metadata: { "retry-after": "3" },
      details: [
        { type: "json-rpc", protocol: "mcp", code: -32021, data: { requiredCapabilities: { sampling: {} } } },
        { type: "required-client-capabilities", capabilities: { sampling: {} } },
      ],
    });
    expect(e.findDetail("json-rpc")?.code).toBe(-32021);
    expect(e.findDetail("required-client-capabilities")?.capabilities).toEqual({ sampling: {} });
    expect(e.metadata).toEqual({ "retry-after": "3" });
    expect(new TrestleError("plain").findDetail("json-rpc")).toBeUndefined();
    expect(new TrestleError("plain").details).toEqual([]);
  });

  it("is an instance by its brand, so an error of another copy of the module is one too", () => {
    // What a second copy of @trestle/core makes: another class, the same global brand on its prototype.
    class OtherCopyError extends Error {
      code = Code.Unavailable;
      rawMessage = "down";
      metadata = {};
      details = [];
    }
    Object.defineProperty(OtherCopyError.prototype, Symbol.for("@trestle/core.TrestleError"), {
      value: true,
    });
    const foreign = new OtherCopyError("[unavailable] down");
    expect(foreign instanceof TrestleError).toBe(true);
    expect(TrestleError.from(foreign)).toBe(foreign);
    expect(new Error("x") instanceof TrestleError).toBe(false);
    expect({ code: 14, rawMessage: "forged" } instanceof TrestleError).toBe(false);
    expect((null as unknown) instanceof TrestleError).toBe(false);
  });

  it("keeps instanceof exact for subclasses", () => {
    class Narrow extends TrestleError {}
    expect(new Narrow("x") instanceof Narrow).toBe(true);
    expect(new Narrow("x") instanceof TrestleError).toBe(true);
    expect(new TrestleError("x") instanceof Narrow).toBe(false);
  });

  it("round-trips code names", () => {
    for (const code of [Code.Canceled, Code.Unavailable, Code.Unauthenticated]) {
      expect(codeFromString(codeToString(code))).toBe(code);
    }
    expect(codeFromString("nope")).toBeUndefined();
  });

  it("reads a gRPC status number as the code of the same number, and Unknown where no code has it", () => {
    for (let status = 1; status <= 16; status++) expect(codeFromNumber(status)).toBe(status);
    expect(codeFromNumber(Code.Unavailable)).toBe(Code.Unavailable);
    for (const status of [0, 17, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(codeFromNumber(status)).toBe(Code.Unknown);
    }
  });
});

describe("error classes", () => {
  it("tells transient failures from permanent ones", () => {
    expect(isTransient(new TrestleError("", Code.Unavailable))).toBe(true);
    expect(isTransient(new TrestleError("", Code.FailedPrecondition))).toBe(true);
    expect(isTransient(new TrestleError("", Code.InvalidArgument))).toBe(false);
    expect(isTransient(new TrestleError("", Code.Internal))).toBe(false);
    expect(isTransient(new Error("plain"))).toBe(false);
  });

  it("counts only failures to serve as service failures", () => {
    expect(isServiceFailure(new TrestleError("", Code.DeadlineExceeded))).toBe(true);
    expect(isServiceFailure(new TrestleError("", Code.NotFound))).toBe(false);
  });

  it.each([
    [Code.Unavailable, "service_unavailable"],
    [Code.DeadlineExceeded, "service_unavailable"],
    [Code.InvalidArgument, "invalid_arguments"],
    [Code.NotFound, "tool_definition_error"],
    [Code.Internal, "execution_error"],
    [Code.Unknown, "unknown"],
  ] as const)("categorises code %s as %s", (code, category) => {
    expect(categorizeError(new TrestleError("", code))).toBe(category);
  });

  it("categorises a non-Trestle error as unknown", () => {
    expect(categorizeError(new Error("x"))).toBe("unknown");
  });
});
