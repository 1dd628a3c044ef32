import { createCapabilityServer } from "@trestle/capability";
import { describeTransportContract } from "@trestle/core/testing";
import { wanakuHandlers } from "@trestle/wanaku";
import { createGrpcTransport } from "../src/index.js";
import { deadTarget } from "./support/dead-target.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

// The other tests run the default lean HTTP/2 client; `client: "grpc-js"` must keep passing the same kit.
describeTransportContract({
  name: "grpc transport on grpc-js (v1) ↔ independent proto-loader server",
  createTransport: () => createGrpcTransport({ client: "grpc-js" }),
  serve: (handlers) => serveWithProtoLoader(wanakuHandlers(handlers), { dialect: "v1" }),
  deadTarget: () => deadTarget("v1"),
});

describeTransportContract({
  name: "grpc transport on grpc-js ↔ capability SDK server",
  createTransport: () => createGrpcTransport({ client: "grpc-js" }),
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
