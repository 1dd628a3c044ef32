import { z } from "zod";

/**
 * The configuration key of the router's metrics: its schema (spread into the router's config schema, so the
 * reference documents it with the rest) and where it comes from. Traces are configured by the standard `OTEL_*`
 * environment variables instead (see the CLI's telemetry start).
 */
export const telemetryConfigFields = {
  metrics: z
    .object({
      open: z
        .boolean()
        .default(false)
        .describe("Serve /metrics without a token (for a scraper on a trusted network)"),
    })
    .strict()
    .or(z.literal(false))
    .optional()
    .describe(
      "Prometheus metrics at GET /metrics: on by default, behind the admin scope like the management API; {open: true} serves them without a token; false turns them off",
    ),
};

/** Where the metrics key comes from. */
export const telemetryConfigSources: Record<keyof typeof telemetryConfigFields, { env: string }> = {
  metrics: { env: "TRESTLE_METRICS" },
};

/** How `/metrics` is served: not at all, behind the admin scope, or to anyone. */
export type MetricsExposure = "off" | "admin" | "open";

/** The exposure a validated `metrics` setting means. */
export function metricsExposure(setting: { open: boolean } | false | undefined): MetricsExposure {
  if (setting === false) return "off";
  return setting?.open ? "open" : "admin";
}
