import { describe, expect, it } from "vitest";
import { traceHeaders } from "./trace-headers.js";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceHeaders", () => {
  it("sends traceparent and tracestate, and no other metadata", () => {
    expect(
      traceHeaders({ metadata: { traceparent: TRACEPARENT, tracestate: "v=1", "x-tenant": "a" } }),
    ).toEqual({
      traceparent: TRACEPARENT,
      tracestate: "v=1",
    });
  });

  it("sends nothing for a call without a traceparent", () => {
    expect(traceHeaders(undefined)).toBeUndefined();
    expect(traceHeaders({ metadata: { "x-tenant": "a" } })).toBeUndefined();
  });
});
