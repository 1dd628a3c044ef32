import { describe, expect, it } from "vitest";
import { traceMeta } from "./trace-meta.js";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceMeta", () => {
  it("carries traceparent and tracestate in _meta, and no other metadata", () => {
    expect(
      traceMeta({
        metadata: { traceparent: TRACEPARENT, tracestate: "v=1", "x-tenant": "a", baggage: "u=1" },
      }),
    ).toEqual({ _meta: { traceparent: TRACEPARENT, tracestate: "v=1" } });
    expect(traceMeta({ metadata: { traceparent: TRACEPARENT } })).toEqual({
      _meta: { traceparent: TRACEPARENT },
    });
  });

  it("adds nothing to a call without a traceparent", () => {
    expect(traceMeta(undefined)).toEqual({});
    expect(traceMeta({ metadata: { tracestate: "v=1", "x-tenant": "a" } })).toEqual({});
  });
});
