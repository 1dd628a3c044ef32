import { createInMemoryNetwork, createInMemoryTransport } from "../src/in-memory-transport.js";
import { describeTransportContract } from "../src/testing/index.js";

const network = createInMemoryNetwork();

describeTransportContract({
  name: "in-memory transport",
  createTransport: () => createInMemoryTransport({ network }),
  serve: (handlers) => network.serve(handlers),
  // The in-memory transport has no protocol of its own: it reports no leg.
  expresses: { reportsLeg: false },
  deadTarget: () => ({
    id: "dead",
    serviceName: "dead",
    host: "in-memory",
    port: 65_000,
    serviceType: "tool-invoker",
  }),
});
