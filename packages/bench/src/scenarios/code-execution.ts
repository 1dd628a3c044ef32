import { Agent } from "node:http";
import type { CapabilityProcess } from "../capability-process.js";
import { type LatencySummary, summariseLatencies } from "../latency-summary.js";
import { createMcpHttpClient, type JsonRpcMessage } from "../mcp-http-client.js";

/** Time from a code-execution chunk leaving the engine to its progress notification at the client. */
export interface CodeExecutionMeasurement {
  calls: number;
  chunksPerCall: number;
  intervalMs: number;
  /** Chunks whose progress notification arrived. */
  received: number;
  latency: LatencySummary;
}

/** Settings of the code-execution benchmark. */
export interface CodeExecutionOptions {
  calls: number;
  chunksPerCall: number;
  intervalMs: number;
}

/**
 * Registers the echo capability's fake engine (`bench`/`javascript`) with the router, waits for `execute_code`
 * to be listed, then calls it with a progress token: every chunk the engine yields carries the monotonic time it
 * left the engine, and the client reads the clock when the chunk's progress notification arrives.
 */
export async function runCodeExecution(
  routerUrl: string,
  engine: CapabilityProcess,
  options: CodeExecutionOptions,
): Promise<CodeExecutionMeasurement> {
  await engine.register(routerUrl, {
    serviceName: "bench-engine",
    serviceType: "code-execution-engine",
    serviceSubType: "bench",
    languageName: "javascript",
    protocol: "grpc",
  });
  const latencies: number[] = [];
  const onNotification = (message: JsonRpcMessage) => {
    if (message.method !== "notifications/progress") return;
    const text = String(message.params?.message ?? "").trim();
    if (!/^\d+$/.test(text)) return;
    latencies.push(Number(process.hrtime.bigint() - BigInt(text)) / 1e6);
  };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const client = createMcpHttpClient({ url: `${routerUrl}/mcp`, agent, onNotification });
  await client.initialize();
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const reply = await client.request("tools/list", {});
      const tools = (reply.result as { tools?: { name: string }[] } | undefined)?.tools ?? [];
      if (tools.some((t) => t.name === "execute_code")) break;
      if (Date.now() > deadline)
        throw new Error("execute_code was not listed within 30 s of the engine's registration");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const code = JSON.stringify({ chunks: options.chunksPerCall, intervalMs: options.intervalMs });
    for (let call = 0; call < options.calls; call++) {
      const reply = await client.request("tools/call", {
        name: "execute_code",
        arguments: { language: "javascript", engine: "bench", code },
        _meta: { progressToken: `bench-${call}` },
      });
      const result = reply.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
      if (reply.error || result?.isError) {
        throw new Error(`execute_code failed: ${reply.error?.message ?? result?.content?.at(-1)?.text}`);
      }
    }
  } finally {
    await client.terminate();
    agent.destroy();
  }
  return {
    calls: options.calls,
    chunksPerCall: options.chunksPerCall,
    intervalMs: options.intervalMs,
    received: latencies.length,
    latency: summariseLatencies(latencies),
  };
}
