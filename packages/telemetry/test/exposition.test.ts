import { Counter, Gauge, Histogram, Registry, type RegistryContentType } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  CALL_LABELS,
  CALL_METRIC_DEFINITIONS,
  type CallMetrics,
  type CallSeriesValues,
  createCallMetrics,
  DURATION_BUCKETS_SECONDS,
  MCP_REQUEST_LABELS,
  type McpRequestSeriesValues,
} from "../src/call-metrics.js";

/** A registry rendering `contentType` (the types bind a registry to the Prometheus format; the metrics are the same). */
function registryOf(contentType: RegistryContentType): Registry {
  const registry = new Registry();
  registry.setContentType(contentType as Registry["contentType"]);
  return registry;
}

/** The call metrics as plain prom-client metrics, recorded into as prom-client is used directly. */
function referenceMetrics(registry: Registry) {
  const registers = [registry];
  const buckets = [...DURATION_BUCKETS_SECONDS];
  return {
    calls: new Counter({ ...CALL_METRIC_DEFINITIONS.calls, registers }),
    callDuration: new Histogram({ ...CALL_METRIC_DEFINITIONS.callDuration, buckets, registers }),
    inFlight: new Gauge({ ...CALL_METRIC_DEFINITIONS.inFlight, registers }),
    queued: new Gauge({ ...CALL_METRIC_DEFINITIONS.queued, registers }),
    mcpServerDuration: new Histogram({ ...CALL_METRIC_DEFINITIONS.mcpServerDuration, buckets, registers }),
  };
}

/** Label values as an object keyed by `names`, as the interceptors built them for prom-client. */
function labelsOf<L extends string>(names: readonly L[], values: readonly string[]): Record<L, string> {
  return Object.fromEntries(names.map((name, i) => [name, values[i]])) as Record<L, string>;
}

/** Records the same thing into both: the reference through prom-client, ours through the cells. */
function twin(contentType: RegistryContentType = Registry.PROMETHEUS_CONTENT_TYPE) {
  const expected = registryOf(contentType);
  const actual = registryOf(contentType);
  const reference = referenceMetrics(expected);
  const ours: CallMetrics = createCallMetrics(actual);
  return {
    call(series: CallSeriesValues, seconds: number) {
      const labels = labelsOf(CALL_LABELS, series);
      reference.calls.inc(labels);
      reference.callDuration.observe(labels, seconds);
      ours.recordCall(series, seconds);
    },
    mcp(series: McpRequestSeriesValues, seconds: number) {
      reference.mcpServerDuration.observe(labelsOf(MCP_REQUEST_LABELS, series), seconds);
      ours.recordMcpRequest(series, seconds);
    },
    inFlight(service: string, transport: string, by: 1 | -1) {
      reference.inFlight.inc({ service, transport }, by);
      ours.inFlight(service, transport).value += by;
    },
    queued(service: string, by: 1 | -1) {
      reference.queued.inc({ service }, by);
      ours.queued(service).value += by;
    },
    /** Both registries' text and JSON, which must be the same. */
    async expectSame() {
      const text = await actual.metrics();
      expect(text).toBe(await expected.metrics());
      expect(await actual.getMetricsAsJSON()).toEqual(await expected.getMetricsAsJSON());
      return text;
    },
  };
}

/** A deterministic stream of numbers in [0, 1) (a linear congruential generator): the same in every run. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const okCall: CallSeriesValues = ["team", "echo", "echo-service", "grpc", "callTool", "oauth", "ok"];

describe("call metrics exposition", () => {
  for (const contentType of [Registry.PROMETHEUS_CONTENT_TYPE, Registry.OPENMETRICS_CONTENT_TYPE] as const) {
    it(`renders byte for byte what prom-client's own metrics render for the same observations (${contentType.split(";")[0]})`, async () => {
      const both = twin(contentType);
      const random = numbers(7);
      const services = ["alpha", "beta", "gamma"];
      const outcomes = ["ok", "tool_error", "unavailable", "deadline_exceeded"];
      // Every bound exactly, between bounds, below the first, past the last (only +Inf counts it), and zero.
      const edges = [...DURATION_BUCKETS_SECONDS, 0, 0.0049, 0.015, 0.3333333, 299.999, 300.0001, 1234.5];
      for (const [i, seconds] of edges.entries()) {
        both.call(okCall, seconds);
        both.mcp(["tools/call", "team", "static", i % 2 === 0 ? "" : "tool_error"], seconds);
      }
      for (let i = 0; i < 2000; i++) {
        const service = services[Math.floor(random() * services.length)] as string;
        const transport = random() < 0.5 ? "grpc" : "mcp";
        both.inFlight(service, transport, 1);
        both.queued(service, 1);
        if (random() < 0.7) both.queued(service, -1);
        const outcome = outcomes[Math.floor(random() * outcomes.length)] as string;
        both.call(["", `tool-${i % 5}`, service, transport, "callTool", "static", outcome], random() * 3);
        if (random() < 0.9) both.inFlight(service, transport, -1);
        both.mcp(["resources/read", "", "anonymous", "-32602"], random() ** 4 * 100);
      }
      // Values a label must escape: a quote, a backslash, a newline.
      both.call(['ns"q', "tool\\back", "line\nbreak", "grpc", "executeCode", "builtin", "ok"], 0.02);
      const text = await both.expectSame();
      expect(text.endsWith("# EOF\n")).toBe(contentType === Registry.OPENMETRICS_CONTENT_TYPE);
      expect(text).toContain('trestle_call_duration_seconds_bucket{le="+Inf",namespace="team"');
      expect(text).toContain(
        'mcp_server_operation_duration_seconds_bucket{le="0.01",mcp_method_name="tools/call"',
      );
    });
  }

  it("stays the same across scrapes between recordings, its counters monotonic (no reset on scrape)", async () => {
    const both = twin();
    const counts: number[] = [];
    for (let round = 1; round <= 4; round++) {
      for (let i = 0; i < round; i++) both.call(okCall, 0.05 * i);
      both.inFlight("echo-service", "grpc", 1);
      const text = await both.expectSame();
      await both.expectSame(); // a second scrape with nothing recorded in between changes nothing
      const count = /trestle_calls_total\{[^}]*outcome="ok"\} (\d+)/.exec(text)?.[1];
      counts.push(Number(count));
    }
    expect(counts).toEqual([1, 3, 6, 10]);
  });

  it("renders nothing but the help and type lines before anything is recorded", async () => {
    await twin().expectSame();
  });
});
