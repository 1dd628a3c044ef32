import { createCapabilityServer } from "@trestle/capability";
import { describeTransportContract } from "@trestle/core/testing";
import { wanakuHandlers } from "@trestle/wanaku";
import { createGrpcTransport } from "../src/index.js";
import { deadTarget } from "./support/dead-target.js";

describeTransportContract({
  name: "grpc transport ↔ capability SDK server",
  createTransport: () => createGrpcTransport(),
  async serve(handlers) {
    const server = createCapabilityServer({ ...wanakuHandlers(handlers), closeTimeoutMs: 1_000 });
    const { host, port } = await server.listen();
    return {
      target: { id: `sdk-${port}`, serviceName: "kit", host, port, serviceType: "multi-capability" },
      close: () => server.close(),
    };
  },
  deadTarget: () => deadTarget("v1"),
});
