import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  type ServiceTarget,
  type ToolResult,
  TrestleError,
} from "@trestle/core";

/** A transport whose calls answer as told, recording the options each call reached it with. */
export function fakeTransport(answer: (toolName: string) => ToolResult | Promise<ToolResult>) {
  const seen: CallOptions[] = [];
  const transport: BridgeTransport = {
    async callTool(call, _target, options = {}) {
      seen.push(options);
      return answer(call.tool.name);
    },
    readResource: () => Promise.reject(new TrestleError("no resources", Code.Unimplemented)),
    async *executeCode(_run, _target, options = {}): AsyncIterable<CodeOutput> {
      seen.push(options);
      yield { type: "output", stream: "stdout", text: "1" };
      yield { type: "exit", status: "completed", exitCode: 0 };
    },
    provision: () => Promise.reject(new TrestleError("no provisioning", Code.Unimplemented)),
    probeHealth: async () => ({ status: "healthy" }) as never,
    close: async () => {},
  };
  return { transport, seen };
}

/** A target of `service` over `protocol`. */
export function target(service: string, protocol?: string): ServiceTarget {
  return {
    id: `${service}-1`,
    serviceName: service,
    host: "127.0.0.1",
    port: 9190,
    serviceType: "tool-invoker",
    ...(protocol ? { protocol } : {}),
  };
}
