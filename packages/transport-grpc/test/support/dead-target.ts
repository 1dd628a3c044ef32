import { createServer } from "node:net";
import type { ServiceTarget } from "@trestle/core";

/** A target on 127.0.0.1 at a port that was free a moment ago and on which nothing listens now. */
export async function deadTarget(dialect: "v1" | "legacy" = "v1"): Promise<ServiceTarget> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    id: `dead-${port}`,
    serviceName: "dead",
    host: "127.0.0.1",
    port,
    serviceType: "tool-invoker",
    dialect,
  };
}
