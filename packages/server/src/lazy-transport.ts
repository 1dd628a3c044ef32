import { type BridgeTransport, Code, TrestleError } from "@trestle/core";

/** Options for {@link lazyTransport}. */
export interface LazyTransportOptions {
  /**
   * How the transport describes a tool call while it is not loaded yet (`describeToolCall` is synchronous and
   * cannot wait for the module): for a transport whose wire applies rules of its own (Connect: Wanaku's). Once
   * loaded, the transport describes its calls itself. Absent: the transport sends arguments as they are.
   */
  describeToolCall?: NonNullable<BridgeTransport["describeToolCall"]>;
}

/**
 * A transport whose module is loaded on its first call: for a protocol most routers never use (MCP forwards),
 * so that an idle router does not hold that client stack in memory. `load` runs once; `close` and `release`
 * load nothing.
 */
export function lazyTransport(
  load: () => Promise<BridgeTransport>,
  options: LazyTransportOptions = {},
): BridgeTransport {
  let loading: Promise<BridgeTransport> | undefined;
  let ready: BridgeTransport | undefined;
  const loaded = () => {
    loading ??= load().then((transport) => {
      ready = transport;
      return transport;
    });
    return loading;
  };
  const lazy: BridgeTransport = {
    async callTool(call, target, options) {
      return (await loaded()).callTool(call, target, options);
    },
    async readResource(read, target, options) {
      return (await loaded()).readResource(read, target, options);
    },
    async getPrompt(get, target, options) {
      const transport = await loaded();
      if (!transport.getPrompt) throw new TrestleError("This transport has no prompts", Code.Unimplemented);
      return transport.getPrompt(get, target, options);
    },
    async *executeCode(run, target, options) {
      yield* (await loaded()).executeCode(run, target, options);
    },
    async provision(provisioning, target, options) {
      return (await loaded()).provision(provisioning, target, options);
    },
    async probeHealth(target, options) {
      return (await loaded()).probeHealth(target, options);
    },
    release(target) {
      void loading?.then((transport) => transport.release?.(target)).catch(() => undefined);
    },
    async close() {
      if (loading) await (await loading).close();
    },
  };
  const describe = options.describeToolCall;
  if (describe) {
    lazy.describeToolCall = (call, target) =>
      ready ? ready.describeToolCall?.(call, target) : describe(call, target);
  }
  return lazy;
}
