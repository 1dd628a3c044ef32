import { createInMemoryNetwork, createInMemoryTransport } from "../src/index.js";
import { describeTransportContract } from "../src/testing/index.js";

const network = createInMemoryNetwork();

describeTransportContract({
  name: "in-memory transport",
  createTransport: () => createInMemoryTransport({ network }),
  serve: (handlers) => network.serve(handlers),
  deadTarget: () => ({
    id: "dead",
    serviceName: "dead",
    host: "in-memory",
    port: 65_000,
    serviceType: "tool-invoker",
  }),
});
