import { trace } from "@opentelemetry/api";

/**
 * True when an OpenTelemetry SDK has registered a tracer provider (spans would be recorded). Callers check it once,
 * at start, and leave tracing out of the hot path entirely when it is false.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider() as { getDelegateTracer?(name: string): unknown };
  // The API's proxy provider answers undefined until an SDK sets its delegate.
  return typeof provider.getDelegateTracer === "function"
    ? provider.getDelegateTracer("@trestle/telemetry") !== undefined
    : true;
}
