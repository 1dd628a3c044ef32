import type { TransportRequest } from "@trestle/core";

/** How a transport call is named on a client span, after the conventions of the protocol it goes over. */
export interface ClientSpanShape {
  name: string;
  /** `rpc.system` for RPC protocols (gRPC, Connect); absent for MCP and A2A. */
  rpcSystem?: string;
  rpcService?: string;
  rpcMethod?: string;
  /** `mcp.method.name` when the call goes to an MCP upstream. */
  mcpMethod?: string;
}

/** The Wanaku v1 service and method each transport call is, as gRPC and Connect name them on the wire. */
const WANAKU_RPC: Readonly<Record<TransportRequest["method"], readonly [string, string]>> = {
  callTool: ["ai.wanaku.tool.v1.ToolInvoker", "InvokeTool"],
  readResource: ["ai.wanaku.resource.v1.ResourceAcquirer", "ResourceAcquire"],
  executeCode: ["ai.wanaku.codeexecution.v1.CodeExecutor", "ExecuteCode"],
  provision: ["ai.wanaku.provision.v1.Provisioner", "Provision"],
  probeHealth: ["ai.wanaku.health.v1.HealthProbe", "GetStatus"],
  getPrompt: ["ai.wanaku.prompt.v1.PromptProvider", "GetPrompt"],
};

/** The MCP method each transport call is on an MCP upstream. */
const MCP_METHODS: Readonly<Record<TransportRequest["method"], string>> = {
  callTool: "tools/call",
  readResource: "resources/read",
  executeCode: "tools/call",
  provision: "tools/call",
  probeHealth: "ping",
  getPrompt: "prompts/get",
};

/** The span shape of a call of `method` over `transport`, with `target` (the tool's or resource's name) if known. */
export function clientSpanShape(
  transport: string,
  method: TransportRequest["method"],
  target: string,
): ClientSpanShape {
  if (transport === "grpc" || transport === "connect") {
    const [rpcService, rpcMethod] = WANAKU_RPC[method];
    return {
      name: `${rpcService}/${rpcMethod}`,
      rpcSystem: transport === "grpc" ? "grpc" : "connect_rpc",
      rpcService,
      rpcMethod,
    };
  }
  if (transport === "mcp") {
    const mcpMethod = MCP_METHODS[method];
    return { name: target ? `${mcpMethod} ${target}` : mcpMethod, mcpMethod };
  }
  return { name: target ? `${transport} ${method} ${target}` : `${transport} ${method}` };
}
