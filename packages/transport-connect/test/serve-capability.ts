import * as net from "node:net";
import { createCapabilityServer } from "@trestle/capability";
import type { ServiceTarget } from "@trestle/core";
import type { ServedCapability } from "@trestle/core/in-memory";
import type { CapabilityHandlers } from "@trestle/wanaku";

/** Serves `handlers` with the capability SDK on a free loopback port. */
export async function serveCapability(handlers: CapabilityHandlers): Promise<ServedCapability> {
  const server = createCapabilityServer({ ...handlers });
  const { host, port } = await server.listen();
  return {
    target: {
      id: `sdk-${port}`,
      serviceName: "sdk",
      host,
      port,
      serviceType: "multi-capability",
      protocol: "connect",
    },
    close: () => server.close(),
  };
}

/** A loopback target on which nothing listens: a port that was free a moment ago. */
export async function deadTarget(): Promise<ServiceTarget> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return { id: "dead", serviceName: "dead", host: "127.0.0.1", port, serviceType: "tool-invoker" };
}
