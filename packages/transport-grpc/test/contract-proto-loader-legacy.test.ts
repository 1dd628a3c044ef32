import { describeTransportContract } from "@trestle/core/testing";
import { wanakuHandlers } from "@trestle/wanaku";
import { createGrpcTransport } from "../src/index.js";
import { deadTarget } from "./support/dead-target.js";
import { serveWithProtoLoader } from "./support/proto-loader-server.js";

// The served targets name their dialect ("legacy"), so the transport speaks the seed-era packages to them.
describeTransportContract({
  name: "grpc transport (legacy dialect) ↔ independent proto-loader legacy server",
  createTransport: () => createGrpcTransport(),
  serve: (handlers) => serveWithProtoLoader(wanakuHandlers(handlers), { dialect: "legacy" }),
  deadTarget: () => deadTarget("legacy"),
});
