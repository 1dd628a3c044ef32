import type { ServiceTarget } from "@trestle/core";
import { describeTransportContract } from "@trestle/core/testing";
import { createHttpJsonCapabilityServer, createHttpJsonTransport } from "../src/index.js";

describeTransportContract({
  name: "http-json transport ↔ http-json capability server",
  createTransport: () => createHttpJsonTransport(),
  async serve(handlers) {
    const server = createHttpJsonCapabilityServer(handlers);
    const { host, port } = await server.listen();
    const target: ServiceTarget = {
      id: `http-json-${port}`,
      serviceName: "kit",
      host,
      port,
      serviceType: "multi-capability",
      protocol: "http-json",
    };
    return { target, close: () => server.close() };
  },
  // Port 1 (tcpmux) is privileged and never served on a test machine: connections to it are refused at once.
  deadTarget: () => ({
    id: "dead",
    serviceName: "dead",
    host: "127.0.0.1",
    port: 1,
    serviceType: "tool-invoker",
  }),
});
