import { describeTransportContract } from "@trestle/core/testing";
import { createGrpcTransport } from "../src/index.js";
import { deadTarget } from "./support/dead-target.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

describeTransportContract({
  name: "grpc transport (v1) ↔ independent proto-loader server",
  createTransport: () => createGrpcTransport(),
  serve: (handlers) => serveWithProtoLoader(handlers, { dialect: "v1" }),
  deadTarget: () => deadTarget("v1"),
});
