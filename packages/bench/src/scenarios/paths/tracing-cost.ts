import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Headline } from "../../bench-report.js";
import type { PathComparisonOptions } from "./path-comparison.js";
import { medianCpuRatio, type PathRow } from "./path-rows.js";
import { PATH_SECTION_TITLES, type PathSection } from "./path-section.js";
import { compareRouterSettings } from "./router-settings-comparison.js";

const TRACED = "trestle-grpc, traced (100 %, OTLP/HTTP)";

/** An OTLP/HTTP receiver that accepts every export and counts what it received. */
interface TraceSink {
  url: string;
  requests(): number;
  bytes(): number;
  close(): void;
}

async function startTraceSink(): Promise<TraceSink> {
  let requests = 0;
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => {
      requests++;
      // An empty ExportTraceServiceResponse: nothing was rejected.
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The OpenTelemetry settings of the traced router: every span sampled, exported in batches, none dropped. */
export function tracedEnvironment(sinkUrl: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
    OTEL_TRACES_SAMPLER: "always_on",
    // The default queue (2,048 spans, exported every 5 s) drops spans at thousands of calls a second.
    OTEL_BSP_MAX_QUEUE_SIZE: "131072",
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2048",
    OTEL_BSP_SCHEDULE_DELAY: "500",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_LOGS_EXPORTER: "none",
  };
}

/** The median over rounds of the traced router's CPU per call ÷ the untraced one's in the same round. */
export const tracedCpuRatio: (rows: readonly PathRow[]) => number = medianCpuRatio;

/**
 * The router's CPU per call with tracing off and on (issue 50): trestle-grpc with the OpenTelemetry SDK exporting
 * every span over OTLP/HTTP to a sink in the harness, interleaved with the same router untraced.
 */
export async function runTracingCost(options: PathComparisonOptions): Promise<PathSection> {
  const sink = await startTraceSink();
  try {
    const rows = await compareRouterSettings(
      [
        { label: "trestle-grpc, untraced", env: { OTEL_SDK_DISABLED: "true" } },
        { label: TRACED, env: tracedEnvironment(sink.url) },
      ],
      options,
      // Spans still queued when the last run ended are exported within the schedule delay.
      () => new Promise((resolve) => setTimeout(resolve, 1_500)),
    );
    const ratio = tracedCpuRatio(rows);
    const tracedRow = rows[1];
    const untracedRow = rows[0];
    const headline: Headline = {
      name: "router CPU per call, traced at 100 % / untraced (trestle-grpc)",
      value: ratio,
      unit: "×",
      target: "",
      detail:
        `c${options.concurrency}, median over rounds of the ratio measured in the same round; ` +
        `${untracedRow ? untracedRow.serverCpuUsPerCall.toFixed(0) : "n/a"} µs untraced, ` +
        `${tracedRow ? tracedRow.serverCpuUsPerCall.toFixed(0) : "n/a"} µs traced; the sink received ` +
        `${sink.requests()} exports, ${(sink.bytes() / 2 ** 20).toFixed(1)} MiB`,
    };
    return {
      name: "tracing",
      title: PATH_SECTION_TITLES.tracing,
      method:
        "Two trestle-grpc routers (`trestle serve --memory-store`, each with its echo capability over gRPC), " +
        "interleaved: one untraced (`OTEL_SDK_DISABLED=true`: no SDK loaded), one with the OpenTelemetry Node SDK " +
        "started from the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT` to an OTLP/HTTP sink in the harness, " +
        "`http/protobuf`, `OTEL_TRACES_SAMPLER=always_on`, the batch processor's queue raised to 131,072 spans and " +
        "its batches to 2,048 every 500 ms so that no span is dropped). The sink answers every export with 200 and " +
        `counts it: ${sink.requests()} exports, ${(sink.bytes() / 2 ** 20).toFixed(1)} MiB over the section.`,
      rows,
      concurrency: options.concurrency,
      rounds: options.rounds,
      latencyRows: [],
      headlines: [headline],
    };
  } finally {
    sink.close();
  }
}
