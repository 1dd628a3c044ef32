import { describe, expect, it } from "vitest";
import { tracesRequested } from "./otel-sdk.js";

describe("tracesRequested", () => {
  it("is off without OTEL_* variables, so no SDK is loaded", () => {
    expect(tracesRequested({})).toBe(false);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });

  it("is on for an exporter, an OTLP endpoint, or OTEL_SDK_DISABLED=false", () => {
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(
      true,
    );
    expect(tracesRequested({ OTEL_SDK_DISABLED: "false" })).toBe(true);
  });

  it("is off whatever else is set when OTEL_SDK_DISABLED=true", () => {
    expect(
      tracesRequested({ OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }),
    ).toBe(false);
  });
});
