/**
 * Starts the OpenTelemetry SDK for `trestle serve` when the standard `OTEL_*` variables ask for traces, and only
 * then loads it: a router without them loads no SDK, and `@opentelemetry/api` stays a no-op.
 */

/** A started SDK: flushes and stops on shutdown. */
export interface StartedTelemetry {
  shutdown(): Promise<void>;
}

/**
 * True when the environment asks for traces: `OTEL_SDK_DISABLED=false`, or an exporter (`OTEL_TRACES_EXPORTER`
 * other than `none`) or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) —
 * unless `OTEL_SDK_DISABLED=true`.
 */
export function tracesRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase();
  if (disabled === "true") return false;
  if (disabled === "false") return true;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter && exporter !== "none") return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the Node SDK if {@link tracesRequested}: its exporter, sampler, propagators and resource come from the
 * `OTEL_*` variables as the SDK reads them (OTLP over HTTP by default); the service is named `trestle` unless
 * `OTEL_SERVICE_NAME` says otherwise. No instrumentation libraries: the router makes its own spans.
 */
export async function startTelemetry(
  env: Readonly<Record<string, string | undefined>>,
): Promise<StartedTelemetry | undefined> {
  if (!tracesRequested(env)) return undefined;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: "trestle" }),
    instrumentations: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
