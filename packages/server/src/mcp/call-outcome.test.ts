import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { asProtocolError, asTaskError } from "./call-outcome.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ProtocolError } from "./protocol-error.js";

describe("asTaskError", () => {
  it("keeps an MCP backend's own JSON-RPC code, from the error's typed detail", () => {
    const error = new TrestleError(
      "The MCP server 'x' answered tools/call with error -32602: bad",
      Code.InvalidArgument,
      {
        details: [{ type: "json-rpc", protocol: "mcp", code: -32602 }],
      },
    );
    const mapped = asTaskError(error) as ProtocolError;
    expect(mapped).toBeInstanceOf(ProtocolError);
    expect(mapped.code).toBe(-32602);
  });

  it("answers -32603 for another protocol's code, for metadata that merely names one, and for none", () => {
    const a2a = new TrestleError("agent failed", Code.NotFound, {
      details: [{ type: "json-rpc", protocol: "a2a", code: -32001 }],
    });
    // A key in the wire metadata is what a backend sent, not a code the router read: it decides nothing.
    const metadata = new TrestleError("x", Code.Internal, { metadata: { "mcp-error-code": "-32602" } });
    for (const error of [a2a, metadata, new TrestleError("plain", Code.Unavailable)])
      expect((asTaskError(error) as ProtocolError).code).toBe(JsonRpcErrorCode.InternalError);
  });
});

describe("asProtocolError", () => {
  it("answers a backend's refusal for a missing client capability with -32021, naming it", () => {
    const refusal = new TrestleError("needs sampling", Code.FailedPrecondition, {
      details: [{ type: "required-client-capabilities", capabilities: { sampling: {} } }],
    });
    const mapped = asProtocolError(refusal, "tool 'ask'") as ProtocolError;
    expect(mapped.code).toBe(-32021);
    expect(mapped.message).toContain("tool 'ask' needs sampling");
    // Without the detail, a FailedPrecondition is no protocol error of its own.
    expect(
      asProtocolError(new TrestleError("starting", Code.FailedPrecondition), "tool 'ask'"),
    ).toBeInstanceOf(TrestleError);
  });
});
