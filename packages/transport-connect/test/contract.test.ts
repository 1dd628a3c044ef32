import { describeTransportContract } from "@trestle/core/testing";
import { wanakuHandlers } from "@trestle/wanaku";
import { createConnectTransport } from "../src/index.js";
import { deadTarget, serveCapability } from "./serve-capability.js";

describeTransportContract({
  name: "connect transport (Connect, binary, HTTP/2) ↔ capability SDK",
  createTransport: () => createConnectTransport(),
  serve: (handlers) => serveCapability(wanakuHandlers(handlers)),
  deadTarget,
});

describeTransportContract({
  name: "connect transport (Connect, JSON, HTTP/1.1) ↔ capability SDK",
  createTransport: () => createConnectTransport({ httpVersion: "1.1", useBinaryFormat: false }),
  serve: (handlers) => serveCapability(wanakuHandlers(handlers)),
  deadTarget,
});

describeTransportContract({
  name: "connect transport (gRPC-Web, binary, HTTP/2) ↔ capability SDK",
  createTransport: () => createConnectTransport({ protocol: "grpc-web" }),
  serve: (handlers) => serveCapability(wanakuHandlers(handlers)),
  deadTarget,
});
