import type { BridgeTransport } from "@trestle/core";

/**
 * A transport for interceptor tests: the given methods, and for the others an empty answer (no contents, no
 * output, an empty provisioning, healthy).
 */
export function stubTransport(methods: Partial<BridgeTransport>): BridgeTransport {
  return {
    callTool: async () => ({ content: [] }),
    readResource: async () => ({ contents: [] }),
    executeCode: async function* () {},
    provision: async () => ({ configurationUri: "", secretsUri: "", properties: {} }),
    probeHealth: async () => ({ state: "healthy" }),
    close: async () => {},
    ...methods,
  };
}
