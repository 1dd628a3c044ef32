import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attribute, startOtlpReceiver } from "./support/otlp-receiver.js";
import {
  api,
  echoTool,
  eventually,
  type RouterProcess,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
} from "./support/processes.js";
import { sseEvents } from "./support/sse.js";

const ADMIN = "observability-admin-token-0123456789";
const AGENT = "observability-agent-token-0123456789";
const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** A stateless (2026-07-28) tools/call with the client's trace context in `params._meta`. */
async function callTool(routerUrl: string, name: string, traceparent?: string) {
  const response = await fetch(`${routerUrl}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${AGENT}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: { city: "Lisbon" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "observability-e2e", version: "1.0.0" },
          ...(traceparent ? { traceparent } : {}),
        },
      },
    }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  // JSON, or one SSE event carrying it.
  const json = text.startsWith("{") ? text : (sseEvents(text)[0]?.data ?? "");
  return JSON.parse(json) as { result?: { content?: { text?: string }[]; isError?: boolean } };
}

describe("observability: /metrics and OTLP traces from a real router", () => {
  let router: RouterProcess;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const admin = { authorization: `Bearer ${ADMIN}` };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN, scopes: ["admin"] },
        { name: "agent-alice", token: AGENT, scopes: ["mcp"] },
      ]),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
    });
    await startFixtureCapability(router.url, [
      "--service-name",
      "weather",
      "--service-type",
      "tool-invoker",
      "--protocol",
      "grpc",
      // An admin's registration may use loopback (a register-only token's may not, unless allowed).
      "--token",
      ADMIN,
    ]);
    await serviceHealthy(router.url, "weather", admin);
    await api(router.url, "POST", "/api/v1/tools", echoTool("forecast", "weather"), admin);
    await api(
      router.url,
      "POST",
      "/api/v1/tools",
      { name: "call_metadata", uri: "fixture://metadata", type: "weather", inputSchema: { type: "object" } },
      admin,
    );
  }, 180_000);

  afterAll(async () => {
    await stopAll();
    receiver?.server.close();
  });

  it("counts calls by namespace, tool, service, transport and principal class, behind the admin scope", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await callTool(router.url, "forecast");
      expect(answer.result?.isError).not.toBe(true);
    }
    const refused = await fetch(`${router.url}/metrics`, { headers: { authorization: `Bearer ${AGENT}` } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain("trestle_calls_total");
    expect((await fetch(`${router.url}/metrics`)).status).toBe(401);

    const response = await fetch(`${router.url}/metrics`, { headers: admin });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(
      'trestle_calls_total{namespace="",tool="forecast",service="weather",transport="grpc",method="callTool",principal_class="static",outcome="ok"} 3',
    );
    expect(text).toMatch(
      /trestle_call_duration_seconds_count\{namespace="",tool="forecast",service="weather",transport="grpc",method="callTool",principal_class="static",outcome="ok"\} 3/,
    );
    expect(text).toMatch(
      /mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",namespace="",principal_class="static",error_type=""\} [3-9]/,
    );
    expect(text).toContain('trestle_calls_in_flight{service="weather",transport="grpc"} 0');
    expect(text).toMatch(
      /trestle_service_circuit_state\{service="weather",instance="[^"]+",state="closed"\} 1/,
    );
    // Principals appear only as a class.
    expect(text).not.toContain("agent-alice");
  });

  it("exports a server span parented on the client's traceparent, a client span for the gRPC leg, and sends its context to the capability", async () => {
    const answer = await callTool(router.url, "call_metadata", `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`);
    const metadata = JSON.parse(answer.result?.content?.[0]?.text ?? "{}") as Record<string, string>;
    const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(metadata.traceparent ?? "");
    expect(sent?.[1]).toBe(CLIENT_TRACE);
    expect(metadata["x-trestle-capability-secret"]).toBeUndefined();

    const [server, client] = await eventually(
      () => {
        const inTrace = receiver.spans.filter((s) => s.traceId === CLIENT_TRACE);
        const serverSpan = inTrace.find((s) => s.kind === SPAN_KIND_SERVER);
        const clientSpan = inTrace.find((s) => s.kind === SPAN_KIND_CLIENT);
        return serverSpan && clientSpan ? [serverSpan, clientSpan] : undefined;
      },
      20_000,
      "the call's spans at the OTLP receiver",
    );
    expect(server.name).toBe("tools/call call_metadata");
    expect(server.parentSpanId).toBe(CLIENT_SPAN);
    expect(attribute(server, "mcp.method.name")).toBe("tools/call");
    expect(attribute(server, "gen_ai.tool.name")).toBe("call_metadata");
    expect(attribute(server, "mcp.protocol.version")).toBe("2026-07-28");
    expect(attribute(server, "jsonrpc.request.id")).toBe("1");
    expect(client.name).toBe("ai.wanaku.tool.v1.ToolInvoker/InvokeTool");
    expect(client.parentSpanId).toBe(server.spanId);
    expect(attribute(client, "rpc.system")).toBe("grpc");
    expect(attribute(client, "trestle.service")).toBe("weather");
    // What the capability received is the client span's context.
    expect(sent?.[2]).toBe(client.spanId);
  });
});
