import { Agent } from "node:http";
import { type CapabilityProcess, startCapability } from "./capability-process.js";
import { captureOutput, spawnNode, stopChild, waitForOutput } from "./child-process.js";
import { freePort, waitForPort } from "./free-port.js";
import type { LoadTarget } from "./load-spec.js";
import { createMcpHttpClient } from "./mcp-http-client.js";
import { distScript, mcpProxyCli, supergatewayCli } from "./paths.js";
import { manage, type RouterProcess, startRouter } from "./router-process.js";

/** The configurations the throughput benchmark compares. */
export const CONFIGURATION_NAMES = [
  "bound-mcp",
  "bound-grpc",
  "floor",
  "trestle-grpc",
  "trestle-grpc-stateless",
  "trestle-connect",
  "supergateway",
  "mcp-proxy",
] as const;

/** One configuration's name. */
export type ConfigurationName = (typeof CONFIGURATION_NAMES)[number];

/** A configuration whose processes are running. */
export interface RunningConfiguration {
  name: ConfigurationName;
  /** What it measures, for the report. */
  description: string;
  target: LoadTarget;
  /** The process measured as the server (the router, the bare server, the gateway): RSS and CPU. */
  serverPid: number;
  /** Count the server's descendants too (a gateway's stdio servers). */
  serverTree: boolean;
  /** The echo capability behind it, when there is one: its connections and its CPU. */
  capability?: CapabilityProcess;
  router?: RouterProcess;
  stop(): Promise<void>;
}

/** The echo tool as the router's catalog holds it. */
export function echoTool(serviceName: string, name = "echo", namespace?: string) {
  return {
    name,
    description: "Answers the text it is given (benchmark echo)",
    uri: "echo://bench",
    type: serviceName,
    ...(namespace ? { namespace } : {}),
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", description: "The text to answer" } },
      required: ["text"],
    },
  };
}

/** Calls the echo tool once through an MCP endpoint; throws unless the echo comes back. */
export async function smokeCall(url: string): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  try {
    const client = createMcpHttpClient({ url, agent });
    await client.initialize();
    const reply = await client.request("tools/call", { name: "echo", arguments: { text: "smoke" } });
    const content = (reply.result as { content?: { text?: string }[] } | undefined)?.content;
    if (content?.[0]?.text !== "smoke") {
      throw new Error(`the echo did not come back from ${url}: ${JSON.stringify(reply).slice(0, 300)}`);
    }
    await client.terminate();
  } finally {
    agent.destroy();
  }
}

async function startBoundMcp(): Promise<RunningConfiguration> {
  const child = spawnNode(distScript("servers/bound-mcp-server.js"), []);
  const match = await waitForOutput(child, /"listening":(\d+)/, 60_000);
  const url = `http://127.0.0.1:${match[1]}/mcp`;
  return {
    name: "bound-mcp",
    description:
      "bare MCP SDK 1.32 server (stateful, JSON responses), echo in-process: the cost of MCP alone",
    target: { kind: "mcp", url, tool: "echo", openStream: true },
    serverPid: child.pid as number,
    serverTree: false,
    stop: () => stopChild(child),
  };
}

async function startBoundGrpc(): Promise<RunningConfiguration> {
  const capability = await startCapability();
  return {
    name: "bound-grpc",
    description:
      "Trestle's gRPC transport (its lean node:http2 client) calling the echo capability directly: the backend hop alone",
    target: { kind: "grpc", host: capability.host, port: capability.port },
    serverPid: capability.pid,
    serverTree: false,
    capability,
    stop: () => capability.stop(),
  };
}

async function startFloor(): Promise<RunningConfiguration> {
  const capability = await startCapability();
  const child = spawnNode(distScript("servers/floor-router-server.js"), [
    "--capability",
    `${capability.host}:${capability.port}`,
  ]);
  const stop = async () => {
    await Promise.all([stopChild(child), capability.stop()]);
  };
  try {
    const match = await waitForOutput(child, /"listening":(\d+)/, 60_000);
    const url = `http://127.0.0.1:${match[1]}/mcp`;
    await smokeCall(url);
    return {
      name: "floor",
      description:
        "node:http in, one node:http2 session out, compiled protobuf; no session check, catalog, validation or events: the least a router can do (issue 19's measuring stick)",
      target: { kind: "mcp", url, tool: "echo", openStream: true },
      serverPid: child.pid as number,
      serverTree: false,
      capability,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts a router and an echo capability registered with `protocol`, and adds the echo tool. */
export async function startTrestle(
  protocol: "grpc" | "connect",
  routerOptions: Parameters<typeof startRouter>[0] = {},
  /** Call as MCP 2026-07-28 clients do (stateless), not as session clients. */
  stateless = false,
): Promise<RunningConfiguration & { router: RouterProcess; capability: CapabilityProcess }> {
  // On the router's defaults: the load generator's c256 (every call of a level in one session, beside its GET
  // stream) is within the 256 calls a session may have awaiting answers.
  const [capability, router] = await Promise.all([startCapability(), startRouter(routerOptions)]);
  try {
    const serviceName = `echo-${protocol}`;
    await capability.register(router.url, { serviceName, serviceType: "tool-invoker", protocol });
    await manage(router.url, "POST", "/api/v1/tools", echoTool(serviceName));
    const url = `${router.url}/mcp`;
    await smokeCall(url);
    return {
      name: protocol === "grpc" ? (stateless ? "trestle-grpc-stateless" : "trestle-grpc") : "trestle-connect",
      description: `MCP ${stateless ? "2026-07-28 (stateless)" : "2025-11-25 (session)"} client → Trestle → ${protocol === "grpc" ? "gRPC (node:http2 client)" : "Connect (connect-node)"} → echo capability`,
      target: { kind: "mcp", url, tool: "echo", openStream: !stateless, stateless },
      serverPid: router.pid,
      serverTree: false,
      capability,
      router,
      async stop() {
        await Promise.all([router.stop(), capability.stop()]);
      },
    };
  } catch (error) {
    await Promise.all([router.stop(), capability.stop()]);
    throw error;
  }
}

async function startSupergateway(): Promise<RunningConfiguration> {
  const port = await freePort();
  const child = spawnNode(supergatewayCli, [
    "--stdio",
    `${process.execPath} ${distScript("servers/stdio-echo-server.js")}`,
    "--outputTransport",
    "streamableHttp",
    "--stateful",
    "--port",
    String(port),
    "--logLevel",
    "none",
  ]);
  const output = captureOutput(child);
  try {
    await waitForPort(port, 60_000);
    const url = `http://127.0.0.1:${port}/mcp`;
    await smokeCall(url);
    return {
      name: "supergateway",
      description:
        "supergateway 4.0.0 (stateful Streamable HTTP) fronting a stdio MCP echo server (SDK 1.32)",
      target: { kind: "mcp", url, tool: "echo", openStream: true },
      serverPid: child.pid as number,
      serverTree: true,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw new Error(`supergateway did not serve: ${(error as Error).message}; it printed: ${output()}`);
  }
}

async function startMcpProxy(): Promise<RunningConfiguration> {
  const port = await freePort();
  const child = spawnNode(mcpProxyCli, [
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    "--server",
    "stream",
    "--",
    process.execPath,
    distScript("servers/stdio-echo-server.js"),
  ]);
  const output = captureOutput(child);
  try {
    await waitForPort(port, 60_000);
    const url = `http://127.0.0.1:${port}/mcp`;
    await smokeCall(url);
    return {
      name: "mcp-proxy",
      description: "mcp-proxy 6.2.0 (stateful Streamable HTTP) fronting a stdio MCP echo server (SDK 1.32)",
      target: { kind: "mcp", url, tool: "echo", openStream: true },
      serverPid: child.pid as number,
      serverTree: true,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw new Error(`mcp-proxy did not serve: ${(error as Error).message}; it printed: ${output()}`);
  }
}

/** Starts one configuration's processes and checks that an echo call goes through. */
export function startConfiguration(name: ConfigurationName): Promise<RunningConfiguration> {
  switch (name) {
    case "bound-mcp":
      return startBoundMcp();
    case "bound-grpc":
      return startBoundGrpc();
    case "floor":
      return startFloor();
    case "trestle-grpc":
      return startTrestle("grpc");
    case "trestle-grpc-stateless":
      return startTrestle("grpc", {}, true);
    case "trestle-connect":
      return startTrestle("connect");
    case "supergateway":
      return startSupergateway();
    case "mcp-proxy":
      return startMcpProxy();
  }
}
