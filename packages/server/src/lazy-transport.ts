import { type BridgeTransport, Code, TrestleError } from "@trestle/core";

/**
 * A transport whose module is loaded on its first call: for a protocol most routers never use (MCP forwards),
 * so that an idle router does not hold that client stack in memory. `load` runs once; `close` and `release`
 * load nothing.
 */
export function lazyTransport(load: () => Promise<BridgeTransport>): BridgeTransport {
  let loading: Promise<BridgeTransport> | undefined;
  const loaded = () => {
    loading ??= load();
    return loading;
  };
  return {
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
}
