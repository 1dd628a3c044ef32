import { describeTransportContract } from "@trestle/core/testing";
import { wanakuHandlers } from "@trestle/wanaku";
import { createGrpcTransport } from "../src/index.js";
import { deadTarget } from "./support/dead-target.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

describeTransportContract({
  name: "grpc transport (v1) ↔ independent proto-loader server",
  createTransport: () => createGrpcTransport(),
  serve: (handlers) => serveWithProtoLoader(wanakuHandlers(handlers), { dialect: "v1" }),
  deadTarget: () => deadTarget("v1"),
});
