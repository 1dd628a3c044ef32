import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attribute, type OtlpSpan, startOtlpReceiver } from "./support/otlp-receiver.js";
import { eventually, trestleCli } from "./support/processes.js";

const CLIENT_TRACE = "7d2c5e1a9b8f4c3e2a1d0f9e8b7c6a5d";
const LIST_SPAN = "1a2b3c4d5e6f7a8b";
const CALL_SPAN = "8b7a6f5e4d3c2b1a";
const SPAN_KIND_SERVER = 2;

describe("observability: the stdio front traces each MCP request as the HTTP front does", () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });

  afterAll(() => {
    receiver?.server.close();
  });

  it("exports a server span per request, parented on the request's _meta.traceparent, with the MCP attributes", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [trestleCli, "serve", "--stdio", "--memory-store", "--port", "0", "--log-level", "warn"],
      env: {
        ...getDefaultEnvironment(),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_LOGS_EXPORTER: "none",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-stdio-traces", version: "1.0.0" });
    await client.connect(transport);
    try {
      await client.listTools({ _meta: { traceparent: `00-${CLIENT_TRACE}-${LIST_SPAN}-01` } });
      // An unknown tool is a protocol error (-32602): its span says so.
      await expect(
        client.callTool({
          name: "no_such_tool",
          arguments: {},
          _meta: { traceparent: `00-${CLIENT_TRACE}-${CALL_SPAN}-01` },
        }),
      ).rejects.toThrow(/no_such_tool/);

      const [list, call] = await eventually(
        () => {
          const inTrace = receiver.spans.filter(
            (s: OtlpSpan) => s.traceId === CLIENT_TRACE && s.kind === SPAN_KIND_SERVER,
          );
          const listSpan = inTrace.find((s) => s.parentSpanId === LIST_SPAN);
          const callSpan = inTrace.find((s) => s.parentSpanId === CALL_SPAN);
          return listSpan && callSpan ? [listSpan, callSpan] : undefined;
        },
        20_000,
        "the stdio requests' spans at the OTLP receiver",
      );
      expect(list.name).toBe("tools/list");
      expect(attribute(list, "mcp.method.name")).toBe("tools/list");
      expect(attribute(list, "jsonrpc.request.id")).toMatch(/^\d+$/);
      expect(attribute(list, "mcp.protocol.version")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(attribute(list, "trestle.namespace")).toBe("");
      expect(call.name).toBe("tools/call no_such_tool");
      expect(attribute(call, "mcp.method.name")).toBe("tools/call");
      expect(attribute(call, "gen_ai.tool.name")).toBe("no_such_tool");
      expect(attribute(call, "gen_ai.operation.name")).toBe("execute_tool");
      expect(attribute(call, "error.type")).toBe("-32602");
    } finally {
      await client.close();
    }
  }, 60_000);
});
